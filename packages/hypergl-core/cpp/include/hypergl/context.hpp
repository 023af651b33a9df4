// A context owns one device, every resource created on it, and the lock that
// serialises submits and releases (the GIL is released while a program runs,
// and free-threaded Python has no GIL at all).
#pragma once

#include <memory>
#include <mutex>
#include <atomic>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "hypergl/device.hpp"
#include "hypergl/interpreter.hpp"
#include "hypergl/program.hpp"
#include "hypergl/resources.hpp"

namespace hypergl {

// A resource that cannot be used as asked: released, of another context, of
// the wrong kind or too small for the slot it is bound to.
class BindingError : public std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

// A call into a context from the thread that holds its lock: a callback the
// context runs (an external source's acquire()) calling back into it. Waiting
// for the lock would wait forever, so the call is refused.
class ReentryError : public std::logic_error {
    using std::logic_error::logic_error;
};

// A GL context that must be current on the thread that calls into it (EGL).
// Entered with the Context's lock held, so by one thread at a time.
class CurrentContext {
  public:
    virtual ~CurrentContext() = default;
    // Makes the GL context current on the calling thread; throws if it cannot.
    virtual void enter() = 0;
    // Releases it from the calling thread (puts back what was current before).
    virtual void leave() noexcept = 0;
};

// A resource asked of a context that has been closed (by another thread, while this
// one was on its way in): it would outlive its GL context, so it is not made.
class ClosedError : public std::logic_error {
    using std::logic_error::logic_error;
};

class Context {
  public:
    explicit Context(std::unique_ptr<Device> device,
                     std::shared_ptr<CurrentContext> current = nullptr)
        : device_(std::move(device)), current_(std::move(current)) {}

    Device &device() { return *device_; }

    // The context's lock, held by one thread at a time; taking it on the thread
    // that holds it already throws ReentryError instead of deadlocking.
    class Lock {
      public:
        explicit Lock(Context &context);
        ~Lock();
        Lock(const Lock &) = delete;
        Lock &operator=(const Lock &) = delete;

      private:
        Context &context_;
    };

    // Holds the lock and, where there is one, the GL context current on this
    // thread: every call into the device happens inside an Entry.
    class Entry {
      public:
        explicit Entry(Context &context)
            : lock_(context), context_(context), current_(context.current_.get()),
              unwinding_(std::uncaught_exceptions()) {
            if (current_) current_->enter();
        }
        ~Entry() {
            // A call that failed (its exception is on its way up) reported what went
            // wrong: the GL errors it left must not fail the next, unrelated call.
            if (std::uncaught_exceptions() > unwinding_) context_.device_->discard_errors();
            if (current_) current_->leave();
        }
        Entry(const Entry &) = delete;
        Entry &operator=(const Entry &) = delete;

      private:
        Lock lock_;
        Context &context_;
        CurrentContext *current_;
        int unwinding_;
    };

    // Registers a resource created by a device-specific factory; throws ClosedError
    // (the resource is then freed with the lock held) once the context is closed.
    void adopt(const std::shared_ptr<Resource> &resource);
    std::shared_ptr<Buffer> create_host_buffer(const std::string &name, uint64_t size);
    std::shared_ptr<Resource> create_plain(isa::ResourceKind kind, const std::string &name);
    // A pipeline of the trace and null devices: its vertex inputs only.
    std::shared_ptr<Pipeline> create_pipeline(const std::string &name,
                                              std::vector<VertexInput> inputs);

    // Releases one resource (idempotent) or every live one.
    void release(Resource &resource);
    void release_all();
    // release_all(), and every later adopt() refused: checked under the lock that
    // creates, so no resource made by a racing thread survives the close.
    void close();
    bool closed() const { return closed_; }
    std::vector<std::shared_ptr<Resource>> live_objects() const;
    bool owns(const Resource &resource) const;
    // Throws BindingError ("<where>: <kind> '<name>' has been released", or
    // "belongs to another context") unless `resource` is live and this
    // context's. Call with the Lock held: release takes it too, so the resource
    // stays live for as long as the caller holds the lock.
    void check_live(const Resource &resource, const std::string &where = "") const;

    // Checks `resources` against the program's slot table; throws BindingError
    // naming the slot and the resource.
    void check_bindings(const ProgramImage &program,
                        const std::vector<std::shared_ptr<Resource>> &resources) const;

    // Runs a verified program with checked bindings. The caller holds the Lock.
    RunStats run(const ProgramImage &program,
                 const std::vector<std::shared_ptr<Resource>> &resources,
                 uint32_t registers[isa::kNumRegisters], const RunOptions &options);

  private:
    std::unique_ptr<Device> device_;
    std::shared_ptr<CurrentContext> current_;
    std::vector<std::shared_ptr<Resource>> resources_;
    bool closed_ = false;  // read and written under mutex_
    std::mutex mutex_;
    std::atomic<std::thread::id> holder_{};  // the thread holding mutex_, if any
};

}  // namespace hypergl
