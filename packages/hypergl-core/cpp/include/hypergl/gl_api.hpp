// The OpenGL entry points HyperGL uses, loaded per context from a loader
// (glcontext for headless EGL, the window library for windows).
//
// The list is an X-macro so that the typedefs, the table and the loading code
// cannot drift apart. A loaded pointer says nothing about support: EGL hands
// out stubs for unsupported functions, so capabilities are decided from the
// version and extension strings (see probe.hpp), never from a null check.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace hypergl {

using GLenum = unsigned int;
using GLboolean = unsigned char;
using GLbitfield = unsigned int;
using GLint = int;
using GLuint = unsigned int;
using GLsizei = int;
using GLfloat = float;
using GLdouble = double;
using GLubyte = unsigned char;
using GLchar = char;
using GLint64 = int64_t;
using GLuint64 = uint64_t;
using GLintptr = std::ptrdiff_t;
using GLsizeiptr = std::ptrdiff_t;
using GLsync = struct __GLsync *;

namespace gl {
constexpr GLenum NO_ERROR_ = 0;
constexpr GLenum VENDOR = 0x1F00;
constexpr GLenum RENDERER = 0x1F01;
constexpr GLenum VERSION = 0x1F02;
constexpr GLenum EXTENSIONS = 0x1F03;
constexpr GLenum SHADING_LANGUAGE_VERSION = 0x8B8C;
constexpr GLenum MAJOR_VERSION = 0x821B;
constexpr GLenum MINOR_VERSION = 0x821C;
constexpr GLenum NUM_EXTENSIONS = 0x821D;
constexpr GLenum CONTEXT_PROFILE_MASK = 0x9126;
constexpr GLenum MAX_TEXTURE_SIZE = 0x0D33;
constexpr GLenum MAX_ARRAY_TEXTURE_LAYERS = 0x88FF;
constexpr GLenum MAX_VERTEX_ATTRIBS = 0x8869;
constexpr GLenum MAX_TEXTURE_IMAGE_UNITS = 0x8872;
constexpr GLenum MAX_COLOR_ATTACHMENTS = 0x8CDF;
constexpr GLenum MAX_DRAW_BUFFERS = 0x8824;
constexpr GLenum MAX_SAMPLES = 0x8D57;
constexpr GLenum MAX_UNIFORM_BUFFER_BINDINGS = 0x8A2F;
constexpr GLenum MAX_UNIFORM_BLOCK_SIZE = 0x8A30;
constexpr GLenum MAX_SHADER_STORAGE_BUFFER_BINDINGS = 0x90DD;
constexpr GLenum MAX_SHADER_STORAGE_BLOCK_SIZE = 0x90DE;
constexpr GLenum MAX_COMPUTE_WORK_GROUP_INVOCATIONS = 0x90EB;
constexpr GLenum MAX_COMPUTE_WORK_GROUP_COUNT = 0x91BE;
constexpr GLenum MAX_RENDERBUFFER_SIZE = 0x84E8;
constexpr GLenum MAX_VIEWPORT_DIMS = 0x0D3A;
}  // namespace gl

#define HYPERGL_GL_FUNCTIONS(X)                                                    \
    X(GLenum, glGetError, (void))                                                  \
    X(const GLubyte *, glGetString, (GLenum name))                                 \
    X(const GLubyte *, glGetStringi, (GLenum name, GLuint index))                  \
    X(void, glGetIntegerv, (GLenum pname, GLint * data))                           \
    X(void, glGetIntegeri_v, (GLenum target, GLuint index, GLint * data))

// One member per entry point, named after it.
struct GLApi {
#define HYPERGL_GL_MEMBER(ret, name, args) ret(*name) args = nullptr;
    HYPERGL_GL_FUNCTIONS(HYPERGL_GL_MEMBER)
#undef HYPERGL_GL_MEMBER
};

// Resolves a GL entry point by name; returns nullptr when the loader has none.
using GLLoader = std::function<void *(const char *)>;

// Fills every entry of `api`. Throws std::runtime_error naming the first entry
// point the loader could not resolve at all.
void load_gl_api(GLApi &api, const GLLoader &loader);

}  // namespace hypergl
