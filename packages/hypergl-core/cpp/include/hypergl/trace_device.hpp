// A device that records every GL-level call with its arguments, like an
// apitrace built in: for inspecting what a program does, and for tests of the
// interpreter that need no GPU. Host-side effects that need no GPU (buffer
// copies, uploads from external sources) are carried out on host memory, so
// programs that read buffers behave as they would on the gl device.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "hypergl/device.hpp"

namespace hypergl {

using TraceArg = std::variant<int64_t, double, std::string>;

struct TraceEntry {
    const char *call;  // the ISA mnemonic of the call (static storage)
    std::vector<TraceArg> args;
};

class TraceDevice final : public Device {
  public:
    const char *name() const override { return "trace"; }
    const std::vector<TraceEntry> &entries() const { return entries_; }
    void clear_entries() { entries_.clear(); }

    void clear(const float rgba_depth[5], uint32_t mask, uint32_t stencil) override;
    void bind_pipeline(Resource &pipeline) override;
    void bind_framebuffer(Resource &framebuffer) override;
    void bind_vertex_buffer(uint32_t binding, Buffer &buffer) override;
    void bind_index_buffer(Buffer &buffer) override;
    void bind_uniform_buffer(uint32_t binding, Buffer &buffer) override;
    void bind_storage_buffer(uint32_t binding, Buffer &buffer) override;
    void bind_indirect_buffer(Buffer &buffer) override;
    void bind_parameter_buffer(Buffer &buffer) override;
    void bind_texture(uint32_t unit, Resource &texture) override;
    void viewport(int32_t x, int32_t y, int32_t width, int32_t height) override;
    void uniform(uint32_t location, uint32_t type, const void *data) override;
    void draw(uint32_t count, uint32_t first, uint32_t instances) override;
    void draw_indexed(uint32_t index_type, uint32_t count, uint32_t first,
                      uint32_t instances) override;
    void draw_indirect(uint32_t offset) override;
    void draw_indexed_indirect(uint32_t index_type, uint32_t offset) override;
    void multi_draw_indirect(uint32_t offset, uint32_t count, uint32_t stride) override;
    void multi_draw_indexed_indirect(uint32_t index_type, uint32_t offset, uint32_t count,
                                     uint32_t stride) override;
    void multi_draw_indirect_count(uint32_t offset, uint32_t count_offset,
                                   uint32_t max_count) override;
    void multi_draw_indexed_indirect_count(uint32_t index_type, uint32_t offset,
                                           uint32_t count_offset, uint32_t max_count) override;
    void dispatch(uint32_t x, uint32_t y, uint32_t z) override;
    void dispatch_indirect(uint32_t offset) override;
    void barrier(uint32_t bits) override;
    void copy_buffer(Buffer &source, Buffer &destination, uint32_t source_offset,
                     uint32_t destination_offset, uint32_t size) override;
    void fence_signal(Resource &fence) override;
    bool fence_wait(Resource &fence, uint32_t timeout_us) override;
    void read_framebuffer(uint32_t attachment, Resource &readback, Resource &framebuffer) override;
    void upload(ExternalSource &source, Buffer &destination) override;

  private:
    void record(const char *call, std::vector<TraceArg> args) {
        entries_.push_back(TraceEntry{call, std::move(args)});
    }
    std::vector<TraceEntry> entries_;
};

}  // namespace hypergl
