// Registration functions of the hypergl._core module, one per binding file.
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>
#include <mutex>

#include "hypergl/context.hpp"
#include "hypergl/gl_api.hpp"

void register_probe(nanobind::module_ &m);
void register_program(nanobind::module_ &m);
void register_context(nanobind::module_ &m);
void register_gl(nanobind::module_ &m);
void register_external(nanobind::module_ &m);
void register_egl(nanobind::module_ &m);

// The capability probe of the current GL context as a dict (bind_probe.cpp).
nanobind::dict probe_with(const hypergl::GLLoader &loader);

// Runs `action` on the context with the GIL released, its lock held and its
// GL context current on this thread (the lock is always taken without the
// GIL, so a run that needs the GIL for a signal check cannot deadlock against
// a thread waiting for the lock).
template <typename F>
auto locked(hypergl::Context &context, F action) {
    nanobind::gil_scoped_release unlocked;
    hypergl::Context::Entry entry(context);
    return action();
}

// Adapts a Python callable `name -> int address` (glfw.get_proc_address,
// SDL_GL_GetProcAddress) to the engine's loader type.
// Runs with the GIL held.
inline hypergl::GLLoader python_loader(nanobind::callable load) {
    return [load](const char *name) -> void * {
        nanobind::object address = load(name);
        return reinterpret_cast<void *>(nanobind::cast<std::uintptr_t>(address));
    };
}
