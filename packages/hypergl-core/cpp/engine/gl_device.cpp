#include "hypergl/gl_device.hpp"

#include <algorithm>
#include <stdexcept>

namespace hypergl {
namespace {

uint64_t to_nanoseconds(uint32_t microseconds) { return uint64_t(microseconds) * 1000ull; }

const void *byte_offset(uint64_t offset) { return reinterpret_cast<const void *>(offset); }

GLenum index_type(uint32_t operand) { return operand == 0 ? gl::UNSIGNED_SHORT : gl::UNSIGNED_INT; }

}  // namespace

GLDevice::GLDevice(const GLLoader &loader, GLFeatures features)
    : shared_(std::make_shared<GLShared>()), features_(features), indirect_check_(shared_) {
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
    // Cube maps filter across face edges (as MuJoCo enables where the driver has it;
    // core since GL 3.2).
    api.glEnable(gl::TEXTURE_CUBE_MAP_SEAMLESS);
    check_errors("creating the device");
}

GLDevice::~GLDevice() {
    std::lock_guard<std::mutex> lock(shared_->mutex);
    // The GL context goes away with its objects; late memory releases must not queue.
    shared_->alive = false;
    shared_->doomed_buffers.clear();
}

void GLDevice::finish(const std::function<bool()> *stop) {
    sync_cpu(stop);
}

void GLDevice::flush() { shared_->api.glFlush(); }

void GLDevice::before_driver_wait(const std::function<bool()> *stop) {
    if (features_.waits_in_driver) wait_idle(shared_->api, stop);
}

// --- the device calls ---------------------------------------------------------------------

void GLDevice::begin_run() {
    collect();
    if (indirect_check_.pending()) {  // a failed run left checks unread: let them finish
        sync_cpu();
        indirect_check_.take_overrun();
    }
    pipeline_ = nullptr;
    parameter_ = nullptr;
    indirect_ = nullptr;
    framebuffer_ = nullptr;
    std::fill(std::begin(vertex_buffers_), std::end(vertex_buffers_), nullptr);
    shared_->api.glBindVertexArray(vao_);
}

void GLDevice::end_run() {
    reset_state();
    // Resources may be released before the next run: forget raw pointers now.
    pipeline_ = nullptr;
    parameter_ = nullptr;
    indirect_ = nullptr;
    framebuffer_ = nullptr;
    std::fill(std::begin(vertex_buffers_), std::end(vertex_buffers_), nullptr);
}

void GLDevice::discard_errors() {
    // GL keeps an error flag per kind until read: a run stopped at a failing draw
    // would otherwise fail the next texture or buffer made ("creating a texture").
    for (int guard = 0; guard < 16 && shared_->api.glGetError() != 0; ++guard) {
    }
}

void GLDevice::reset_state() {
    // Every submit starts from GL's defaults: nothing one program bound is
    // visible to the next. Only what this run touched is undone (a few calls).
    const GLApi &api = shared_->api;
    const auto each = [](uint64_t bits, auto undo) {
        for (GLuint i = 0; bits; ++i, bits >>= 1)
            if (bits & 1) undo(i);
    };
    if (framebuffer_) api.glBindFramebuffer(gl::FRAMEBUFFER, 0);
    if (pipeline_) {
        api.glUseProgram(0);
        api.glDisable(gl::DEPTH_TEST);
        api.glDepthMask(gl::TRUE_);
        api.glDisable(gl::BLEND);
        api.glDisable(gl::CULL_FACE);
        api.glDisable(gl::PROGRAM_POINT_SIZE);
        set_clip_distances(0);
        set_multisample(true);
    }
    each(enabled_attributes_, [&](GLuint i) { api.glDisableVertexArrayAttrib(vao_, i); });
    each(touched_.vertex, [&](GLuint i) { api.glVertexArrayVertexBuffer(vao_, i, 0, 0, 0); });
    each(touched_.uniform, [&](GLuint i) { api.glBindBufferBase(gl::UNIFORM_BUFFER, i, 0); });
    each(touched_.storage,
         [&](GLuint i) { api.glBindBufferBase(gl::SHADER_STORAGE_BUFFER, i, 0); });
    each(touched_.texture, [&](GLuint i) { api.glBindTextureUnit(i, 0); });
    if (touched_.index) api.glVertexArrayElementBuffer(vao_, 0);
    if (touched_.indirect) {
        api.glBindBuffer(gl::DRAW_INDIRECT_BUFFER, 0);
        api.glBindBuffer(gl::DISPATCH_INDIRECT_BUFFER, 0);
    }
    enabled_attributes_ = 0;
    touched_ = Touched{};
    std::fill(std::begin(storage_), std::end(storage_), StorageBinding{});
    std::fill(std::begin(storage_buffers_), std::end(storage_buffers_), nullptr);
}

void GLDevice::forget_gpu_writes() {
    // All GPU work so far is done; what stays bound for storage may still be written.
    gpu_written_.clear();
    for (Buffer *buffer : storage_buffers_)
        if (buffer) gpu_written_.insert(buffer);
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
    if (s.topology == gl::POINTS)
        api.glEnable(gl::PROGRAM_POINT_SIZE);
    else
        api.glDisable(gl::PROGRAM_POINT_SIZE);
    set_clip_distances(s.clip_distances);
    set_multisample(s.multisample);
    apply_vertex_layout(pipeline);
}

void GLDevice::set_multisample(bool on) {
    // Switched only when it changes (a pipeline rasterized as one sample is rare).
    if (on == multisample_) return;
    if (on)
        shared_->api.glEnable(gl::MULTISAMPLE);
    else
        shared_->api.glDisable(gl::MULTISAMPLE);
    multisample_ = on;
}

void GLDevice::set_clip_distances(GLuint count) {
    // Only the planes that change are switched (most pipelines use none).
    const GLApi &api = shared_->api;
    for (GLuint i = count; i < clip_distances_; ++i) api.glDisable(gl::CLIP_DISTANCE0 + i);
    for (GLuint i = clip_distances_; i < count; ++i) api.glEnable(gl::CLIP_DISTANCE0 + i);
    clip_distances_ = count;
}

void GLDevice::bind_framebuffer(Resource &resource) {
    auto &framebuffer = static_cast<GLFramebuffer &>(resource);
    framebuffer_ = &framebuffer;
    shared_->api.glBindFramebuffer(gl::FRAMEBUFFER, framebuffer.fbo());
    shared_->api.glViewport(0, 0, framebuffer.width(), framebuffer.height());
}

void GLDevice::bind_vertex_buffer(uint32_t binding, Buffer &buffer) {
    vertex_buffers_[binding] = &buffer;
    touched_.vertex |= 1ull << binding;
    rebind_vertex_buffer(binding);
}

void GLDevice::bind_index_buffer(Buffer &buffer) {
    touched_.index = true;
    shared_->api.glVertexArrayElementBuffer(vao_, gl_buffer_name(buffer));
}

void GLDevice::bind_uniform_buffer(uint32_t binding, Buffer &buffer) {
    touched_.uniform |= 1ull << binding;
    shared_->api.glBindBufferBase(gl::UNIFORM_BUFFER, binding, gl_buffer_name(buffer));
}

void GLDevice::bind_storage_buffer(uint32_t binding, Buffer &buffer) {
    touched_.storage |= 1ull << binding;
    storage_buffers_[binding] = &buffer;
    gpu_written_.insert(&buffer);
    if (binding < GLIndirect::kBindings) storage_[binding] = {gl_buffer_name(buffer), 0, 0};
    shared_->api.glBindBufferBase(gl::SHADER_STORAGE_BUFFER, binding, gl_buffer_name(buffer));
}

void GLDevice::bind_uniform_range(uint32_t binding, Buffer &buffer, uint32_t offset,
                                  uint32_t size) {
    touched_.uniform |= 1ull << binding;
    shared_->api.glBindBufferRange(gl::UNIFORM_BUFFER, binding, gl_buffer_name(buffer),
                                   static_cast<GLintptr>(offset), static_cast<GLsizeiptr>(size));
}

void GLDevice::bind_storage_range(uint32_t binding, Buffer &buffer, uint32_t offset,
                                  uint32_t size) {
    touched_.storage |= 1ull << binding;
    storage_buffers_[binding] = &buffer;
    gpu_written_.insert(&buffer);
    if (binding < GLIndirect::kBindings)
        storage_[binding] = {gl_buffer_name(buffer), static_cast<GLintptr>(offset),
                             static_cast<GLsizeiptr>(size)};
    shared_->api.glBindBufferRange(gl::SHADER_STORAGE_BUFFER, binding, gl_buffer_name(buffer),
                                   static_cast<GLintptr>(offset), static_cast<GLsizeiptr>(size));
}

void GLDevice::bind_indirect_buffer(Buffer &buffer) {
    touched_.indirect = true;
    indirect_ = &buffer;
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
    if (texture.handle_buffer) {  // a bindless texture set: its handles at storage binding `unit`
        touched_.storage |= 1ull << unit;
        if (unit < GLIndirect::kBindings)
            storage_[unit] = {gl_buffer_name(*texture.handle_buffer), 0, 0};
        shared_->api.glBindBufferBase(gl::SHADER_STORAGE_BUFFER, unit,
                                      gl_buffer_name(*texture.handle_buffer));
    } else {
        touched_.texture |= 1ull << unit;
        shared_->api.glBindTextureUnit(unit, texture.gl());
    }
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
        poll_stop();
        return;
    }
    shared_->api.glDrawArraysInstancedBaseInstance(topology(), static_cast<GLint>(first),
                                                   static_cast<GLsizei>(count),
                                                   static_cast<GLsizei>(instances), 0);
    poll_stop();
}

void GLDevice::draw_indexed(uint32_t type, uint32_t count, uint32_t first, uint32_t instances) {
    gpu_wrote_ = true;
    if (instances == 1) {
        shared_->api.glDrawElements(topology(), static_cast<GLsizei>(count), index_type(type),
                                    byte_offset(uint64_t(first) * isa::kIndexTypeSize[type]));
        poll_stop();
        return;
    }
    shared_->api.glDrawElementsInstancedBaseVertexBaseInstance(
        topology(), static_cast<GLsizei>(count), index_type(type),
        byte_offset(uint64_t(first) * isa::kIndexTypeSize[type]),
        static_cast<GLsizei>(instances), 0, 0);
    poll_stop();
}

// Every indirect call reads its commands where indirect_source() says: its
// own buffers when the CPU's view of them is current (the interpreter charged
// them), else a GPU-checked copy in the scratch buffer (gl_indirect.hpp).

GLDevice::IndirectSource GLDevice::indirect_source(IndirectKind kind, GLenum target,
                                                   uint32_t offset, uint32_t count,
                                                   uint32_t stride, bool counted,
                                                   uint32_t count_offset) {
    gpu_wrote_ = true;
    if (!indirect_on_gpu(*indirect_, counted ? parameter_ : nullptr))
        return {false, static_cast<GLintptr>(offset), static_cast<GLsizei>(stride),
                counted ? gl_buffer_name(*parameter_) : 0, static_cast<GLintptr>(count_offset)};
    const GLApi &api = shared_->api;
    const GLIndirect::Copy copy = indirect_check_.check(
        kind, gl_buffer_name(*indirect_), offset, count, stride,
        counted ? gl_buffer_name(*parameter_) : 0, count_offset, limits_);
    api.glUseProgram(pipeline_ ? pipeline_->program() : 0);
    for (GLuint i = 0; i < GLIndirect::kBindings; ++i) {
        const StorageBinding &b = storage_[i];
        if (b.size)
            api.glBindBufferRange(gl::SHADER_STORAGE_BUFFER, i, b.buffer, b.offset, b.size);
        else
            api.glBindBufferBase(gl::SHADER_STORAGE_BUFFER, i, b.buffer);
    }
    api.glBindBuffer(target, copy.buffer);
    return {true, copy.commands_offset, 0, copy.buffer, copy.count_offset};
}

void GLDevice::done(const IndirectSource &source, GLenum target) {
    if (source.checked) shared_->api.glBindBuffer(target, gl_buffer_name(*indirect_));
    poll_stop();
}

void GLDevice::draw_indirect(uint32_t offset) {
    const auto source =
        indirect_source(IndirectKind::DRAW, gl::DRAW_INDIRECT_BUFFER, offset, 1, 0, false, 0);
    shared_->api.glDrawArraysIndirect(topology(), byte_offset(source.commands_offset));
    done(source, gl::DRAW_INDIRECT_BUFFER);
}

void GLDevice::draw_indexed_indirect(uint32_t type, uint32_t offset) {
    const auto source =
        indirect_source(IndirectKind::INDEXED, gl::DRAW_INDIRECT_BUFFER, offset, 1, 0, false, 0);
    shared_->api.glDrawElementsIndirect(topology(), index_type(type),
                                        byte_offset(source.commands_offset));
    done(source, gl::DRAW_INDIRECT_BUFFER);
}

void GLDevice::multi_draw_indirect(uint32_t offset, uint32_t count, uint32_t stride) {
    const auto source = indirect_source(IndirectKind::DRAW, gl::DRAW_INDIRECT_BUFFER, offset,
                                        count, stride, false, 0);
    shared_->api.glMultiDrawArraysIndirect(topology(), byte_offset(source.commands_offset),
                                           static_cast<GLsizei>(count), source.stride);
    done(source, gl::DRAW_INDIRECT_BUFFER);
}

void GLDevice::multi_draw_indexed_indirect(uint32_t type, uint32_t offset, uint32_t count,
                                           uint32_t stride) {
    const auto source = indirect_source(IndirectKind::INDEXED, gl::DRAW_INDIRECT_BUFFER, offset,
                                        count, stride, false, 0);
    shared_->api.glMultiDrawElementsIndirect(topology(), index_type(type),
                                             byte_offset(source.commands_offset),
                                             static_cast<GLsizei>(count), source.stride);
    done(source, gl::DRAW_INDIRECT_BUFFER);
}

void GLDevice::multi_draw_indirect_count(uint32_t offset, uint32_t count_offset,
                                         uint32_t max_count) {
    if (!features_.indirect_count)
        throw std::runtime_error("indirect-count draws need GL 4.6 or ARB_indirect_parameters");
    const auto source = indirect_source(IndirectKind::DRAW, gl::DRAW_INDIRECT_BUFFER, offset,
                                        max_count, 0, true, count_offset);
    const GLApi &api = shared_->api;
    api.glBindBuffer(gl::PARAMETER_BUFFER, source.counts);
    api.glMultiDrawArraysIndirectCount(topology(), byte_offset(source.commands_offset),
                                       source.count_offset, static_cast<GLsizei>(max_count), 0);
    api.glBindBuffer(gl::PARAMETER_BUFFER, 0);
    done(source, gl::DRAW_INDIRECT_BUFFER);
}

void GLDevice::multi_draw_indexed_indirect_count(uint32_t type, uint32_t offset,
                                                 uint32_t count_offset, uint32_t max_count) {
    if (!features_.indirect_count)
        throw std::runtime_error("indirect-count draws need GL 4.6 or ARB_indirect_parameters");
    const auto source = indirect_source(IndirectKind::INDEXED, gl::DRAW_INDIRECT_BUFFER, offset,
                                        max_count, 0, true, count_offset);
    const GLApi &api = shared_->api;
    api.glBindBuffer(gl::PARAMETER_BUFFER, source.counts);
    api.glMultiDrawElementsIndirectCount(topology(), index_type(type),
                                         byte_offset(source.commands_offset), source.count_offset,
                                         static_cast<GLsizei>(max_count), 0);
    api.glBindBuffer(gl::PARAMETER_BUFFER, 0);
    done(source, gl::DRAW_INDIRECT_BUFFER);
}

void GLDevice::dispatch(uint32_t x, uint32_t y, uint32_t z) {
    if (!pipeline_ || !pipeline_->compute())
        throw std::runtime_error("dispatch needs a compute pipeline bound");
    gpu_wrote_ = true;
    shared_->api.glDispatchCompute(x, y, z);
    poll_stop();
}

void GLDevice::dispatch_indirect(uint32_t offset) {
    if (!pipeline_ || !pipeline_->compute())
        throw std::runtime_error("dispatch needs a compute pipeline bound");
    const auto source =
        indirect_source(IndirectKind::DISPATCH, gl::DISPATCH_INDIRECT_BUFFER, offset, 1, 0, false, 0);
    shared_->api.glDispatchComputeIndirect(source.commands_offset);
    done(source, gl::DISPATCH_INDIRECT_BUFFER);
}

void GLDevice::barrier(uint32_t bits) {
    before_driver_wait(stop_check());
    shared_->api.glMemoryBarrier(bits);
    poll_stop();
}

void GLDevice::copy_buffer(Buffer &source, Buffer &destination, uint32_t source_offset,
                           uint32_t destination_offset, uint32_t size) {
    gpu_wrote_ = true;
    gpu_written_.insert(&destination);
    before_driver_wait(stop_check());
    shared_->api.glCopyNamedBufferSubData(gl_buffer_name(source), gl_buffer_name(destination),
                                          source_offset, destination_offset, size);
    poll_stop();
}

void GLDevice::fence_signal(Resource &fence) {
    static_cast<GLFence &>(fence).signal();
    poll_stop();  // making a fence flushes: Mesa 20.3 runs the frame there (wait_idle)
}

bool GLDevice::fence_ready(Resource &fence) { return static_cast<GLFence &>(fence).ready(); }

bool GLDevice::fence_wait(Resource &fence, uint32_t timeout_us) {
    return static_cast<GLFence &>(fence).wait(to_nanoseconds(timeout_us), stop_check());
}

void GLDevice::read_framebuffer(uint32_t attachment, Resource &readback, Resource &framebuffer) {
    auto &ring = static_cast<GLReadback &>(readback);
    if (ring.attachment() != attachment)
        throw std::runtime_error("readback '" + ring.name() + "' was made for attachment " +
                                 std::to_string(ring.attachment()) + ", not " +
                                 std::to_string(attachment));
    before_driver_wait(stop_check());
    ring.capture(static_cast<GLFramebuffer &>(framebuffer), stop_check());
    if (framebuffer_) shared_->api.glBindFramebuffer(gl::FRAMEBUFFER, framebuffer_->fbo());
}

void GLDevice::resolve_framebuffer(Resource &source, Resource &destination) {
    before_driver_wait(stop_check());
    static_cast<GLFramebuffer &>(source).copy_into(static_cast<GLFramebuffer &>(destination));
    poll_stop();
}

void GLDevice::upload(ExternalSource &source, Buffer &destination) {
    // The mapping is coherent: CPU writes are visible to later GPU commands.
    source.upload(destination);
}

void GLDevice::prepare_cpu_read(Buffer &) {
    if (gpu_wrote_) sync_cpu();
}

std::optional<IndirectOverrun> GLDevice::indirect_overrun() {
    if (!indirect_check_.pending()) return std::nullopt;
    sync_cpu();  // the checks' verdicts are in mapped memory once the GPU is done
    return indirect_check_.take_overrun();
}

void GLDevice::sync_cpu() { sync_cpu(stop_check()); }

void GLDevice::sync_cpu(const std::function<bool()> *stop) {
    // GL 4.4 spec 7.12/6.2: shader writes to a persistently mapped buffer become
    // visible to the CPU after CLIENT_MAPPED_BUFFER_BARRIER_BIT and a completed fence.
    // The GPU is waited for in slices first: the barrier may wait in the driver
    // (llvmpipe's is a glFinish), which Ctrl+C could not end; once idle it is quick.
    const GLApi &api = shared_->api;
    wait_idle(api, stop);
    api.glMemoryBarrier(gl::CLIENT_MAPPED_BUFFER_BARRIER_BIT);
    wait_idle(api, stop);
    gpu_wrote_ = false;
    forget_gpu_writes();
}

}  // namespace hypergl
