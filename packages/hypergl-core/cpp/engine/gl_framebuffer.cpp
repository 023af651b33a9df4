// GL framebuffers: colour and depth textures rendered into, the window's own
// framebuffer, and synchronous reads of their pixels.
#include <cstdio>
#include <stdexcept>

#include "hypergl/gl_resources.hpp"

namespace hypergl {
namespace {

GLenum color_format(int components) {
    switch (components) {
        case 1: return gl::RED;
        case 3: return gl::RGB;
        default: return gl::RGBA;
    }
}

void throw_incomplete(const std::string &name, GLenum status) {
    char hex[16];
    std::snprintf(hex, sizeof hex, "0x%04x", status);
    throw std::invalid_argument("framebuffer '" + name + "' is incomplete (status " + hex + ")");
}

}  // namespace

std::pair<GLenum, GLenum> prepare_read(const GLApi &api, GLFramebuffer &framebuffer,
                                       uint32_t attachment, int components, bool float_pixels) {
    const GLuint fbo = framebuffer.resolve(attachment);
    api.glBindFramebuffer(gl::READ_FRAMEBUFFER, fbo);
    if (attachment < 4) {
        if (fbo != 0) api.glNamedFramebufferReadBuffer(fbo, gl::COLOR_ATTACHMENT0 + attachment);
        return {color_format(components), float_pixels ? gl::FLOAT : gl::UNSIGNED_BYTE};
    }
    return {gl::DEPTH_COMPONENT, gl::FLOAT};
}

std::shared_ptr<GLFramebuffer> GLFramebuffer::create(const std::shared_ptr<GLShared> &shared,
                                                     const std::string &name, int width,
                                                     int height,
                                                     const std::vector<TextureFormat> &colors,
                                                     const std::optional<TextureFormat> &depth,
                                                     int samples) {
    if (samples > 0) return create_multisampled(shared, name, width, height, colors, depth, samples);
    const GLApi &api = shared->api;
    std::vector<std::shared_ptr<GLTexture>> color_textures;
    std::vector<GLenum> draw_buffers;
    GLuint fbo = 0;
    api.glCreateFramebuffers(1, &fbo);
    for (size_t i = 0; i < colors.size(); ++i) {
        color_textures.push_back(GLTexture::create(shared, name + "#color" + std::to_string(i), width, height,
                                                0, colors[i], nullptr, 0, false,
                                                gl::CLAMP_TO_EDGE));
        const GLenum attachment = gl::COLOR_ATTACHMENT0 + static_cast<GLenum>(i);
        api.glNamedFramebufferTexture(fbo, attachment, color_textures.back()->gl(), 0);
        draw_buffers.push_back(attachment);
    }
    std::shared_ptr<GLTexture> depth_texture;
    if (depth) {
        depth_texture = GLTexture::create(shared, name + "#depth", width, height, 0, *depth, nullptr, 0,
                                       false, gl::CLAMP_TO_EDGE);
        api.glNamedFramebufferTexture(fbo, gl::DEPTH_ATTACHMENT, depth_texture->gl(), 0);
    }
    if (draw_buffers.empty()) draw_buffers.push_back(gl::NONE);
    api.glNamedFramebufferDrawBuffers(fbo, static_cast<GLsizei>(draw_buffers.size()),
                                      draw_buffers.data());
    const GLenum status = api.glCheckNamedFramebufferStatus(fbo, gl::FRAMEBUFFER);
    auto framebuffer = std::make_shared<GLFramebuffer>(name, shared, fbo, width, height,
                                                       std::move(color_textures), depth_texture);
    if (status != gl::FRAMEBUFFER_COMPLETE) {
        framebuffer->release();
        throw_incomplete(name, status);
    }
    shared->check_errors("creating a framebuffer");
    return framebuffer;
}

std::shared_ptr<GLFramebuffer> GLFramebuffer::create_multisampled(
    const std::shared_ptr<GLShared> &shared, const std::string &name, int width, int height,
    const std::vector<TextureFormat> &colors, const std::optional<TextureFormat> &depth,
    int samples) {
    const GLApi &api = shared->api;
    auto resolved = create(shared, name + "#resolved", width, height, colors, depth, 0);
    GLuint fbo = 0;
    api.glCreateFramebuffers(1, &fbo);
    auto framebuffer = std::make_shared<GLFramebuffer>(name, shared, fbo, width, height,
                                                       resolved->colors(), resolved->depth());
    framebuffer->samples_ = samples;
    framebuffer->resolved_ = resolved;
    auto attach = [&](GLenum attachment, const TextureFormat &format) {
        GLuint renderbuffer = 0;
        api.glCreateRenderbuffers(1, &renderbuffer);
        framebuffer->renderbuffers_.push_back(renderbuffer);
        api.glNamedRenderbufferStorageMultisample(renderbuffer, samples, format.internal, width,
                                                  height);
        api.glNamedFramebufferRenderbuffer(fbo, attachment, gl::RENDERBUFFER, renderbuffer);
    };
    std::vector<GLenum> draw_buffers;
    for (size_t i = 0; i < colors.size(); ++i) {
        draw_buffers.push_back(gl::COLOR_ATTACHMENT0 + static_cast<GLenum>(i));
        // a texture, not a renderbuffer: a pass may read its samples (a resolve fused
        // with what is drawn under it)
        GLuint texture = 0;
        api.glCreateTextures(gl::TEXTURE_2D_MULTISAMPLE, 1, &texture);
        framebuffer->sample_colors_.push_back(std::make_shared<GLTexture>(
            name + "#samples" + std::to_string(i), shared, texture, gl::TEXTURE_2D_MULTISAMPLE,
            colors[i], width, height, 0));
        api.glTextureStorage2DMultisample(texture, samples, colors[i].internal, width, height,
                                          1);
        api.glNamedFramebufferTexture(fbo, draw_buffers.back(), texture, 0);
    }
    if (depth) attach(gl::DEPTH_ATTACHMENT, *depth);
    if (draw_buffers.empty()) draw_buffers.push_back(gl::NONE);
    api.glNamedFramebufferDrawBuffers(fbo, static_cast<GLsizei>(draw_buffers.size()),
                                      draw_buffers.data());
    const GLenum status = api.glCheckNamedFramebufferStatus(fbo, gl::FRAMEBUFFER);
    if (status != gl::FRAMEBUFFER_COMPLETE) {
        framebuffer->release();
        throw_incomplete(name, status);
    }
    shared->check_errors("creating a multisampled framebuffer");
    return framebuffer;
}

std::shared_ptr<GLFramebuffer> GLFramebuffer::create_default(
    const std::shared_ptr<GLShared> &shared, const std::string &name, int width, int height) {
    return std::make_shared<GLFramebuffer>(name, shared, 0, width, height,
                                           std::vector<std::shared_ptr<GLTexture>>{}, nullptr);
}

GLuint GLFramebuffer::resolve(uint32_t attachment) {
    if (!resolved_) return fbo_;
    const GLApi &api = shared_->api;
    const GLuint target = resolved_->fbo();
    GLbitfield mask = gl::DEPTH_BUFFER_BIT;
    if (attachment < 4) {
        mask = gl::COLOR_BUFFER_BIT;
        api.glNamedFramebufferReadBuffer(fbo_, gl::COLOR_ATTACHMENT0 + attachment);
        api.glNamedFramebufferDrawBuffer(target, gl::COLOR_ATTACHMENT0 + attachment);
    }
    // each pixel's samples averaged (one sample of an integer or depth format)
    api.glBlitNamedFramebuffer(fbo_, target, 0, 0, width_, height_, 0, 0, width_, height_, mask,
                               gl::NEAREST);
    return target;
}

void GLFramebuffer::copy_into(GLFramebuffer &destination) {
    const std::string names = "resolve_framebuffer '" + name() + "' -> '" + destination.name() + "'";
    auto size = [](const GLFramebuffer &f) {
        return std::to_string(f.width_) + "x" + std::to_string(f.height_);
    };
    if (&destination == this) throw std::invalid_argument(names + ": the same framebuffer");
    if (destination.samples_ > 0)
        throw std::invalid_argument(names + ": the destination is multisampled (" +
                                    std::to_string(destination.samples_) + " samples)");
    if (width_ != destination.width_ || height_ != destination.height_)
        throw std::invalid_argument(names + ": sizes differ (" + size(*this) + ", " +
                                    size(destination) + ")");
    if (colors_.empty() || colors_.size() != destination.colors_.size())
        throw std::invalid_argument(names + ": colour attachments differ (" +
                                    std::to_string(colors_.size()) + ", " +
                                    std::to_string(destination.colors_.size()) + ")");
    for (size_t i = 0; i < colors_.size(); ++i)
        if (colors_[i]->format().internal != destination.colors_[i]->format().internal)
            throw std::invalid_argument(names + ": colour attachment " + std::to_string(i) +
                                        " has another format");
    if (destination.depth_ && (!depth_ || depth_->format().internal !=
                                              destination.depth_->format().internal))
        throw std::invalid_argument(names + ": depths differ (the destination's needs one of "
                                            "its format in the source)");
    const GLApi &api = shared_->api;
    const GLuint target = destination.fbo_;
    std::vector<GLenum> draw_buffers;
    for (size_t i = 0; i < colors_.size(); ++i) {
        const GLenum attachment = gl::COLOR_ATTACHMENT0 + static_cast<GLenum>(i);
        api.glNamedFramebufferReadBuffer(fbo_, attachment);
        api.glNamedFramebufferDrawBuffer(target, attachment);
        // each pixel's samples averaged (one sample of an integer format)
        api.glBlitNamedFramebuffer(fbo_, target, 0, 0, width_, height_, 0, 0, width_, height_,
                                   gl::COLOR_BUFFER_BIT, gl::NEAREST);
        draw_buffers.push_back(attachment);
    }
    // the destination draws into all of them again
    api.glNamedFramebufferDrawBuffers(target, static_cast<GLsizei>(draw_buffers.size()),
                                      draw_buffers.data());
    if (destination.depth_)  // one sample's depth
        api.glBlitNamedFramebuffer(fbo_, target, 0, 0, width_, height_, 0, 0, width_, height_,
                                   gl::DEPTH_BUFFER_BIT, gl::NEAREST);
}

void GLFramebuffer::release() {
    if (released()) return;
    Resource::release();
    if (fbo_) shared_->api.glDeleteFramebuffers(1, &fbo_);
    if (!renderbuffers_.empty())
        shared_->api.glDeleteRenderbuffers(static_cast<GLsizei>(renderbuffers_.size()),
                                           renderbuffers_.data());
    if (resolved_) resolved_->release();
    for (auto &color : sample_colors_) color->release();
    for (auto &color : colors_) color->release();
    if (depth_) depth_->release();
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
