// GL readback rings: asynchronous reads of framebuffers into mapped
// pixel-pack buffers.
#include <stdexcept>

#include "hypergl/gl_resources.hpp"

namespace hypergl {

std::shared_ptr<GLReadback> GLReadback::create(const std::shared_ptr<GLShared> &shared,
                                               const std::string &name, int width, int height,
                                               int components, uint32_t attachment, int depth) {
    auto readback = std::make_shared<GLReadback>(name, shared, width, height, components,
                                                 attachment, depth);
    shared->check_errors("creating a readback ring");
    return readback;
}

GLReadback::GLReadback(std::string name, std::shared_ptr<GLShared> shared, int width, int height,
                       int components, uint32_t attachment, int depth)
    : Resource(isa::ResourceKind::READBACK, std::move(name)), shared_(std::move(shared)),
      width_(width), height_(height), components_(components), attachment_(attachment),
      frame_bytes_(uint64_t(width) * uint64_t(height) * uint64_t(components) *
                   (attachment == 4 ? 4u : 1u)),
      slots_(static_cast<size_t>(depth)) {
    const GLApi &api = shared_->api;
    const GLbitfield flags = gl::MAP_READ_BIT | gl::MAP_PERSISTENT_BIT | gl::MAP_COHERENT_BIT;
    for (Slot &slot : slots_) {
        api.glCreateBuffers(1, &slot.pbo);
        api.glNamedBufferStorage(slot.pbo, static_cast<GLsizeiptr>(frame_bytes_), nullptr,
                                 flags | gl::CLIENT_STORAGE_BIT);
        slot.mapped = static_cast<uint8_t *>(
            api.glMapNamedBufferRange(slot.pbo, 0, static_cast<GLsizeiptr>(frame_bytes_), flags));
        if (!slot.mapped) {
            release();
            throw std::runtime_error("could not map a pixel-pack buffer of " +
                                     std::to_string(frame_bytes_) + " bytes");
        }
    }
}

void GLReadback::release() {
    if (released()) return;
    Resource::release();
    const GLApi &api = shared_->api;
    for (Slot &slot : slots_) {
        if (slot.fence) api.glDeleteSync(slot.fence);
        if (slot.pbo) {
            if (slot.mapped) api.glUnmapNamedBuffer(slot.pbo);
            api.glDeleteBuffers(1, &slot.pbo);
        }
        slot = Slot{};
    }
}

void GLReadback::capture(GLFramebuffer &framebuffer, const std::function<bool()> *stop) {
    if (framebuffer.width() < width_ || framebuffer.height() < height_)
        throw std::runtime_error("framebuffer '" + framebuffer.name() + "' (" +
                                 std::to_string(framebuffer.width()) + "x" +
                                 std::to_string(framebuffer.height()) +
                                 ") is smaller than readback '" + name() + "' (" +
                                 std::to_string(width_) + "x" + std::to_string(height_) + ")");
    const GLApi &api = shared_->api;
    Slot &slot = slots_[written_ % slots_.size()];
    if (slot.fence) {
        // The CPU never took that frame: wait so the GPU does not overwrite it mid-read.
        client_wait(api, slot.fence, UINT64_MAX, stop);
        api.glDeleteSync(slot.fence);
        slot.fence = nullptr;
    }
    auto [format, type] = prepare_read(api, framebuffer, attachment_, components_, false);
    api.glPixelStorei(gl::PACK_ALIGNMENT, 1);
    api.glBindBuffer(gl::PIXEL_PACK_BUFFER, slot.pbo);
    api.glReadPixels(0, 0, width_, height_, format, type, nullptr);
    api.glBindBuffer(gl::PIXEL_PACK_BUFFER, 0);
    slot.fence = api.glFenceSync(gl::SYNC_GPU_COMMANDS_COMPLETE, 0);
    ++written_;
}

const uint8_t *GLReadback::frame(uint64_t frame, uint64_t timeout_ns,
                                 const std::function<bool()> *stop) {
    const uint64_t written = written_;
    if (frame >= written || written - frame > slots_.size())
        throw std::out_of_range("frame " + std::to_string(frame) + " of readback '" + name() +
                                "' is not in the ring (" + std::to_string(written) +
                                " frames written, depth " + std::to_string(slots_.size()) + ")");
    Slot &slot = slots_[frame % slots_.size()];
    if (slot.fence) {
        const GLenum result = client_wait(shared_->api, slot.fence, timeout_ns, stop);
        if (result == gl::TIMEOUT_EXPIRED)
            throw std::runtime_error("readback frame not ready within the timeout");
        shared_->api.glDeleteSync(slot.fence);
        slot.fence = nullptr;
    }
    return slot.mapped;
}

}  // namespace hypergl
