// A GL context made by another library (a GLFW window, or the hidden one of the fallback
// where EGL gives none), driven through that library's own C functions: make current, get
// current and get proc address, given as addresses. The engine makes it current on
// whichever thread enters (GLFW allows that on any thread; only creating windows and
// polling events are for the main thread) and lets go when it leaves, so the context
// is never current on two threads at once.
#pragma once

#include <condition_variable>
#include <mutex>

#include "hypergl/engine_gl_context.hpp"

namespace hypergl {

struct ForeignGLFunctions {
    void (*make_current)(void *handle) = nullptr;  // glfwMakeContextCurrent
    void *(*get_current)() = nullptr;              // glfwGetCurrentContext
    void *(*get_proc_address)(const char *name) = nullptr;  // glfwGetProcAddress
};

class ForeignGLContext final : public EngineGLContext {
  public:
    // `handle`: what make_current takes (a GLFWwindow*). Throws ContextFailure on nulls.
    ForeignGLContext(ForeignGLFunctions functions, void *handle);
    ForeignGLContext(const ForeignGLContext &) = delete;
    ForeignGLContext &operator=(const ForeignGLContext &) = delete;

    void enter() override;
    void leave() noexcept override;
    GLLoader loader() const override;
    // Waits for the entry in progress on another thread to leave, lets go of the context
    // (if current here) and forgets the handle: the owner may destroy its window after
    // this (it is current nowhere); a later enter() throws. Idempotent.
    void destroy();
    bool destroyed() const;

  private:
    ForeignGLFunctions functions_;
    mutable std::mutex mutex_;  // destroy() against enter() and leave()
    std::condition_variable left_;  // entered_ became false
    void *handle_;
    void *previous_ = nullptr;  // what enter() found current on this thread
    bool entered_ = false;      // between enter() and leave(): destroy() waits
    bool made_current_ = false;
};

}  // namespace hypergl
