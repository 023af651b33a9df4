// hypergl._core.EngineGLContext (what EGLContext and ForeignGLContext share: the
// entry points and the probe of a context the engine makes current itself) and
// ForeignGLContext, the hidden GLFW window's context of the fallback.
#include <nanobind/stl/string.h>

#include "bindings.hpp"
#include "errors.hpp"
#include "hypergl/foreign_gl_context.hpp"

namespace nb = nanobind;
using namespace hypergl;

namespace {

template <typename T>
T from_address(std::uintptr_t address) {
    return reinterpret_cast<T>(address);
}

}  // namespace

void register_engine_context(nb::module_ &m) {
    register_context_error<ContextFailure>();

    nb::class_<EngineGLContext>(m, "EngineGLContext",
                                "An OpenGL context the engine makes current itself.")
        .def(
            "proc_address",
            [](const EngineGLContext &c, const std::string &name) {
                return reinterpret_cast<std::uintptr_t>(c.loader()(name.c_str()));
            },
            nb::arg("name"), "The GL entry point `name` as an int (0 where unknown).")
        .def(
            "probe",
            [](EngineGLContext &c) {
                c.enter();
                struct Leave {
                    EngineGLContext &c;
                    ~Leave() { c.leave(); }
                } leave{c};
                return probe_with(c.loader());
            },
            "The capability probe of this context (made current for it).");

    nb::class_<ForeignGLContext, EngineGLContext>(
        m, "ForeignGLContext",
        "Another library's OpenGL context (GLFW), entered through its C functions.")
        .def(
            "__init__",
            [](ForeignGLContext *self, std::uintptr_t make_current, std::uintptr_t get_current,
               std::uintptr_t get_proc_address, std::uintptr_t handle) {
                ForeignGLFunctions functions;
                functions.make_current = from_address<void (*)(void *)>(make_current);
                functions.get_current = from_address<void *(*)()>(get_current);
                functions.get_proc_address =
                    from_address<void *(*)(const char *)>(get_proc_address);
                new (self) ForeignGLContext(functions, reinterpret_cast<void *>(handle));
            },
            nb::arg("make_current"), nb::arg("get_current"), nb::arg("get_proc_address"),
            nb::arg("handle"),
            "Addresses of glfwMakeContextCurrent, glfwGetCurrentContext and "
            "glfwGetProcAddress, and the GLFWwindow*.")
        .def_prop_ro("destroyed", &ForeignGLContext::destroyed,
                     nb::call_guard<nb::gil_scoped_release>())
        .def("destroy", &ForeignGLContext::destroy, nb::call_guard<nb::gil_scoped_release>(),
             "Let go of the context and forget the window; using it afterwards raises "
             "ContextError.");
}
