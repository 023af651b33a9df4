// The interface through which the interpreter reaches the GPU. Three devices
// implement it: gl (real OpenGL), trace (records every call) and null (does
// nothing: measures pure dispatch). The same verified program runs on all.
//
// The interpreter has already checked every operand, statically or at run time,
// before it calls a device; devices report their own failures by throwing
// std::runtime_error, which the interpreter turns into a VMError.
#pragma once

#include <cstdint>

#include "hypergl/resources.hpp"

namespace hypergl {

class Device {
  public:
    virtual ~Device() = default;
    virtual const char *name() const = 0;

    // Called once at the start and end of every submit.
    virtual void begin_run() {}
    virtual void end_run() {}
    // After a run: throws std::runtime_error if the device saw an error
    // (the gl device reports pending GL errors here).
    virtual void check_after_run() {}

    virtual void clear(const float rgba_depth[5], uint32_t mask, uint32_t stencil) = 0;
    virtual void bind_pipeline(Resource &pipeline) = 0;
    virtual void bind_framebuffer(Resource &framebuffer) = 0;
    virtual void bind_vertex_buffer(uint32_t binding, Buffer &buffer) = 0;
    virtual void bind_index_buffer(Buffer &buffer) = 0;
    virtual void bind_uniform_buffer(uint32_t binding, Buffer &buffer) = 0;
    virtual void bind_storage_buffer(uint32_t binding, Buffer &buffer) = 0;
    virtual void bind_indirect_buffer(Buffer &buffer) = 0;
    virtual void bind_parameter_buffer(Buffer &buffer) = 0;
    virtual void bind_texture(uint32_t unit, Resource &texture) = 0;
    virtual void viewport(int32_t x, int32_t y, int32_t width, int32_t height) = 0;
    // `type` is an isa UNIFORM_TYPES index; `data` holds its components.
    virtual void uniform(uint32_t location, uint32_t type, const void *data) = 0;

    virtual void draw(uint32_t count, uint32_t first, uint32_t instances) = 0;
    virtual void draw_indexed(uint32_t index_type, uint32_t count, uint32_t first,
                              uint32_t instances) = 0;
    virtual void draw_indirect(uint32_t offset) = 0;
    virtual void draw_indexed_indirect(uint32_t index_type, uint32_t offset) = 0;
    virtual void multi_draw_indirect(uint32_t offset, uint32_t count, uint32_t stride) = 0;
    virtual void multi_draw_indexed_indirect(uint32_t index_type, uint32_t offset, uint32_t count,
                                             uint32_t stride) = 0;
    virtual void multi_draw_indirect_count(uint32_t offset, uint32_t count_offset,
                                           uint32_t max_count) = 0;
    virtual void multi_draw_indexed_indirect_count(uint32_t index_type, uint32_t offset,
                                                   uint32_t count_offset, uint32_t max_count) = 0;
    virtual void dispatch(uint32_t x, uint32_t y, uint32_t z) = 0;
    virtual void dispatch_indirect(uint32_t offset) = 0;
    virtual void barrier(uint32_t bits) = 0;

    virtual void copy_buffer(Buffer &source, Buffer &destination, uint32_t source_offset,
                             uint32_t destination_offset, uint32_t size) = 0;
    virtual void fence_signal(Resource &fence) = 0;
    // Returns false when the wait timed out.
    virtual bool fence_wait(Resource &fence, uint32_t timeout_us) = 0;
    virtual void read_framebuffer(uint32_t attachment, Resource &readback,
                                  Resource &framebuffer) = 0;
    virtual void upload(ExternalSource &source, Buffer &destination) = 0;

    // Before the CPU reads a mapped buffer (load, skip_if_zero, ...): a GPU
    // device makes earlier GPU writes visible (barrier + fence wait).
    virtual void prepare_cpu_read(Buffer &) {}
};

}  // namespace hypergl
