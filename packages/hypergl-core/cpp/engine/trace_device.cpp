#include "hypergl/trace_device.hpp"

#include <cstring>

namespace hypergl {
namespace {
int64_t i(uint32_t value) { return static_cast<int64_t>(value); }
int64_t s(int32_t value) { return static_cast<int64_t>(value); }
}  // namespace

void TraceDevice::clear(const float v[5], uint32_t mask, uint32_t stencil) {
    record("clear", {double(v[0]), double(v[1]), double(v[2]), double(v[3]), double(v[4]),
                     i(mask), i(stencil)});
}
void TraceDevice::bind_pipeline(Resource &p) { record("bind_pipeline", {p.name()}); }
void TraceDevice::bind_framebuffer(Resource &f) { record("bind_framebuffer", {f.name()}); }
void TraceDevice::bind_vertex_buffer(uint32_t binding, Buffer &b) {
    record("bind_vertex_buffer", {b.name(), i(binding)});
}
void TraceDevice::bind_index_buffer(Buffer &b) { record("bind_index_buffer", {b.name()}); }
void TraceDevice::bind_uniform_buffer(uint32_t binding, Buffer &b) {
    record("bind_uniform_buffer", {b.name(), i(binding)});
}
void TraceDevice::bind_storage_buffer(uint32_t binding, Buffer &b) {
    record("bind_storage_buffer", {b.name(), i(binding)});
}
void TraceDevice::bind_uniform_range(uint32_t binding, Buffer &b, uint32_t offset,
                                     uint32_t size) {
    record("bind_uniform_range", {b.name(), i(binding), i(offset), i(size)});
}
void TraceDevice::bind_storage_range(uint32_t binding, Buffer &b, uint32_t offset,
                                     uint32_t size) {
    record("bind_storage_range", {b.name(), i(binding), i(offset), i(size)});
}
void TraceDevice::bind_indirect_buffer(Buffer &b) { record("bind_indirect_buffer", {b.name()}); }
void TraceDevice::bind_parameter_buffer(Buffer &b) {
    record("bind_parameter_buffer", {b.name()});
}
void TraceDevice::bind_texture(uint32_t unit, Resource &t) {
    record("bind_texture", {t.name(), i(unit)});
}
void TraceDevice::viewport(int32_t x, int32_t y, int32_t w, int32_t h) {
    record("viewport", {s(x), s(y), s(w), s(h)});
}
void TraceDevice::uniform(uint32_t location, uint32_t type, const void *data) {
    std::vector<TraceArg> args{i(location), i(type)};
    const uint32_t components = isa::kUniformComponents[type];
    for (uint32_t k = 0; k < components; ++k) {
        uint32_t bits;
        std::memcpy(&bits, static_cast<const uint8_t *>(data) + 4 * k, 4);
        switch (isa::kUniformBase[type]) {
            case 'f': {
                float value;
                std::memcpy(&value, &bits, 4);
                args.emplace_back(double(value));
                break;
            }
            case 'i': args.emplace_back(s(static_cast<int32_t>(bits))); break;
            default: args.emplace_back(i(bits)); break;
        }
    }
    record("uniform", std::move(args));
}
void TraceDevice::draw(uint32_t count, uint32_t first, uint32_t instances) {
    record("draw", {i(count), i(first), i(instances)});
}
void TraceDevice::draw_indexed(uint32_t type, uint32_t count, uint32_t first, uint32_t n) {
    record("draw_indexed", {i(type), i(count), i(first), i(n)});
}
void TraceDevice::draw_indirect(uint32_t offset) { record("draw_indirect", {i(offset)}); }
void TraceDevice::draw_indexed_indirect(uint32_t type, uint32_t offset) {
    record("draw_indexed_indirect", {i(type), i(offset)});
}
void TraceDevice::multi_draw_indirect(uint32_t offset, uint32_t count, uint32_t stride) {
    record("multi_draw_indirect", {i(offset), i(count), i(stride)});
}
void TraceDevice::multi_draw_indexed_indirect(uint32_t type, uint32_t offset, uint32_t count,
                                              uint32_t stride) {
    record("multi_draw_indexed_indirect", {i(type), i(offset), i(count), i(stride)});
}
void TraceDevice::multi_draw_indirect_count(uint32_t offset, uint32_t count_offset,
                                            uint32_t max_count) {
    record("multi_draw_indirect_count", {i(offset), i(count_offset), i(max_count)});
}
void TraceDevice::multi_draw_indexed_indirect_count(uint32_t type, uint32_t offset,
                                                    uint32_t count_offset, uint32_t max_count) {
    record("multi_draw_indexed_indirect_count",
           {i(type), i(offset), i(count_offset), i(max_count)});
}
void TraceDevice::dispatch(uint32_t x, uint32_t y, uint32_t z) {
    record("dispatch", {i(x), i(y), i(z)});
}
void TraceDevice::dispatch_indirect(uint32_t offset) { record("dispatch_indirect", {i(offset)}); }
void TraceDevice::barrier(uint32_t bits) { record("barrier", {i(bits)}); }
void TraceDevice::copy_buffer(Buffer &src, Buffer &dst, uint32_t src_offset, uint32_t dst_offset,
                              uint32_t size) {
    record("copy_buffer", {src.name(), dst.name(), i(src_offset), i(dst_offset), i(size)});
    std::memmove(dst.data() + dst_offset, src.data() + src_offset, size);
}
void TraceDevice::fence_signal(Resource &fence) { record("fence_signal", {fence.name()}); }
bool TraceDevice::fence_wait(Resource &fence, uint32_t timeout_us) {
    record("fence_wait", {fence.name(), i(timeout_us)});
    return true;
}
bool TraceDevice::fence_ready(Resource &fence) {
    record("fence_ready", {fence.name()});
    return true;  // the trace runs nothing on a GPU: every fence has passed
}
void TraceDevice::read_framebuffer(uint32_t attachment, Resource &readback, Resource &fb) {
    record("read_framebuffer", {i(attachment), readback.name(), fb.name()});
}
void TraceDevice::resolve_framebuffer(Resource &source, Resource &destination) {
    record("resolve_framebuffer", {source.name(), destination.name()});
}
void TraceDevice::upload(ExternalSource &source, Buffer &destination) {
    record("upload", {source.name(), destination.name()});
    source.upload(destination);
}

}  // namespace hypergl
