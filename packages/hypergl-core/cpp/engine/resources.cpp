#include "hypergl/resources.hpp"

#include <cstdlib>
#include <cstring>
#include <new>

#ifdef _WIN32
#include <malloc.h>
#endif

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
    const size_t bytes = static_cast<size_t>(rounded ? rounded : 64);
#ifdef _WIN32
    void *block = _aligned_malloc(bytes, 64);  // MSVC's runtime has no std::aligned_alloc
#else
    void *block = std::aligned_alloc(64, bytes);
#endif
    if (!block) throw std::bad_alloc();
    std::memset(block, 0, bytes);
    data_ = static_cast<uint8_t *>(block);
    size_ = size;
}

HostMemory::~HostMemory() {
#ifdef _WIN32
    _aligned_free(data_);
#else
    std::free(data_);
#endif
}

}  // namespace hypergl
