#include "hypergl/context.hpp"

#include <algorithm>

#include "hypergl/errors.hpp"

namespace hypergl {

Context::Lock::Lock(Context &context) : context_(context) {
    const std::thread::id self = std::this_thread::get_id();
    if (context.holder_.load(std::memory_order_relaxed) == self)
        throw ReentryError(
            "this context is already in a call on this thread (a callback it runs, such as an "
            "external source's acquire(), called back into it): the call would deadlock; "
            "make it after the outer call returns");
    context.mutex_.lock();
    context.holder_.store(self, std::memory_order_relaxed);
}

Context::Lock::~Lock() {
    context_.holder_.store(std::thread::id(), std::memory_order_relaxed);
    context_.mutex_.unlock();
}

void Context::adopt(const std::shared_ptr<Resource> &resource) {
    if (closed_) throw ClosedError("this context has been closed");
    resource->set_owner(this);
    resources_.push_back(resource);
}

std::shared_ptr<Buffer> Context::create_host_buffer(const std::string &name, uint64_t size) {
    auto buffer = std::make_shared<Buffer>(name, std::make_shared<HostMemory>(size));
    adopt(buffer);
    return buffer;
}

std::shared_ptr<Resource> Context::create_plain(isa::ResourceKind kind, const std::string &name) {
    if (kind == isa::ResourceKind::PIPELINE) return create_pipeline(name, {});
    auto resource = std::make_shared<PlainResource>(kind, name);
    adopt(resource);
    return resource;
}

std::shared_ptr<Pipeline> Context::create_pipeline(const std::string &name,
                                                   std::vector<VertexInput> inputs) {
    auto pipeline = std::make_shared<Pipeline>(name, std::move(inputs));
    adopt(pipeline);
    return pipeline;
}

void Context::release(Resource &resource) {
    if (!owns(resource)) return;  // released already
    auto found = std::find_if(resources_.begin(), resources_.end(),
                              [&](const auto &held) { return held.get() == &resource; });
    resource.release();
    if (found != resources_.end()) resources_.erase(found);  // a framebuffer's depth is not listed
}

void Context::release_all() {
    // Newest first: framebuffers before the textures they render into.
    for (auto it = resources_.rbegin(); it != resources_.rend(); ++it) (*it)->release();
    resources_.clear();
}

void Context::close() {
    closed_ = true;
    release_all();
}

std::vector<std::shared_ptr<Resource>> Context::live_objects() const { return resources_; }

bool Context::owns(const Resource &resource) const { return resource.owner() == this; }

void Context::check_live(const Resource &resource, const std::string &where) const {
    if (owns(resource)) return;
    const std::string prefix = where.empty() ? "" : where + ": ";
    if (resource.released())
        throw BindingError(prefix + resource_kind_name(resource.kind()) + " '" + resource.name() +
                           "' has been released");
    throw BindingError(prefix + "'" + resource.name() + "' belongs to another context");
}

void Context::check_bindings(const ProgramImage &program,
                             const std::vector<std::shared_ptr<Resource>> &resources) const {
    if (resources.size() != program.slots.size())
        throw BindingError("the program has " + std::to_string(program.slots.size()) +
                           " resource slots but " + std::to_string(resources.size()) +
                           " resources were bound");
    for (size_t i = 0; i < resources.size(); ++i) {
        const Slot &slot = program.slots[i];
        const std::string where = "slot " + std::to_string(i) + " '" + slot.name + "'";
        const Resource *resource = resources[i].get();
        if (!resource) throw BindingError(where + " has no resource bound");
        check_live(*resource, where);
        if (resource->kind() != slot.kind)
            throw BindingError(where + " needs a " + resource_kind_name(slot.kind) + ", got " +
                               resource_kind_name(resource->kind()) + " '" + resource->name() +
                               "'");
        if (slot.kind == isa::ResourceKind::BUFFER) {
            const auto &buffer = static_cast<const Buffer &>(*resource);
            if (buffer.size() < slot.size)
                throw BindingError(where + " needs " + std::to_string(slot.size) +
                                   " bytes, buffer '" + buffer.name() + "' has " +
                                   std::to_string(buffer.size()));
        }
    }
}

RunStats Context::run(const ProgramImage &program,
                      const std::vector<std::shared_ptr<Resource>> &resources,
                      uint32_t registers[isa::kNumRegisters], const RunOptions &options) {
    check_bindings(program, resources);
    std::vector<Resource *> slots(resources.size());
    for (size_t i = 0; i < resources.size(); ++i) slots[i] = resources[i].get();
    RunStats stats = run_program(program, slots.data(), *device_, registers, options);
    try {
        device_->check_after_run();
    } catch (const std::exception &error) {
        throw VMFailure(-1, "", error.what());
    }
    return stats;
}

}  // namespace hypergl
