#include "hypergl/gl_resources.hpp"

#include <stdexcept>

namespace hypergl {

void GLShared::collect() {
    std::vector<GLuint> doomed;
    {
        std::lock_guard<std::mutex> lock(mutex);
        doomed.swap(doomed_buffers);
    }
    for (GLuint name : doomed) {
        api.glUnmapNamedBuffer(name);
        api.glDeleteBuffers(1, &name);
    }
}

GLMemory::GLMemory(std::shared_ptr<GLShared> shared, GLuint name, uint8_t *mapped, uint64_t size)
    : shared_(std::move(shared)), name_(name) {
    data_ = mapped;
    size_ = size;
    ++shared_->live_mappings;
}

GLMemory::~GLMemory() {
    --shared_->live_mappings;
    std::lock_guard<std::mutex> lock(shared_->mutex);
    if (shared_->alive) shared_->doomed_buffers.push_back(name_);
}

GLuint gl_buffer_name(const Buffer &buffer) {
    return static_cast<const GLMemory &>(*buffer.memory()).gl();
}

void GLTexture::release() {
    if (released()) return;
    Resource::release();
    for (GLuint64 handle : resident_handles) shared_->api.glMakeTextureHandleNonResidentARB(handle);
    resident_handles.clear();
    handle_buffer.reset();
    if (!member_textures.empty())
        shared_->api.glDeleteTextures(static_cast<GLsizei>(member_textures.size()),
                                      member_textures.data());
    member_textures.clear();
    if (gl_) shared_->api.glDeleteTextures(1, &gl_);
}

void GLPipeline::release() {
    if (released()) return;
    Resource::release();
    shared_->api.glDeleteProgram(program_);
}

GLsizei GLPipeline::stride_of(GLuint binding) const {
    for (const VertexBinding &b : state_.bindings)
        if (b.binding == binding) return b.stride;
    return 0;
}

void GLFramebuffer::release() {
    if (released()) return;
    Resource::release();
    if (fbo_) shared_->api.glDeleteFramebuffers(1, &fbo_);
    for (auto &color : colors_) color->release();
    if (depth_) depth_->release();
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

bool GLFence::wait(uint64_t timeout_ns) {
    if (!sync_) return true;
    const GLenum result =
        shared_->api.glClientWaitSync(sync_, gl::SYNC_FLUSH_COMMANDS_BIT, timeout_ns);
    if (result == gl::WAIT_FAILED) throw std::runtime_error("glClientWaitSync failed");
    return result != gl::TIMEOUT_EXPIRED;
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

namespace {

GLenum color_format(int components) {
    switch (components) {
        case 1: return gl::RED;
        case 3: return gl::RGB;
        default: return gl::RGBA;
    }
}

// Binds `framebuffer` for reading `attachment`; returns (format, type).
std::pair<GLenum, GLenum> prepare_read(const GLApi &api, GLFramebuffer &framebuffer,
                                       uint32_t attachment, int components, bool float_pixels) {
    api.glBindFramebuffer(gl::READ_FRAMEBUFFER, framebuffer.fbo());
    if (attachment < 4) {
        if (framebuffer.fbo() != 0)
            api.glNamedFramebufferReadBuffer(framebuffer.fbo(), gl::COLOR_ATTACHMENT0 + attachment);
        return {color_format(components), float_pixels ? gl::FLOAT : gl::UNSIGNED_BYTE};
    }
    return {gl::DEPTH_COMPONENT, gl::FLOAT};
}

}  // namespace

void GLReadback::capture(GLFramebuffer &framebuffer) {
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
        api.glClientWaitSync(slot.fence, gl::SYNC_FLUSH_COMMANDS_BIT, UINT64_MAX);
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

const uint8_t *GLReadback::frame(uint64_t frame, uint64_t timeout_ns) {
    if (frame >= written_ || written_ - frame > slots_.size())
        throw std::out_of_range("frame " + std::to_string(frame) + " of readback '" + name() +
                                "' is not in the ring (" + std::to_string(written_) +
                                " frames written, depth " + std::to_string(slots_.size()) + ")");
    Slot &slot = slots_[frame % slots_.size()];
    if (slot.fence) {
        const GLenum result =
            shared_->api.glClientWaitSync(slot.fence, gl::SYNC_FLUSH_COMMANDS_BIT, timeout_ns);
        if (result == gl::TIMEOUT_EXPIRED)
            throw std::runtime_error("readback frame not ready within the timeout");
        shared_->api.glDeleteSync(slot.fence);
        slot.fence = nullptr;
    }
    return slot.mapped;
}

void read_pixels(const GLApi &api, GLFramebuffer &framebuffer, uint32_t attachment,
                 int components, bool float_pixels, PixelRect rect, uint8_t *out, uint64_t size) {
    if (rect.x < 0 || rect.y < 0 || rect.width <= 0 || rect.height <= 0 ||
        rect.x + rect.width > framebuffer.width() || rect.y + rect.height > framebuffer.height())
        throw std::invalid_argument(
            "rectangle (" + std::to_string(rect.x) + ", " + std::to_string(rect.y) + ", " +
            std::to_string(rect.width) + ", " + std::to_string(rect.height) +
            ") is not inside framebuffer '" + framebuffer.name() + "' of " +
            std::to_string(framebuffer.width()) + "x" + std::to_string(framebuffer.height()));
    const uint64_t element = (attachment == 4 || float_pixels) ? 4 : 1;
    const uint64_t needed = uint64_t(rect.width) * uint64_t(rect.height) *
                            uint64_t(attachment == 4 ? 1 : components) * element;
    if (size < needed)
        throw std::invalid_argument("the output holds " + std::to_string(size) +
                                    " bytes, the read needs " + std::to_string(needed));
    auto [format, type] = prepare_read(api, framebuffer, attachment, components, float_pixels);
    api.glPixelStorei(gl::PACK_ALIGNMENT, 1);
    api.glReadPixels(rect.x, rect.y, rect.width, rect.height, format, type, out);
}

}  // namespace hypergl
