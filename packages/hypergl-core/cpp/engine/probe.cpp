#include "hypergl/probe.hpp"

namespace hypergl {
namespace {

std::string gl_string(const GLApi &api, GLenum name) {
    const GLubyte *text = api.glGetString(name);
    return text ? std::string(reinterpret_cast<const char *>(text)) : std::string();
}

struct LimitName {
    const char *name;
    GLenum pname;
};

constexpr LimitName kLimits[] = {
    {"max_texture_size", gl::MAX_TEXTURE_SIZE},
    {"max_array_texture_layers", gl::MAX_ARRAY_TEXTURE_LAYERS},
    {"max_vertex_attribs", gl::MAX_VERTEX_ATTRIBS},
    {"max_texture_image_units", gl::MAX_TEXTURE_IMAGE_UNITS},
    {"max_color_attachments", gl::MAX_COLOR_ATTACHMENTS},
    {"max_draw_buffers", gl::MAX_DRAW_BUFFERS},
    {"max_samples", gl::MAX_SAMPLES},
    {"max_integer_samples", gl::MAX_INTEGER_SAMPLES},
    {"max_renderbuffer_size", gl::MAX_RENDERBUFFER_SIZE},
    {"max_uniform_buffer_bindings", gl::MAX_UNIFORM_BUFFER_BINDINGS},
    {"max_uniform_block_size", gl::MAX_UNIFORM_BLOCK_SIZE},
    {"max_shader_storage_buffer_bindings", gl::MAX_SHADER_STORAGE_BUFFER_BINDINGS},
    {"max_shader_storage_block_size", gl::MAX_SHADER_STORAGE_BLOCK_SIZE},
    {"max_compute_work_group_invocations", gl::MAX_COMPUTE_WORK_GROUP_INVOCATIONS},
};

}  // namespace

ProbeResult probe_context(const GLApi &api) {
    ProbeResult result;
    result.version = gl_string(api, gl::VERSION);
    result.renderer = gl_string(api, gl::RENDERER);
    result.vendor = gl_string(api, gl::VENDOR);
    result.glsl_version = gl_string(api, gl::SHADING_LANGUAGE_VERSION);
    api.glGetIntegerv(gl::MAJOR_VERSION, &result.major);
    api.glGetIntegerv(gl::MINOR_VERSION, &result.minor);
    GLint profile = 0;
    api.glGetIntegerv(gl::CONTEXT_PROFILE_MASK, &profile);
    result.core_profile = (profile & 1) != 0;

    GLint count = 0;
    api.glGetIntegerv(gl::NUM_EXTENSIONS, &count);
    for (GLint i = 0; i < count; ++i) {
        const GLubyte *name = api.glGetStringi(gl::EXTENSIONS, static_cast<GLuint>(i));
        if (name) result.extensions.emplace_back(reinterpret_cast<const char *>(name));
    }
    for (const LimitName &limit : kLimits) {
        GLint value = 0;
        api.glGetIntegerv(limit.pname, &value);
        result.limits[limit.name] = value;
    }
    GLint viewport[2] = {0, 0};
    api.glGetIntegerv(gl::MAX_VIEWPORT_DIMS, viewport);
    result.limits["max_viewport_width"] = viewport[0];
    result.limits["max_viewport_height"] = viewport[1];
    for (GLuint axis = 0; axis < 3; ++axis) {
        GLint groups = 0;
        api.glGetIntegeri_v(gl::MAX_COMPUTE_WORK_GROUP_COUNT, axis, &groups);
        result.limits[std::string("max_compute_work_group_count_") + "xyz"[axis]] = groups;
    }
    while (api.glGetError() != gl::NO_ERROR_) {
        // A limit unknown to this driver raises GL_INVALID_ENUM; its value stays 0.
    }
    return result;
}

}  // namespace hypergl
