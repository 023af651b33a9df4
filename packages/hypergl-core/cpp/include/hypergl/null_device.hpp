// A device that does nothing: what remains is the interpreter's own cost.
#pragma once

#include "hypergl/device.hpp"

namespace hypergl {

class NullDevice final : public Device {
  public:
    const char *name() const override { return "null"; }
    void clear(const float *, uint32_t, uint32_t) override {}
    void bind_pipeline(Resource &) override {}
    void bind_framebuffer(Resource &) override {}
    void bind_vertex_buffer(uint32_t, Buffer &) override {}
    void bind_index_buffer(Buffer &) override {}
    void bind_uniform_buffer(uint32_t, Buffer &) override {}
    void bind_storage_buffer(uint32_t, Buffer &) override {}
    void bind_indirect_buffer(Buffer &) override {}
    void bind_parameter_buffer(Buffer &) override {}
    void bind_texture(uint32_t, Resource &) override {}
    void viewport(int32_t, int32_t, int32_t, int32_t) override {}
    void uniform(uint32_t, uint32_t, const void *) override {}
    void draw(uint32_t, uint32_t, uint32_t) override {}
    void draw_indexed(uint32_t, uint32_t, uint32_t, uint32_t) override {}
    void draw_indirect(uint32_t) override {}
    void draw_indexed_indirect(uint32_t, uint32_t) override {}
    void multi_draw_indirect(uint32_t, uint32_t, uint32_t) override {}
    void multi_draw_indexed_indirect(uint32_t, uint32_t, uint32_t, uint32_t) override {}
    void multi_draw_indirect_count(uint32_t, uint32_t, uint32_t) override {}
    void multi_draw_indexed_indirect_count(uint32_t, uint32_t, uint32_t, uint32_t) override {}
    void dispatch(uint32_t, uint32_t, uint32_t) override {}
    void dispatch_indirect(uint32_t) override {}
    void barrier(uint32_t) override {}
    void copy_buffer(Buffer &, Buffer &, uint32_t, uint32_t, uint32_t) override {}
    void fence_signal(Resource &) override {}
    bool fence_wait(Resource &, uint32_t) override { return true; }
    void read_framebuffer(uint32_t, Resource &, Resource &) override {}
    void upload(ExternalSource &, Buffer &) override {}
};

}  // namespace hypergl
