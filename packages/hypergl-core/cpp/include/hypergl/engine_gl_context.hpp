// A GL context that the engine itself makes current on the calling thread at each
// entry (under the Context's lock) and whose GL entry points it resolves without
// Python: headless EGL (egl.hpp) or another library's context, such as the hidden
// GLFW window of the fallback (foreign_gl_context.hpp).
#pragma once

#include <stdexcept>

#include "hypergl/context.hpp"
#include "hypergl/gl_api.hpp"

namespace hypergl {

class EngineGLContext : public CurrentContext {
  public:
    // The GL entry point resolver (call while entered).
    virtual GLLoader loader() const = 0;
};

// A context that cannot be made current, or is used after it was destroyed.
class ContextFailure : public std::runtime_error {
    using std::runtime_error::runtime_error;
};

}  // namespace hypergl
