// GL fences: signalled in a program, waited on by the CPU; and the sliced
// wait every CPU-side wait for the GPU goes through.
#include <algorithm>
#include <stdexcept>

#include "hypergl/device.hpp"
#include "hypergl/errors.hpp"
#include "hypergl/gl_resources.hpp"

namespace hypergl {

GLenum client_wait(const GLApi &api, GLsync sync, uint64_t timeout_ns,
                   const std::function<bool()> *stop) {
    constexpr uint64_t kSliceNs = 10'000'000;  // how soon Ctrl+C is honoured
    const bool stoppable = stop && *stop;
    GLbitfield flags = gl::SYNC_FLUSH_COMMANDS_BIT;
    uint64_t left = timeout_ns;
    for (;;) {
        const uint64_t slice = stoppable ? std::min(left, kSliceNs) : left;
        const int64_t began = poll_clock_ns();
        const GLenum result = api.glClientWaitSync(sync, flags, slice);
        if (result == gl::WAIT_FAILED) throw std::runtime_error("glClientWaitSync failed");
        // Some drivers (llvmpipe) finish the work before they look at the
        // timeout: however the wait ended, a long one is followed by a check.
        if (stoppable && poll_clock_ns() - began >= kPollPeriodNs && (*stop)())
            throw Interrupted();
        if (result != gl::TIMEOUT_EXPIRED) return result;
        left -= slice;
        if (left == 0) return result;
        if (stoppable && (*stop)()) throw Interrupted();
        flags = 0;  // flushed once is enough
    }
}

void wait_idle(const GLApi &api, const std::function<bool()> *stop) {
    const int64_t began = poll_clock_ns();
    GLsync sync = api.glFenceSync(gl::SYNC_GPU_COMMANDS_COMPLETE, 0);
    try {
        // Making a fence flushes, and Mesa 20.3's llvmpipe (Debian 11) rasterizes inside
        // the flush, on this thread: the whole wait may have happened here, so a long one
        // is followed by a check, as a long slice is.
        if (stop && *stop && poll_clock_ns() - began >= kPollPeriodNs && (*stop)())
            throw Interrupted();
        client_wait(api, sync, UINT64_MAX, stop);
    } catch (...) {
        api.glDeleteSync(sync);
        throw;
    }
    api.glDeleteSync(sync);
}

void GLFence::release() {
    if (released()) return;
    Resource::release();
    if (sync_) shared_->api.glDeleteSync(sync_);
    sync_ = nullptr;
}

void GLFence::signal() {
    if (sync_) shared_->api.glDeleteSync(sync_);
    sync_ = shared_->api.glFenceSync(gl::SYNC_GPU_COMMANDS_COMPLETE, 0);
}

bool GLFence::wait(uint64_t timeout_ns, const std::function<bool()> *stop) {
    if (!sync_) return true;
    return client_wait(shared_->api, sync_, timeout_ns, stop) != gl::TIMEOUT_EXPIRED;
}

bool GLFence::ready() {
    if (!sync_) return true;
    // A zero timeout polls; the flush makes sure the fence will pass eventually.
    const GLenum result =
        shared_->api.glClientWaitSync(sync_, gl::SYNC_FLUSH_COMMANDS_BIT, 0);
    if (result == gl::WAIT_FAILED) throw std::runtime_error("glClientWaitSync failed");
    return result != gl::TIMEOUT_EXPIRED;
}

}  // namespace hypergl
