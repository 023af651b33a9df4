#include "hypergl/gl_device.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>

namespace hypergl {
namespace {

uint64_t to_nanoseconds(uint32_t microseconds) { return uint64_t(microseconds) * 1000ull; }

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

const void *byte_offset(uint64_t offset) { return reinterpret_cast<const void *>(offset); }

GLenum index_type(uint32_t operand) { return operand == 0 ? gl::UNSIGNED_SHORT : gl::UNSIGNED_INT; }

}  // namespace

std::optional<TextureFormat> texture_format(const std::string &name) {
    static const std::map<std::string, TextureFormat> formats = {
        {"rgba8", {gl::RGBA8, gl::RGBA, gl::UNSIGNED_BYTE, 4, false}},
        {"r32f", {gl::R32F, gl::RED, gl::FLOAT, 4, false}},
        {"rgba32f", {gl::RGBA32F, gl::RGBA, gl::FLOAT, 16, false}},
        {"rgba16f", {gl::RGBA16F, gl::RGBA, gl::HALF_FLOAT, 8, false}},
        {"r32ui", {gl::R32UI, gl::RED_INTEGER, gl::UNSIGNED_INT, 4, false}},
        {"depth24", {gl::DEPTH_COMPONENT24, gl::DEPTH_COMPONENT, gl::UNSIGNED_INT, 4, true}},
        {"depth32f", {gl::DEPTH_COMPONENT32F, gl::DEPTH_COMPONENT, gl::FLOAT, 4, true}},
    };
    auto found = formats.find(name);
    if (found == formats.end()) return std::nullopt;
    return found->second;
}

GLDevice::GLDevice(const GLLoader &loader, GLFeatures features)
    : shared_(std::make_shared<GLShared>()), features_(features) {
    load_gl_api(shared_->api, loader);
    GLApi &api = shared_->api;
    if (features_.indirect_count) {
        const char *arrays = features_.indirect_count_arb ? "glMultiDrawArraysIndirectCountARB"
                                                          : "glMultiDrawArraysIndirectCount";
        const char *elements = features_.indirect_count_arb
                                   ? "glMultiDrawElementsIndirectCountARB"
                                   : "glMultiDrawElementsIndirectCount";
        api.glMultiDrawArraysIndirectCount =
            reinterpret_cast<decltype(api.glMultiDrawArraysIndirectCount)>(
                load_optional(loader, arrays));
        api.glMultiDrawElementsIndirectCount =
            reinterpret_cast<decltype(api.glMultiDrawElementsIndirectCount)>(
                load_optional(loader, elements));
        if (!api.glMultiDrawArraysIndirectCount || !api.glMultiDrawElementsIndirectCount)
            features_.indirect_count = false;
    }
    if (features_.bindless_textures) {
#define HYPERGL_LOAD_OPTIONAL(name) \
    api.name = reinterpret_cast<decltype(api.name)>(load_optional(loader, #name));
        HYPERGL_LOAD_OPTIONAL(glGetTextureHandleARB)
        HYPERGL_LOAD_OPTIONAL(glMakeTextureHandleResidentARB)
        HYPERGL_LOAD_OPTIONAL(glMakeTextureHandleNonResidentARB)
#undef HYPERGL_LOAD_OPTIONAL
        if (!api.glGetTextureHandleARB || !api.glMakeTextureHandleResidentARB ||
            !api.glMakeTextureHandleNonResidentARB)
            features_.bindless_textures = false;
    }
    api.glCreateVertexArrays(1, &vao_);
    api.glBindVertexArray(vao_);
    check_errors("creating the device");
}

GLDevice::~GLDevice() {
    std::lock_guard<std::mutex> lock(shared_->mutex);
    // The GL context goes away with its objects; late memory releases must not queue.
    shared_->alive = false;
    shared_->doomed_buffers.clear();
}

void GLDevice::check_errors(const char *where) {
    std::string errors;
    for (int guard = 0; guard < 16; ++guard) {
        const GLenum error = shared_->api.glGetError();
        if (error == 0) break;
        errors += (errors.empty() ? "" : ", ") + gl_error_name(error);
    }
    if (!errors.empty()) throw std::runtime_error(std::string("OpenGL error ") + errors + " " + where);
}

void GLDevice::finish() {
    shared_->api.glMemoryBarrier(gl::CLIENT_MAPPED_BUFFER_BARRIER_BIT);
    shared_->api.glFinish();
    gpu_wrote_ = false;
}

// --- factories -------------------------------------------------------------------------

std::shared_ptr<Buffer> GLDevice::create_buffer(const std::string &name, uint64_t size,
                                                const uint8_t *data, uint64_t data_size) {
    const GLApi &api = shared_->api;
    collect();
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
        check_errors("");
        throw std::runtime_error("could not map a buffer of " + std::to_string(size) + " bytes");
    }
    if (data && data_size) std::memcpy(mapped, data, data_size);
    return std::make_shared<Buffer>(name, std::make_shared<GLMemory>(shared_, gl_name, mapped, size));
}

std::shared_ptr<GLTexture> GLDevice::create_texture(const std::string &name, int width, int height,
                                                    int layers, const TextureFormat &format,
                                                    const uint8_t *pixels, uint64_t pixels_size,
                                                    bool linear, GLenum wrap) {
    const GLApi &api = shared_->api;
    const GLenum target = layers > 0 ? gl::TEXTURE_2D_ARRAY : gl::TEXTURE_2D;
    GLuint texture = 0;
    api.glCreateTextures(target, 1, &texture);
    if (layers > 0)
        api.glTextureStorage3D(texture, 1, format.internal, width, height, layers);
    else
        api.glTextureStorage2D(texture, 1, format.internal, width, height);
    const GLint filter = static_cast<GLint>(linear && !format.depth ? gl::LINEAR : gl::NEAREST);
    api.glTextureParameteri(texture, gl::TEXTURE_MIN_FILTER, filter);
    api.glTextureParameteri(texture, gl::TEXTURE_MAG_FILTER, filter);
    api.glTextureParameteri(texture, gl::TEXTURE_WRAP_S, static_cast<GLint>(wrap));
    api.glTextureParameteri(texture, gl::TEXTURE_WRAP_T, static_cast<GLint>(wrap));
    if (pixels) {
        const uint64_t needed = uint64_t(width) * uint64_t(height) *
                                uint64_t(layers > 0 ? layers : 1) * format.bytes_per_pixel;
        if (pixels_size < needed) {
            api.glDeleteTextures(1, &texture);
            throw std::invalid_argument("texture '" + name + "' needs " + std::to_string(needed) +
                                        " bytes of pixels, got " + std::to_string(pixels_size));
        }
        api.glPixelStorei(gl::UNPACK_ALIGNMENT, 1);
        if (layers > 0)
            api.glTextureSubImage3D(texture, 0, 0, 0, 0, width, height, layers, format.format,
                                    format.type, pixels);
        else
            api.glTextureSubImage2D(texture, 0, 0, 0, width, height, format.format, format.type,
                                    pixels);
    }
    check_errors("creating a texture");
    return std::make_shared<GLTexture>(name, shared_, texture, target, format, width, height,
                                       layers);
}

void GLDevice::write_texture(GLTexture &texture, const uint8_t *pixels, uint64_t size) {
    if (texture.released())
        throw std::invalid_argument("texture '" + texture.name() + "' has been released");
    if (texture.handle_buffer)
        throw std::invalid_argument("texture set '" + texture.name() + "' cannot be rewritten");
    const TextureFormat &format = texture.format();
    const int layers = texture.layers();
    const uint64_t needed = uint64_t(texture.width()) * uint64_t(texture.height()) *
                            uint64_t(layers > 0 ? layers : 1) * format.bytes_per_pixel;
    if (size != needed)
        throw std::invalid_argument("texture '" + texture.name() + "' needs " +
                                    std::to_string(needed) + " bytes of pixels, got " +
                                    std::to_string(size));
    const GLApi &api = shared_->api;
    api.glPixelStorei(gl::UNPACK_ALIGNMENT, 1);
    if (layers > 0)
        api.glTextureSubImage3D(texture.gl(), 0, 0, 0, 0, texture.width(), texture.height(),
                                layers, format.format, format.type, pixels);
    else
        api.glTextureSubImage2D(texture.gl(), 0, 0, 0, texture.width(), texture.height(),
                                format.format, format.type, pixels);
    check_errors("writing a texture");
}

std::shared_ptr<GLTexture> GLDevice::create_texture_set(const std::string &name, int width,
                                                        int height, int count,
                                                        const TextureFormat &format,
                                                        const uint8_t *pixels, bool linear,
                                                        GLenum wrap) {
    const uint64_t image_bytes = uint64_t(width) * uint64_t(height) * format.bytes_per_pixel;
    if (!features_.bindless_textures)
        return create_texture(name, width, height, count, format, pixels, image_bytes * count,
                              linear, wrap);
    // Bindless: one texture per image, their resident handles in a storage buffer.
    const GLApi &api = shared_->api;
    auto set = std::make_shared<GLTexture>(name, shared_, 0, 0, format, width, height, count);
    std::vector<std::shared_ptr<GLTexture>> members;
    for (int i = 0; i < count; ++i) {
        members.push_back(create_texture(name + "#" + std::to_string(i), width, height, 0, format,
                                         pixels + image_bytes * uint64_t(i), image_bytes, linear,
                                         wrap));
        const GLuint64 handle = api.glGetTextureHandleARB(members.back()->gl());
        api.glMakeTextureHandleResidentARB(handle);
        set->resident_handles.push_back(handle);
        set->member_textures.push_back(members.back()->gl());
    }
    set->handle_buffer = create_buffer(
        name + "#handles", sizeof(GLuint64) * set->resident_handles.size(),
        reinterpret_cast<const uint8_t *>(set->resident_handles.data()),
        sizeof(GLuint64) * set->resident_handles.size());
    check_errors("creating a bindless texture set");
    return set;
}

GLuint GLDevice::compile(GLenum stage, const std::string &source, const char *stage_name) {
    const GLApi &api = shared_->api;
    GLuint shader = api.glCreateShader(stage);
    if (shader == 0)
        throw ShaderError(std::string("glCreateShader failed for the ") + stage_name +
                          " shader (GL error " + gl_error_name(api.glGetError()) + ")");
    const GLchar *text = source.c_str();
    api.glShaderSource(shader, 1, &text, nullptr);
    api.glCompileShader(shader);
    GLint ok = 0;
    api.glGetShaderiv(shader, gl::COMPILE_STATUS, &ok);
    if (!ok) {
        GLint length = 0;
        api.glGetShaderiv(shader, gl::INFO_LOG_LENGTH, &length);
        std::string log(static_cast<size_t>(length > 0 ? length : 1), '\0');
        api.glGetShaderInfoLog(shader, static_cast<GLsizei>(log.size()), nullptr, log.data());
        api.glDeleteShader(shader);
        log.resize(std::strlen(log.c_str()));
        if (log.empty())
            log = "(the driver gave no log; GL error " + gl_error_name(api.glGetError()) + ")";
        throw ShaderError(std::string(stage_name) + " shader did not compile:\n" + log);
    }
    return shader;
}

std::shared_ptr<GLPipeline> GLDevice::create_pipeline(const std::string &name,
                                                      const std::string &vertex_shader,
                                                      const std::string &fragment_shader,
                                                      const std::string &compute_shader,
                                                      PipelineState state) {
    const GLApi &api = shared_->api;
    std::vector<GLuint> shaders;
    try {
        if (!compute_shader.empty()) {
            shaders.push_back(compile(gl::COMPUTE_SHADER, compute_shader, "compute"));
        } else {
            shaders.push_back(compile(gl::VERTEX_SHADER, vertex_shader, "vertex"));
            if (!fragment_shader.empty())
                shaders.push_back(compile(gl::FRAGMENT_SHADER, fragment_shader, "fragment"));
        }
    } catch (...) {
        for (GLuint shader : shaders) api.glDeleteShader(shader);
        throw;
    }
    GLuint program = api.glCreateProgram();
    for (GLuint shader : shaders) api.glAttachShader(program, shader);
    api.glLinkProgram(program);
    for (GLuint shader : shaders) {
        api.glDetachShader(program, shader);
        api.glDeleteShader(shader);
    }
    GLint ok = 0;
    api.glGetProgramiv(program, gl::LINK_STATUS, &ok);
    if (!ok) {
        GLint length = 0;
        api.glGetProgramiv(program, gl::INFO_LOG_LENGTH, &length);
        std::string log(static_cast<size_t>(length > 0 ? length : 1), '\0');
        api.glGetProgramInfoLog(program, static_cast<GLsizei>(log.size()), nullptr, log.data());
        api.glDeleteProgram(program);
        log.resize(std::strlen(log.c_str()));
        throw ShaderError("pipeline '" + name + "' did not link:\n" + log);
    }
    check_errors("creating a pipeline");
    return std::make_shared<GLPipeline>(name, shared_, program, !compute_shader.empty(),
                                        std::move(state));
}

std::shared_ptr<GLFramebuffer> GLDevice::create_framebuffer(
    const std::string &name, int width, int height, const std::vector<TextureFormat> &colors,
    const std::optional<TextureFormat> &depth) {
    const GLApi &api = shared_->api;
    std::vector<std::shared_ptr<GLTexture>> color_textures;
    std::vector<GLenum> draw_buffers;
    GLuint fbo = 0;
    api.glCreateFramebuffers(1, &fbo);
    for (size_t i = 0; i < colors.size(); ++i) {
        color_textures.push_back(create_texture(name + "#color" + std::to_string(i), width, height,
                                                0, colors[i], nullptr, 0, false,
                                                gl::CLAMP_TO_EDGE));
        const GLenum attachment = gl::COLOR_ATTACHMENT0 + static_cast<GLenum>(i);
        api.glNamedFramebufferTexture(fbo, attachment, color_textures.back()->gl(), 0);
        draw_buffers.push_back(attachment);
    }
    std::shared_ptr<GLTexture> depth_texture;
    if (depth) {
        depth_texture = create_texture(name + "#depth", width, height, 0, *depth, nullptr, 0,
                                       false, gl::CLAMP_TO_EDGE);
        api.glNamedFramebufferTexture(fbo, gl::DEPTH_ATTACHMENT, depth_texture->gl(), 0);
    }
    if (draw_buffers.empty()) draw_buffers.push_back(gl::NONE);
    api.glNamedFramebufferDrawBuffers(fbo, static_cast<GLsizei>(draw_buffers.size()),
                                      draw_buffers.data());
    const GLenum status = api.glCheckNamedFramebufferStatus(fbo, gl::FRAMEBUFFER);
    auto framebuffer = std::make_shared<GLFramebuffer>(name, shared_, fbo, width, height,
                                                       std::move(color_textures), depth_texture);
    if (status != gl::FRAMEBUFFER_COMPLETE) {
        framebuffer->release();
        char hex[16];
        std::snprintf(hex, sizeof hex, "0x%04x", status);
        throw std::invalid_argument("framebuffer '" + name + "' is incomplete (status " + hex +
                                    ")");
    }
    check_errors("creating a framebuffer");
    return framebuffer;
}

std::shared_ptr<GLFramebuffer> GLDevice::create_default_framebuffer(const std::string &name,
                                                                    int width, int height) {
    return std::make_shared<GLFramebuffer>(name, shared_, 0, width, height,
                                           std::vector<std::shared_ptr<GLTexture>>{}, nullptr);
}

std::shared_ptr<GLFence> GLDevice::create_fence(const std::string &name) {
    return std::make_shared<GLFence>(name, shared_);
}

std::shared_ptr<GLReadback> GLDevice::create_readback(const std::string &name, int width,
                                                      int height, int components,
                                                      uint32_t attachment, int depth) {
    auto readback = std::make_shared<GLReadback>(name, shared_, width, height, components,
                                                 attachment, depth);
    check_errors("creating a readback ring");
    return readback;
}

// --- the device calls ---------------------------------------------------------------------

void GLDevice::begin_run() {
    collect();
    pipeline_ = nullptr;
    parameter_ = nullptr;
    framebuffer_ = nullptr;
    std::fill(std::begin(vertex_buffers_), std::end(vertex_buffers_), nullptr);
    shared_->api.glBindVertexArray(vao_);
}

void GLDevice::end_run() {
    // Resources may be released before the next run: forget raw pointers now.
    pipeline_ = nullptr;
    parameter_ = nullptr;
    framebuffer_ = nullptr;
    std::fill(std::begin(vertex_buffers_), std::end(vertex_buffers_), nullptr);
}

GLenum GLDevice::topology() const { return pipeline_ ? pipeline_->state().topology : gl::TRIANGLES; }

void GLDevice::clear(const float v[5], uint32_t mask, uint32_t stencil) {
    const GLApi &api = shared_->api;
    const GLuint fbo = framebuffer_ ? framebuffer_->fbo() : 0;
    if (mask & isa::kClearColor) {
        const size_t attachments =
            framebuffer_ && fbo != 0 ? framebuffer_->colors().size() : size_t(1);
        for (size_t i = 0; i < attachments; ++i)
            api.glClearNamedFramebufferfv(fbo, gl::COLOR, static_cast<GLint>(i), v);
    }
    if (mask & isa::kClearDepth) {
        api.glDepthMask(gl::TRUE_);
        api.glClearNamedFramebufferfv(fbo, gl::DEPTH, 0, &v[4]);
        api.glDepthMask(pipeline_ && !pipeline_->state().depth_write ? gl::FALSE_ : gl::TRUE_);
    }
    if (mask & isa::kClearStencil) {
        const GLint value = static_cast<GLint>(stencil);
        api.glClearNamedFramebufferiv(fbo, gl::STENCIL, 0, &value);
    }
}

void GLDevice::apply_vertex_layout(const GLPipeline &pipeline) {
    const GLApi &api = shared_->api;
    uint64_t wanted = 0;
    for (const VertexAttribute &a : pipeline.state().attributes) {
        wanted |= 1ull << a.location;
        if (a.integer)
            api.glVertexArrayAttribIFormat(vao_, a.location, a.components, a.type, a.offset);
        else
            api.glVertexArrayAttribFormat(vao_, a.location, a.components, a.type,
                                          a.normalized ? gl::TRUE_ : gl::FALSE_, a.offset);
        api.glVertexArrayAttribBinding(vao_, a.location, a.binding);
    }
    for (GLuint location = 0; location < 64; ++location) {
        const uint64_t bit = 1ull << location;
        if ((wanted & bit) && !(enabled_attributes_ & bit))
            api.glEnableVertexArrayAttrib(vao_, location);
        else if (!(wanted & bit) && (enabled_attributes_ & bit))
            api.glDisableVertexArrayAttrib(vao_, location);
    }
    enabled_attributes_ = wanted;
    for (const VertexBinding &b : pipeline.state().bindings) {
        api.glVertexArrayBindingDivisor(vao_, b.binding, b.divisor);
        rebind_vertex_buffer(b.binding);
    }
}

void GLDevice::rebind_vertex_buffer(GLuint binding) {
    Buffer *buffer = vertex_buffers_[binding];
    const GLsizei stride = pipeline_ ? pipeline_->stride_of(binding) : 0;
    shared_->api.glVertexArrayVertexBuffer(vao_, binding, buffer ? gl_buffer_name(*buffer) : 0, 0,
                                           stride);
}

void GLDevice::bind_pipeline(Resource &resource) {
    const GLApi &api = shared_->api;
    auto &pipeline = static_cast<GLPipeline &>(resource);
    pipeline_ = &pipeline;
    api.glUseProgram(pipeline.program());
    if (pipeline.compute()) return;
    const PipelineState &s = pipeline.state();
    if (s.depth_test) {
        api.glEnable(gl::DEPTH_TEST);
        api.glDepthFunc(s.depth_func);
    } else {
        api.glDisable(gl::DEPTH_TEST);
    }
    api.glDepthMask(s.depth_write ? gl::TRUE_ : gl::FALSE_);
    if (s.blend) {
        api.glEnable(gl::BLEND);
        api.glBlendEquation(gl::FUNC_ADD);
        api.glBlendFuncSeparate(gl::SRC_ALPHA, gl::ONE_MINUS_SRC_ALPHA, gl::ONE,
                                gl::ONE_MINUS_SRC_ALPHA);
    } else {
        api.glDisable(gl::BLEND);
    }
    if (s.cull) {
        api.glEnable(gl::CULL_FACE);
        api.glCullFace(s.cull);
        api.glFrontFace(s.front_face);
    } else {
        api.glDisable(gl::CULL_FACE);
    }
    if (s.topology == gl::POINTS) api.glEnable(gl::PROGRAM_POINT_SIZE);
    apply_vertex_layout(pipeline);
}

void GLDevice::bind_framebuffer(Resource &resource) {
    auto &framebuffer = static_cast<GLFramebuffer &>(resource);
    framebuffer_ = &framebuffer;
    shared_->api.glBindFramebuffer(gl::FRAMEBUFFER, framebuffer.fbo());
    shared_->api.glViewport(0, 0, framebuffer.width(), framebuffer.height());
}

void GLDevice::bind_vertex_buffer(uint32_t binding, Buffer &buffer) {
    vertex_buffers_[binding] = &buffer;
    rebind_vertex_buffer(binding);
}

void GLDevice::bind_index_buffer(Buffer &buffer) {
    shared_->api.glVertexArrayElementBuffer(vao_, gl_buffer_name(buffer));
}

void GLDevice::bind_uniform_buffer(uint32_t binding, Buffer &buffer) {
    shared_->api.glBindBufferBase(gl::UNIFORM_BUFFER, binding, gl_buffer_name(buffer));
}

void GLDevice::bind_storage_buffer(uint32_t binding, Buffer &buffer) {
    shared_->api.glBindBufferBase(gl::SHADER_STORAGE_BUFFER, binding, gl_buffer_name(buffer));
}

void GLDevice::bind_indirect_buffer(Buffer &buffer) {
    shared_->api.glBindBuffer(gl::DRAW_INDIRECT_BUFFER, gl_buffer_name(buffer));
    shared_->api.glBindBuffer(gl::DISPATCH_INDIRECT_BUFFER, gl_buffer_name(buffer));
}

void GLDevice::bind_parameter_buffer(Buffer &buffer) {
    // Bound to GL only around indirect-count draws: Mesa (22.3, llvmpipe) reads
    // the draw count of plain multi-draw-indirect calls from a bound parameter
    // buffer too (seen here: two commands, one drawn).
    parameter_ = &buffer;
}

void GLDevice::bind_texture(uint32_t unit, Resource &resource) {
    auto &texture = static_cast<GLTexture &>(resource);
    if (texture.handle_buffer)  // a bindless texture set: its handles at storage binding `unit`
        shared_->api.glBindBufferBase(gl::SHADER_STORAGE_BUFFER, unit,
                                      gl_buffer_name(*texture.handle_buffer));
    else
        shared_->api.glBindTextureUnit(unit, texture.gl());
}

void GLDevice::viewport(int32_t x, int32_t y, int32_t width, int32_t height) {
    shared_->api.glViewport(x, y, width, height);
}

void GLDevice::uniform(uint32_t location, uint32_t type, const void *data) {
    const GLApi &api = shared_->api;
    const auto loc = static_cast<GLint>(location);
    const auto *f = static_cast<const GLfloat *>(data);
    const auto *i = static_cast<const GLint *>(data);
    switch (type) {
        case 0: api.glUniform1fv(loc, 1, f); break;
        case 1: api.glUniform2fv(loc, 1, f); break;
        case 2: api.glUniform3fv(loc, 1, f); break;
        case 3: api.glUniform4fv(loc, 1, f); break;
        case 4: api.glUniformMatrix4fv(loc, 1, gl::FALSE_, f); break;
        case 5: api.glUniform1iv(loc, 1, i); break;
        case 6: api.glUniform4iv(loc, 1, i); break;
        default: api.glUniform1uiv(loc, 1, static_cast<const GLuint *>(data)); break;
    }
}

void GLDevice::draw(uint32_t count, uint32_t first, uint32_t instances) {
    gpu_wrote_ = true;
    if (instances == 1) {  // the plain entry point: less validation in the driver
        shared_->api.glDrawArrays(topology(), static_cast<GLint>(first),
                                  static_cast<GLsizei>(count));
        return;
    }
    shared_->api.glDrawArraysInstancedBaseInstance(topology(), static_cast<GLint>(first),
                                                   static_cast<GLsizei>(count),
                                                   static_cast<GLsizei>(instances), 0);
}

void GLDevice::draw_indexed(uint32_t type, uint32_t count, uint32_t first, uint32_t instances) {
    gpu_wrote_ = true;
    if (instances == 1) {
        shared_->api.glDrawElements(topology(), static_cast<GLsizei>(count), index_type(type),
                                    byte_offset(uint64_t(first) * isa::kIndexTypeSize[type]));
        return;
    }
    shared_->api.glDrawElementsInstancedBaseVertexBaseInstance(
        topology(), static_cast<GLsizei>(count), index_type(type),
        byte_offset(uint64_t(first) * isa::kIndexTypeSize[type]),
        static_cast<GLsizei>(instances), 0, 0);
}

void GLDevice::draw_indirect(uint32_t offset) {
    gpu_wrote_ = true;
    shared_->api.glDrawArraysIndirect(topology(), byte_offset(offset));
}

void GLDevice::draw_indexed_indirect(uint32_t type, uint32_t offset) {
    gpu_wrote_ = true;
    shared_->api.glDrawElementsIndirect(topology(), index_type(type), byte_offset(offset));
}

void GLDevice::multi_draw_indirect(uint32_t offset, uint32_t count, uint32_t stride) {
    gpu_wrote_ = true;
    shared_->api.glMultiDrawArraysIndirect(topology(), byte_offset(offset),
                                           static_cast<GLsizei>(count),
                                           static_cast<GLsizei>(stride));
}

void GLDevice::multi_draw_indexed_indirect(uint32_t type, uint32_t offset, uint32_t count,
                                           uint32_t stride) {
    gpu_wrote_ = true;
    shared_->api.glMultiDrawElementsIndirect(topology(), index_type(type), byte_offset(offset),
                                             static_cast<GLsizei>(count),
                                             static_cast<GLsizei>(stride));
}

void GLDevice::multi_draw_indirect_count(uint32_t offset, uint32_t count_offset,
                                         uint32_t max_count) {
    if (!features_.indirect_count)
        throw std::runtime_error("indirect-count draws need GL 4.6 or ARB_indirect_parameters");
    gpu_wrote_ = true;
    const GLApi &api = shared_->api;
    api.glBindBuffer(gl::PARAMETER_BUFFER, gl_buffer_name(*parameter_));
    api.glMultiDrawArraysIndirectCount(topology(), byte_offset(offset), count_offset,
                                       static_cast<GLsizei>(max_count), 0);
    api.glBindBuffer(gl::PARAMETER_BUFFER, 0);
}

void GLDevice::multi_draw_indexed_indirect_count(uint32_t type, uint32_t offset,
                                                 uint32_t count_offset, uint32_t max_count) {
    if (!features_.indirect_count)
        throw std::runtime_error("indirect-count draws need GL 4.6 or ARB_indirect_parameters");
    gpu_wrote_ = true;
    const GLApi &api = shared_->api;
    api.glBindBuffer(gl::PARAMETER_BUFFER, gl_buffer_name(*parameter_));
    api.glMultiDrawElementsIndirectCount(topology(), index_type(type), byte_offset(offset),
                                         count_offset, static_cast<GLsizei>(max_count), 0);
    api.glBindBuffer(gl::PARAMETER_BUFFER, 0);
}

void GLDevice::dispatch(uint32_t x, uint32_t y, uint32_t z) {
    if (!pipeline_ || !pipeline_->compute())
        throw std::runtime_error("dispatch needs a compute pipeline bound");
    gpu_wrote_ = true;
    shared_->api.glDispatchCompute(x, y, z);
}

void GLDevice::dispatch_indirect(uint32_t offset) {
    if (!pipeline_ || !pipeline_->compute())
        throw std::runtime_error("dispatch needs a compute pipeline bound");
    gpu_wrote_ = true;
    shared_->api.glDispatchComputeIndirect(static_cast<GLintptr>(offset));
}

void GLDevice::barrier(uint32_t bits) { shared_->api.glMemoryBarrier(bits); }

void GLDevice::copy_buffer(Buffer &source, Buffer &destination, uint32_t source_offset,
                           uint32_t destination_offset, uint32_t size) {
    gpu_wrote_ = true;
    shared_->api.glCopyNamedBufferSubData(gl_buffer_name(source), gl_buffer_name(destination),
                                          source_offset, destination_offset, size);
}

void GLDevice::fence_signal(Resource &fence) { static_cast<GLFence &>(fence).signal(); }

bool GLDevice::fence_wait(Resource &fence, uint32_t timeout_us) {
    return static_cast<GLFence &>(fence).wait(to_nanoseconds(timeout_us));
}

void GLDevice::read_framebuffer(uint32_t attachment, Resource &readback, Resource &framebuffer) {
    auto &ring = static_cast<GLReadback &>(readback);
    if (ring.attachment() != attachment)
        throw std::runtime_error("readback '" + ring.name() + "' was made for attachment " +
                                 std::to_string(ring.attachment()) + ", not " +
                                 std::to_string(attachment));
    ring.capture(static_cast<GLFramebuffer &>(framebuffer));
    if (framebuffer_) shared_->api.glBindFramebuffer(gl::FRAMEBUFFER, framebuffer_->fbo());
}

void GLDevice::upload(ExternalSource &source, Buffer &destination) {
    // The mapping is coherent: CPU writes are visible to later GPU commands.
    source.upload(destination);
}

void GLDevice::prepare_cpu_read(Buffer &) {
    if (!gpu_wrote_) return;
    // GL 4.4 spec 7.12/6.2: shader writes to a persistently mapped buffer become
    // visible to the CPU after CLIENT_MAPPED_BUFFER_BARRIER_BIT and a completed fence.
    const GLApi &api = shared_->api;
    api.glMemoryBarrier(gl::CLIENT_MAPPED_BUFFER_BARRIER_BIT);
    GLsync sync = api.glFenceSync(gl::SYNC_GPU_COMMANDS_COMPLETE, 0);
    const GLenum result = api.glClientWaitSync(sync, gl::SYNC_FLUSH_COMMANDS_BIT, UINT64_MAX);
    api.glDeleteSync(sync);
    if (result == gl::WAIT_FAILED) throw std::runtime_error("glClientWaitSync failed");
    gpu_wrote_ = false;
}

}  // namespace hypergl
