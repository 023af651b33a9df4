#include "hypergl/resources.hpp"

#include <cstdlib>
#include <cstring>
#include <new>

namespace hypergl {

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
