// GL pipelines: shaders compiled and linked once, with their fixed state.
#include <cstring>
#include <vector>

#include "hypergl/gl_resources.hpp"

namespace hypergl {
namespace {

GLuint compile(const GLApi &api, GLenum stage, const std::string &source,
               const char *stage_name) {
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

// The linked program's uniform blocks, as the driver laid them out.
std::vector<UniformBlock> query_uniform_blocks(const GLApi &api, GLuint program) {
    GLint count = 0;
    api.glGetProgramiv(program, gl::ACTIVE_UNIFORM_BLOCKS, &count);
    std::vector<UniformBlock> blocks;
    for (GLint i = 0; i < count; ++i) {
        const auto block = static_cast<GLuint>(i);
        GLint binding = 0, size = 0;
        api.glGetActiveUniformBlockiv(program, block, gl::UNIFORM_BLOCK_BINDING, &binding);
        api.glGetActiveUniformBlockiv(program, block, gl::UNIFORM_BLOCK_DATA_SIZE, &size);
        char name[256] = {};
        api.glGetActiveUniformBlockName(program, block, sizeof name, nullptr, name);
        blocks.push_back(UniformBlock{static_cast<uint32_t>(binding),
                                      static_cast<uint64_t>(size > 0 ? size : 0), name});
    }
    return blocks;
}

}  // namespace

std::shared_ptr<GLPipeline> GLPipeline::create(const std::shared_ptr<GLShared> &shared,
                                               const std::string &name,
                                               const std::string &vertex_shader,
                                               const std::string &fragment_shader,
                                               const std::string &compute_shader,
                                               PipelineState state,
                                               std::vector<VertexInput> inputs) {
    const GLApi &api = shared->api;
    std::vector<GLuint> shaders;
    try {
        if (!compute_shader.empty()) {
            shaders.push_back(compile(api, gl::COMPUTE_SHADER, compute_shader, "compute"));
        } else {
            shaders.push_back(compile(api, gl::VERTEX_SHADER, vertex_shader, "vertex"));
            if (!fragment_shader.empty())
                shaders.push_back(compile(api, gl::FRAGMENT_SHADER, fragment_shader, "fragment"));
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
    std::vector<UniformBlock> blocks = query_uniform_blocks(api, program);
    shared->check_errors("creating a pipeline");
    return std::make_shared<GLPipeline>(name, shared, program, !compute_shader.empty(),
                                        std::move(state), std::move(inputs), std::move(blocks));
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

}  // namespace hypergl
