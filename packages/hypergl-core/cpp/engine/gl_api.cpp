#include "hypergl/gl_api.hpp"

#include <stdexcept>

namespace hypergl {

void load_gl_api(GLApi &api, const GLLoader &loader) {
#define HYPERGL_GL_LOAD(ret, name, args)                                           \
    {                                                                              \
        void *address = loader(#name);                                             \
        if (address == nullptr)                                                    \
            throw std::runtime_error("OpenGL entry point " #name " is missing");  \
        api.name = reinterpret_cast<ret(*) args>(address);                        \
    }
    HYPERGL_GL_FUNCTIONS(HYPERGL_GL_LOAD)
#undef HYPERGL_GL_LOAD
}

void *load_optional(const GLLoader &loader, const char *name) { return loader(name); }

}  // namespace hypergl
