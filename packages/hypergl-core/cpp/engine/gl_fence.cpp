// GL fences: signalled in a program, waited on by the CPU.
#include <stdexcept>

#include "hypergl/gl_resources.hpp"

namespace hypergl {

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

bool GLFence::wait(uint64_t timeout_ns) {
    if (!sync_) return true;
    const GLenum result =
        shared_->api.glClientWaitSync(sync_, gl::SYNC_FLUSH_COMMANDS_BIT, timeout_ns);
    if (result == gl::WAIT_FAILED) throw std::runtime_error("glClientWaitSync failed");
    return result != gl::TIMEOUT_EXPIRED;
}

}  // namespace hypergl
