#include "hypergl/resources.hpp"

#include <cstdlib>
#include <cstring>
#include <new>

namespace hypergl {

const char *resource_kind_name(isa::ResourceKind kind) {
    switch (kind) {
        case isa::ResourceKind::BUFFER: return "buffer";
        case isa::ResourceKind::TEXTURE: return "texture";
        case isa::ResourceKind::PIPELINE: return "pipeline";
        case isa::ResourceKind::FRAMEBUFFER: return "framebuffer";
        case isa::ResourceKind::FENCE: return "fence";
        case isa::ResourceKind::READBACK: return "readback";
        case isa::ResourceKind::EXTERNAL: return "external source";
    }
    return "resource";
}

HostMemory::HostMemory(uint64_t size) {
    // 64-byte alignment: any NumPy dtype, and cache-line friendly.
    const uint64_t rounded = (size + 63) / 64 * 64;
    void *block = std::aligned_alloc(64, rounded ? rounded : 64);
    if (!block) throw std::bad_alloc();
    std::memset(block, 0, rounded ? rounded : 64);
    data_ = static_cast<uint8_t *>(block);
    size_ = size;
}

HostMemory::~HostMemory() { std::free(data_); }

}  // namespace hypergl
