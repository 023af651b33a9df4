// GPU resources as the engine sees them. Each belongs to one context, has a
// name (for traces and errors) and can be released; a released resource keeps
// its C++ object alive for whoever still refers to it, but every use raises.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hypergl/isa_generated.hpp"

namespace hypergl {

class Buffer;

// "buffer", "texture", ... for messages.
const char *resource_kind_name(isa::ResourceKind kind);

class Resource {
  public:
    Resource(isa::ResourceKind kind, std::string name) : kind_(kind), name_(std::move(name)) {}
    virtual ~Resource() = default;
    Resource(const Resource &) = delete;
    Resource &operator=(const Resource &) = delete;

    isa::ResourceKind kind() const { return kind_; }
    const std::string &name() const { return name_; }
    // Atomic so that a check outside the context's lock is not a data race; a
    // check that guards a use must still be made under the lock (see
    // Context::check_live), since release takes it.
    bool released() const { return released_.load(std::memory_order_acquire); }
    // The context that created this resource (nullptr once released).
    const void *owner() const { return owner_.load(std::memory_order_acquire); }
    void set_owner(const void *owner) { owner_.store(owner, std::memory_order_release); }
    // Frees what the resource holds; called by its context, once.
    virtual void release() {
        released_.store(true, std::memory_order_release);
        owner_.store(nullptr, std::memory_order_release);
    }

  private:
    isa::ResourceKind kind_;
    std::string name_;
    std::atomic<bool> released_{false};
    std::atomic<const void *> owner_{nullptr};
};

// Bytes the CPU can address: host memory (trace and null devices) or a
// persistent mapping of a GL buffer. Shared with every NumPy array that views
// it, so an array outlives a released buffer without dangling.
class Memory {
  public:
    virtual ~Memory() = default;
    uint8_t *data() const { return data_; }
    uint64_t size() const { return size_; }

  protected:
    uint8_t *data_ = nullptr;
    uint64_t size_ = 0;
};

class HostMemory final : public Memory {
  public:
    explicit HostMemory(uint64_t size);
    ~HostMemory() override;
};

class Buffer : public Resource {
  public:
    Buffer(std::string name, std::shared_ptr<Memory> memory)
        : Resource(isa::ResourceKind::BUFFER, std::move(name)), memory_(std::move(memory)),
          size_(memory_ ? memory_->size() : 0) {}
    // Fixed at creation: read without the lock (the memory goes at release).
    uint64_t size() const { return size_; }
    uint8_t *data() const { return memory_ ? memory_->data() : nullptr; }
    const std::shared_ptr<Memory> &memory() const { return memory_; }
    void release() override {
        Resource::release();
        memory_.reset();
    }

  private:
    std::shared_ptr<Memory> memory_;
    uint64_t size_;
};

// What draws read from one vertex buffer binding of a pipeline: vertex (or,
// per instance, instance) i reads bytes [i * stride, i * stride + extent) of
// the buffer bound there. The interpreter checks draws against it.
struct VertexInput {
    uint32_t binding;
    uint32_t stride;
    uint32_t extent;  // end of the last attribute: max(offset + size)
    bool per_instance;
};

// A uniform block of a pipeline's shaders: the buffer (or range) bound at
// `binding` must hold at least `size` bytes, or the shader reads zeros.
struct UniformBlock {
    uint32_t binding;
    uint64_t size;  // GL_UNIFORM_BLOCK_DATA_SIZE
    std::string name;
};

// A pipeline on any device: its vertex inputs and uniform blocks are what the
// interpreter needs to check draws, the same on gl, trace and null (GLPipeline
// adds the GL program; only it knows uniform blocks).
class Pipeline : public Resource {
  public:
    Pipeline(std::string name, std::vector<VertexInput> inputs,
             std::vector<UniformBlock> blocks = {})
        : Resource(isa::ResourceKind::PIPELINE, std::move(name)), inputs_(std::move(inputs)),
          blocks_(std::move(blocks)) {}
    const std::vector<VertexInput> &vertex_inputs() const { return inputs_; }
    const std::vector<UniformBlock> &uniform_blocks() const { return blocks_; }

  private:
    std::vector<VertexInput> inputs_;
    std::vector<UniformBlock> blocks_;
};

// Resources whose contents the engine does not touch on the trace and null
// devices: textures, framebuffers, fences, readback slots.
class PlainResource : public Resource {
  public:
    using Resource::Resource;
};

// Something outside HyperGL that can write itself into a buffer, e.g. a
// physics world (see hypergl-culverin). upload() runs with the GIL released.
class ExternalSource : public Resource {
  public:
    explicit ExternalSource(std::string name)
        : Resource(isa::ResourceKind::EXTERNAL, std::move(name)) {}
    // Copies the source into `destination`; throws std::runtime_error on failure.
    virtual void upload(Buffer &destination) = 0;
};

}  // namespace hypergl
