// The OpenGL entry points HyperGL uses, loaded per context from a loader
// (eglGetProcAddress for headless EGL, the window library for windows).
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
constexpr GLenum MAX_INTEGER_SAMPLES = 0x9110, RENDERBUFFER = 0x8D41;
constexpr GLbitfield COLOR_BUFFER_BIT = 0x4000, DEPTH_BUFFER_BIT = 0x0100;
constexpr GLenum MAX_VIEWPORT_DIMS = 0x0D3A;

constexpr GLenum FALSE_ = 0, TRUE_ = 1;
constexpr GLenum UNSIGNED_BYTE = 0x1401, UNSIGNED_SHORT = 0x1403, INT = 0x1404,
                 UNSIGNED_INT = 0x1405, FLOAT = 0x1406, BYTE = 0x1400, SHORT = 0x1402;
constexpr GLenum POINTS = 0x0000, LINES = 0x0001, LINE_STRIP = 0x0003, TRIANGLES = 0x0004,
                 TRIANGLE_STRIP = 0x0005, TRIANGLE_FAN = 0x0006;
constexpr GLenum DEPTH_TEST = 0x0B71, CULL_FACE = 0x0B44, BLEND = 0x0BE2,
                 PROGRAM_POINT_SIZE = 0x8642, SCISSOR_TEST = 0x0C11, MULTISAMPLE = 0x809D,
                 CLIP_DISTANCE0 = 0x3000;
constexpr GLenum FRONT = 0x0404, BACK = 0x0405, FRONT_AND_BACK = 0x0408, CW = 0x0900,
                 CCW = 0x0901;
constexpr GLenum NEVER = 0x0200, LESS = 0x0201, EQUAL = 0x0202, LEQUAL = 0x0203,
                 GREATER = 0x0204, NOTEQUAL = 0x0205, GEQUAL = 0x0206, ALWAYS = 0x0207;
constexpr GLenum ZERO = 0, ONE = 1, SRC_ALPHA = 0x0302, ONE_MINUS_SRC_ALPHA = 0x0303,
                 FUNC_ADD = 0x8006;
constexpr GLenum ARRAY_BUFFER = 0x8892, ELEMENT_ARRAY_BUFFER = 0x8893,
                 PIXEL_PACK_BUFFER = 0x88EB, UNIFORM_BUFFER = 0x8A11,
                 SHADER_STORAGE_BUFFER = 0x90D2, DRAW_INDIRECT_BUFFER = 0x8F3F,
                 DISPATCH_INDIRECT_BUFFER = 0x90EE, PARAMETER_BUFFER = 0x80EE;
constexpr GLbitfield MAP_READ_BIT = 0x0001, MAP_WRITE_BIT = 0x0002,
                     MAP_PERSISTENT_BIT = 0x0040, MAP_COHERENT_BIT = 0x0080,
                     DYNAMIC_STORAGE_BIT = 0x0100, CLIENT_STORAGE_BIT = 0x0200;
constexpr GLenum TEXTURE_2D = 0x0DE1, TEXTURE_2D_ARRAY = 0x8C1A, TEXTURE_CUBE_MAP = 0x8513,
                 TEXTURE_2D_MULTISAMPLE = 0x9100,
                 TEXTURE_CUBE_MAP_SEAMLESS = 0x884F;
constexpr GLenum TEXTURE_MIN_FILTER = 0x2801, TEXTURE_MAG_FILTER = 0x2800,
                 TEXTURE_WRAP_S = 0x2802, TEXTURE_WRAP_T = 0x2803, TEXTURE_WRAP_R = 0x8072,
                 NEAREST = 0x2600, LINEAR_MIPMAP_LINEAR = 0x2703,
                 NEAREST_MIPMAP_NEAREST = 0x2700,
                 LINEAR = 0x2601, REPEAT = 0x2901, CLAMP_TO_EDGE = 0x812F,
                 MIRRORED_REPEAT = 0x8370;
constexpr GLenum RGBA8 = 0x8058, R32F = 0x822E, RGBA32F = 0x8814, R32UI = 0x8236,
                 RGBA16F = 0x881A, DEPTH_COMPONENT24 = 0x81A6, DEPTH_COMPONENT32F = 0x8CAC,
                 DEPTH24_STENCIL8 = 0x88F0;
constexpr GLenum RED = 0x1903, RGB = 0x1907, RGBA = 0x1908, RED_INTEGER = 0x8D94,
                 DEPTH_COMPONENT = 0x1902, DEPTH_STENCIL = 0x84F9,
                 UNSIGNED_INT_24_8 = 0x84FA, HALF_FLOAT = 0x140B;
constexpr GLenum FRAMEBUFFER = 0x8D40, READ_FRAMEBUFFER = 0x8CA8, DRAW_FRAMEBUFFER = 0x8CA9,
                 FRAMEBUFFER_COMPLETE = 0x8CD5, COLOR_ATTACHMENT0 = 0x8CE0,
                 DEPTH_ATTACHMENT = 0x8D00, DEPTH_STENCIL_ATTACHMENT = 0x821A, COLOR = 0x1800,
                 DEPTH = 0x1801, STENCIL = 0x1802, NONE = 0;
constexpr GLenum VERTEX_SHADER = 0x8B31, FRAGMENT_SHADER = 0x8B30, COMPUTE_SHADER = 0x91B9,
                 COMPILE_STATUS = 0x8B81, LINK_STATUS = 0x8B82, INFO_LOG_LENGTH = 0x8B84;
constexpr GLenum ACTIVE_UNIFORM_BLOCKS = 0x8A36, UNIFORM_BLOCK_BINDING = 0x8A3F,
                 UNIFORM_BLOCK_DATA_SIZE = 0x8A40;
constexpr GLenum PACK_ALIGNMENT = 0x0D05, UNPACK_ALIGNMENT = 0x0CF5;
constexpr GLenum SYNC_GPU_COMMANDS_COMPLETE = 0x9117, SYNC_FLUSH_COMMANDS_BIT = 0x0001,
                 ALREADY_SIGNALED = 0x911A, CONDITION_SATISFIED = 0x911C,
                 TIMEOUT_EXPIRED = 0x911B, WAIT_FAILED = 0x911D;
constexpr GLbitfield COMMAND_BARRIER_BIT = 0x00000040, SHADER_STORAGE_BARRIER_BIT = 0x00002000;
constexpr GLbitfield CLIENT_MAPPED_BUFFER_BARRIER_BIT = 0x00004000,
                     ALL_BARRIER_BITS = 0xFFFFFFFF;
}  // namespace gl

#define HYPERGL_GL_FUNCTIONS(X)                                                              \
    X(GLenum, glGetError, (void))                                                            \
    X(const GLubyte *, glGetString, (GLenum name))                                           \
    X(const GLubyte *, glGetStringi, (GLenum name, GLuint index))                            \
    X(void, glGetIntegerv, (GLenum pname, GLint * data))                                     \
    X(void, glGetIntegeri_v, (GLenum target, GLuint index, GLint * data))                    \
    X(void, glEnable, (GLenum cap))                                                          \
    X(void, glDisable, (GLenum cap))                                                         \
    X(void, glFinish, (void))                                                                \
    X(void, glFlush, (void))                                                                 \
    X(void, glViewport, (GLint x, GLint y, GLsizei w, GLsizei h))                            \
    X(void, glDepthFunc, (GLenum func))                                                      \
    X(void, glDepthMask, (GLboolean flag))                                                   \
    X(void, glColorMask, (GLboolean r, GLboolean g, GLboolean b, GLboolean a))               \
    X(void, glStencilMask, (GLuint mask))                                                    \
    X(void, glCullFace, (GLenum mode))                                                       \
    X(void, glFrontFace, (GLenum mode))                                                      \
    X(void, glBlendFuncSeparate, (GLenum sc, GLenum dc, GLenum sa, GLenum da))               \
    X(void, glBlendEquation, (GLenum mode))                                                  \
    X(void, glPixelStorei, (GLenum pname, GLint param))                                      \
    X(void, glReadPixels,                                                                    \
      (GLint x, GLint y, GLsizei w, GLsizei h, GLenum format, GLenum type, void *data))      \
    X(void, glCreateBuffers, (GLsizei n, GLuint * buffers))                                  \
    X(void, glDeleteBuffers, (GLsizei n, const GLuint *buffers))                             \
    X(void, glNamedBufferStorage,                                                            \
      (GLuint buffer, GLsizeiptr size, const void *data, GLbitfield flags))                  \
    X(void *, glMapNamedBufferRange,                                                         \
      (GLuint buffer, GLintptr offset, GLsizeiptr length, GLbitfield access))                \
    X(GLboolean, glUnmapNamedBuffer, (GLuint buffer))                                        \
    X(void, glNamedBufferSubData,                                                            \
      (GLuint buffer, GLintptr offset, GLsizeiptr size, const void *data))                   \
    X(void, glCopyNamedBufferSubData,                                                        \
      (GLuint src, GLuint dst, GLintptr src_offset, GLintptr dst_offset, GLsizeiptr size))   \
    X(void, glBindBuffer, (GLenum target, GLuint buffer))                                    \
    X(void, glBindBufferBase, (GLenum target, GLuint index, GLuint buffer))                  \
    X(void, glBindBufferRange,                                                                \
      (GLenum target, GLuint index, GLuint buffer, GLintptr offset, GLsizeiptr size))        \
    X(void, glCreateTextures, (GLenum target, GLsizei n, GLuint * textures))                 \
    X(void, glDeleteTextures, (GLsizei n, const GLuint *textures))                           \
    X(void, glTextureStorage2D,                                                              \
      (GLuint texture, GLsizei levels, GLenum format, GLsizei w, GLsizei h))                 \
    X(void, glTextureStorage2DMultisample,                                                   \
      (GLuint texture, GLsizei samples, GLenum format, GLsizei w, GLsizei h,                 \
       GLboolean fixed_locations))                                                           \
    X(void, glTextureStorage3D,                                                              \
      (GLuint texture, GLsizei levels, GLenum format, GLsizei w, GLsizei h, GLsizei d))      \
    X(void, glTextureSubImage2D,                                                             \
      (GLuint texture, GLint level, GLint x, GLint y, GLsizei w, GLsizei h, GLenum format,   \
       GLenum type, const void *pixels))                                                     \
    X(void, glTextureSubImage3D,                                                             \
      (GLuint texture, GLint level, GLint x, GLint y, GLint z, GLsizei w, GLsizei h,         \
       GLsizei d, GLenum format, GLenum type, const void *pixels))                           \
    X(void, glTextureParameteri, (GLuint texture, GLenum pname, GLint param))                \
    X(void, glGenerateTextureMipmap, (GLuint texture))                                       \
    X(void, glBindTextureUnit, (GLuint unit, GLuint texture))                                \
    X(void, glGetTextureImage,                                                               \
      (GLuint texture, GLint level, GLenum format, GLenum type, GLsizei size, void *pixels)) \
    X(void, glCreateFramebuffers, (GLsizei n, GLuint * framebuffers))                        \
    X(void, glDeleteFramebuffers, (GLsizei n, const GLuint *framebuffers))                   \
    X(void, glNamedFramebufferTexture,                                                       \
      (GLuint fb, GLenum attachment, GLuint texture, GLint level))                           \
    X(void, glNamedFramebufferDrawBuffers, (GLuint fb, GLsizei n, const GLenum *buffers))    \
    X(void, glNamedFramebufferReadBuffer, (GLuint fb, GLenum mode))                          \
    X(void, glNamedFramebufferDrawBuffer, (GLuint fb, GLenum mode))                          \
    X(void, glNamedFramebufferRenderbuffer,                                                  \
      (GLuint fb, GLenum attachment, GLenum target, GLuint renderbuffer))                    \
    X(void, glCreateRenderbuffers, (GLsizei n, GLuint * renderbuffers))                      \
    X(void, glDeleteRenderbuffers, (GLsizei n, const GLuint *renderbuffers))                 \
    X(void, glNamedRenderbufferStorageMultisample,                                           \
      (GLuint renderbuffer, GLsizei samples, GLenum format, GLsizei w, GLsizei h))           \
    X(void, glBlitNamedFramebuffer,                                                          \
      (GLuint src, GLuint dst, GLint sx0, GLint sy0, GLint sx1, GLint sy1, GLint dx0,        \
       GLint dy0, GLint dx1, GLint dy1, GLbitfield mask, GLenum filter))                     \
    X(GLenum, glCheckNamedFramebufferStatus, (GLuint fb, GLenum target))                     \
    X(void, glBindFramebuffer, (GLenum target, GLuint fb))                                   \
    X(void, glClearNamedFramebufferfv,                                                       \
      (GLuint fb, GLenum buffer, GLint drawbuffer, const GLfloat *value))                    \
    X(void, glClearNamedFramebufferiv,                                                       \
      (GLuint fb, GLenum buffer, GLint drawbuffer, const GLint *value))                      \
    X(GLuint, glCreateShader, (GLenum type))                                                 \
    X(void, glShaderSource,                                                                  \
      (GLuint shader, GLsizei count, const GLchar *const *string, const GLint *length))      \
    X(void, glCompileShader, (GLuint shader))                                                \
    X(void, glGetShaderiv, (GLuint shader, GLenum pname, GLint * params))                    \
    X(void, glGetShaderInfoLog, (GLuint shader, GLsizei size, GLsizei * length, GLchar * log)) \
    X(void, glDeleteShader, (GLuint shader))                                                 \
    X(GLuint, glCreateProgram, (void))                                                       \
    X(void, glAttachShader, (GLuint program, GLuint shader))                                 \
    X(void, glDetachShader, (GLuint program, GLuint shader))                                 \
    X(void, glLinkProgram, (GLuint program))                                                 \
    X(void, glGetProgramiv, (GLuint program, GLenum pname, GLint * params))                  \
    X(void, glGetProgramInfoLog,                                                             \
      (GLuint program, GLsizei size, GLsizei * length, GLchar * log))                        \
    X(void, glDeleteProgram, (GLuint program))                                               \
    X(void, glGetActiveUniformBlockiv,                                                       \
      (GLuint program, GLuint block, GLenum pname, GLint * params))                          \
    X(void, glGetActiveUniformBlockName,                                                     \
      (GLuint program, GLuint block, GLsizei size, GLsizei * length, GLchar * name))         \
    X(void, glUseProgram, (GLuint program))                                                  \
    X(GLint, glGetUniformLocation, (GLuint program, const GLchar *name))                     \
    X(void, glUniform1iv, (GLint location, GLsizei count, const GLint *value))               \
    X(void, glUniform4iv, (GLint location, GLsizei count, const GLint *value))               \
    X(void, glUniform1uiv, (GLint location, GLsizei count, const GLuint *value))             \
    X(void, glUniform4uiv, (GLint location, GLsizei count, const GLuint *value))             \
    X(void, glUniform1fv, (GLint location, GLsizei count, const GLfloat *value))             \
    X(void, glUniform2fv, (GLint location, GLsizei count, const GLfloat *value))             \
    X(void, glUniform3fv, (GLint location, GLsizei count, const GLfloat *value))             \
    X(void, glUniform4fv, (GLint location, GLsizei count, const GLfloat *value))             \
    X(void, glUniformMatrix4fv,                                                              \
      (GLint location, GLsizei count, GLboolean transpose, const GLfloat *value))            \
    X(void, glCreateVertexArrays, (GLsizei n, GLuint * arrays))                              \
    X(void, glDeleteVertexArrays, (GLsizei n, const GLuint *arrays))                         \
    X(void, glBindVertexArray, (GLuint array))                                               \
    X(void, glEnableVertexArrayAttrib, (GLuint vao, GLuint index))                           \
    X(void, glDisableVertexArrayAttrib, (GLuint vao, GLuint index))                          \
    X(void, glVertexArrayAttribFormat,                                                       \
      (GLuint vao, GLuint index, GLint size, GLenum type, GLboolean normalized,              \
       GLuint offset))                                                                       \
    X(void, glVertexArrayAttribIFormat,                                                      \
      (GLuint vao, GLuint index, GLint size, GLenum type, GLuint offset))                    \
    X(void, glVertexArrayAttribBinding, (GLuint vao, GLuint index, GLuint binding))          \
    X(void, glVertexArrayBindingDivisor, (GLuint vao, GLuint binding, GLuint divisor))       \
    X(void, glVertexArrayVertexBuffer,                                                       \
      (GLuint vao, GLuint binding, GLuint buffer, GLintptr offset, GLsizei stride))          \
    X(void, glVertexArrayElementBuffer, (GLuint vao, GLuint buffer))                         \
    X(void, glDrawArrays, (GLenum mode, GLint first, GLsizei count))                         \
    X(void, glDrawElements, (GLenum mode, GLsizei count, GLenum type, const void *indices))  \
    X(void, glDrawArraysInstancedBaseInstance,                                               \
      (GLenum mode, GLint first, GLsizei count, GLsizei instances, GLuint base_instance))    \
    X(void, glDrawElementsInstancedBaseVertexBaseInstance,                                   \
      (GLenum mode, GLsizei count, GLenum type, const void *indices, GLsizei instances,      \
       GLint base_vertex, GLuint base_instance))                                             \
    X(void, glDrawArraysIndirect, (GLenum mode, const void *indirect))                       \
    X(void, glDrawElementsIndirect, (GLenum mode, GLenum type, const void *indirect))        \
    X(void, glMultiDrawArraysIndirect,                                                       \
      (GLenum mode, const void *indirect, GLsizei count, GLsizei stride))                    \
    X(void, glMultiDrawElementsIndirect,                                                     \
      (GLenum mode, GLenum type, const void *indirect, GLsizei count, GLsizei stride))       \
    X(void, glDispatchCompute, (GLuint x, GLuint y, GLuint z))                               \
    X(void, glDispatchComputeIndirect, (GLintptr indirect))                                  \
    X(void, glMemoryBarrier, (GLbitfield barriers))                                          \
    X(GLsync, glFenceSync, (GLenum condition, GLbitfield flags))                             \
    X(GLenum, glClientWaitSync, (GLsync sync, GLbitfield flags, GLuint64 timeout))           \
    X(void, glDeleteSync, (GLsync sync))

// Entry points that exist only with a GL version or extension; loaded when
// the capability is present (see GLDevice), otherwise left null and unused.
#define HYPERGL_GL_OPTIONAL_FUNCTIONS(X)                                                     \
    X(void, glMultiDrawArraysIndirectCount,                                                  \
      (GLenum mode, const void *indirect, GLintptr drawcount, GLsizei maxcount,              \
       GLsizei stride))                                                                      \
    X(void, glMultiDrawElementsIndirectCount,                                                \
      (GLenum mode, GLenum type, const void *indirect, GLintptr drawcount, GLsizei maxcount, \
       GLsizei stride))                                                                      \
    X(GLuint64, glGetTextureHandleARB, (GLuint texture))                                     \
    X(void, glMakeTextureHandleResidentARB, (GLuint64 handle))                               \
    X(void, glMakeTextureHandleNonResidentARB, (GLuint64 handle))

// One member per entry point, named after it.
struct GLApi {
#define HYPERGL_GL_MEMBER(ret, name, args) ret(*name) args = nullptr;
    HYPERGL_GL_FUNCTIONS(HYPERGL_GL_MEMBER)
    HYPERGL_GL_OPTIONAL_FUNCTIONS(HYPERGL_GL_MEMBER)
#undef HYPERGL_GL_MEMBER
};

// Resolves a GL entry point by name; returns nullptr when the loader has none.
using GLLoader = std::function<void *(const char *)>;

// Fills every required entry of `api`. Throws std::runtime_error naming the
// first entry point the loader could not resolve at all.
void load_gl_api(GLApi &api, const GLLoader &loader);

// Resolves one optional entry point by name (nullptr if the loader has none).
void *load_optional(const GLLoader &loader, const char *name);

}  // namespace hypergl
