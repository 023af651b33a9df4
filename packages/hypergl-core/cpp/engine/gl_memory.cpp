// The memory behind GL buffers: the state shared by a GL device and the
// blocks that may outlive a release, and the creation of mapped buffers.
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "hypergl/gl_resources.hpp"

namespace hypergl {

std::string gl_error_name(GLenum error) {
    switch (error) {
        case 0x0500: return "GL_INVALID_ENUM";
        case 0x0501: return "GL_INVALID_VALUE";
        case 0x0502: return "GL_INVALID_OPERATION";
        case 0x0505: return "GL_OUT_OF_MEMORY";
        case 0x0506: return "GL_INVALID_FRAMEBUFFER_OPERATION";
        default: {
            char hex[16];
            std::snprintf(hex, sizeof hex, "0x%04x", error);
            return hex;
        }
    }
}

void GLShared::check_errors(const char *where) const {
    std::string errors;
    for (int guard = 0; guard < 16; ++guard) {
        const GLenum error = api.glGetError();
        if (error == 0) break;
        errors += (errors.empty() ? "" : ", ") + gl_error_name(error);
    }
    if (!errors.empty()) throw std::runtime_error(std::string("OpenGL error ") + errors + " " + where);
}

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

std::shared_ptr<Buffer> create_gl_buffer(const std::shared_ptr<GLShared> &shared,
                                         const std::string &name, uint64_t size,
                                         const uint8_t *data, uint64_t data_size) {
    const GLApi &api = shared->api;
    shared->collect();
    GLuint gl_name = 0;
    api.glCreateBuffers(1, &gl_name);
    const GLbitfield flags = gl::MAP_READ_BIT | gl::MAP_WRITE_BIT | gl::MAP_PERSISTENT_BIT |
                             gl::MAP_COHERENT_BIT;
    api.glNamedBufferStorage(gl_name, static_cast<GLsizeiptr>(size), nullptr,
                             flags | gl::DYNAMIC_STORAGE_BIT);
    auto *mapped = static_cast<uint8_t *>(
        api.glMapNamedBufferRange(gl_name, 0, static_cast<GLsizeiptr>(size), flags));
    if (!mapped) {
        api.glDeleteBuffers(1, &gl_name);
        shared->check_errors("");
        throw std::runtime_error("could not map a buffer of " + std::to_string(size) + " bytes");
    }
    if (data && data_size) std::memcpy(mapped, data, data_size);
    return std::make_shared<Buffer>(name, std::make_shared<GLMemory>(shared, gl_name, mapped, size));
}

}  // namespace hypergl
