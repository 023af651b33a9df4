// Entering and leaving another library's GL context through its C functions.
#include "hypergl/foreign_gl_context.hpp"

namespace hypergl {

ForeignGLContext::ForeignGLContext(ForeignGLFunctions functions, void *handle)
    : functions_(functions), handle_(handle) {
    if (!functions_.make_current || !functions_.get_current || !functions_.get_proc_address)
        throw ContextFailure("a foreign GL context needs make-current, get-current and "
                             "get-proc-address functions (a null address was given)");
    if (!handle_) throw ContextFailure("a foreign GL context needs a non-null handle");
}

void ForeignGLContext::enter() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!handle_) throw ContextFailure("this context has been closed");
    previous_ = functions_.get_current();
    if (previous_ == handle_) {  // already current here: nothing to undo
        entered_ = true;
        return;
    }
    functions_.make_current(handle_);
    // The library reports a failure to its error callback only: ask what is current.
    if (functions_.get_current() != handle_)
        throw ContextFailure("could not make the window's OpenGL context current on this "
                             "thread");
    entered_ = made_current_ = true;
}

void ForeignGLContext::leave() noexcept {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        entered_ = false;
        if (made_current_) {
            made_current_ = false;
            functions_.make_current(previous_);  // usually none: free for the next thread
        }
    }
    left_.notify_all();
}

GLLoader ForeignGLContext::loader() const {
    const auto resolve = functions_.get_proc_address;
    return [resolve](const char *name) { return resolve(name); };
}

void ForeignGLContext::destroy() {
    std::unique_lock<std::mutex> lock(mutex_);
    // A window destroyed while current on a thread in a call leaves that thread's library
    // pointing at freed memory (its leave() would make-current through it): wait.
    left_.wait(lock, [this] { return !entered_; });
    if (!handle_) return;
    if (functions_.get_current() == handle_) functions_.make_current(nullptr);
    handle_ = nullptr;
}

bool ForeignGLContext::destroyed() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return handle_ == nullptr;
}

}  // namespace hypergl
