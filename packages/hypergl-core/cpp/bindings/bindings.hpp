// Registration functions of the hypergl._core module, one per binding file.
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "hypergl/context.hpp"
#include "hypergl/gl_api.hpp"

void register_probe(nanobind::module_ &m);
void register_program(nanobind::module_ &m);
void register_context(nanobind::module_ &m);
void register_gl(nanobind::module_ &m);
void register_external(nanobind::module_ &m);
void register_engine_context(nanobind::module_ &m);
void register_egl(nanobind::module_ &m);

// The capability probe of the current GL context as a dict (bind_probe.cpp).
nanobind::dict probe_with(const hypergl::GLLoader &loader);

// A pipeline's vertex input as Python gives it: (binding, stride, extent, per_instance).
using VertexInputPart = std::tuple<uint32_t, uint32_t, uint32_t, bool>;

// Checked vertex inputs: bindings inside the ISA's range, each at most once.
inline std::vector<hypergl::VertexInput> vertex_inputs(const std::vector<VertexInputPart> &parts) {
    std::vector<hypergl::VertexInput> inputs;
    for (const auto &[binding, stride, extent, per_instance] : parts) {
        if (binding > hypergl::isa::kMaxBindingIndex)
            throw nanobind::value_error(
                ("vertex binding " + std::to_string(binding) + " is outside 0..63").c_str());
        for (const hypergl::VertexInput &seen : inputs)
            if (seen.binding == binding)
                throw nanobind::value_error(
                    ("vertex binding " + std::to_string(binding) + " appears twice").c_str());
        inputs.push_back(hypergl::VertexInput{binding, stride, extent, per_instance});
    }
    return inputs;
}

// Ctrl+C during a long GPU wait outside a run (finish, fence and readback
// waits): the check takes the GIL and runs Python's signal handlers; the
// KeyboardInterrupt they raise is kept and re-raised by rethrow().
class SignalCheck {
  public:
    SignalCheck()
        : check_([this] {
              nanobind::gil_scoped_acquire gil;
              if (PyErr_CheckSignals() == 0) return false;
              error_.emplace();  // takes the pending Python exception
              return true;
          }) {}
    SignalCheck(const SignalCheck &) = delete;
    SignalCheck &operator=(const SignalCheck &) = delete;
    const std::function<bool()> *get() const { return &check_; }
    // Call with the GIL held, after catching hypergl::Interrupted.
    [[noreturn]] void rethrow() {
        error_->restore();
        throw nanobind::python_error();
    }

  private:
    std::optional<nanobind::python_error> error_;
    std::function<bool()> check_;
};

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

// locked() for an action that uses `resources`: each is checked live and of
// this context under the lock (BindingError otherwise), the lock a release
// takes, so none can be released between the check and the use. Every entry
// point that touches a resource goes through here.
template <typename F, typename... R>
auto locked_with(hypergl::Context &context, F action, const R &...resources) {
    nanobind::gil_scoped_release unlocked;
    hypergl::Context::Entry entry(context);
    (context.check_live(resources), ...);
    return action();
}

// locked_with() for an action that makes no GL call (a CPU look at a
// resource): the lock and the checks, without making the GL context current.
template <typename F, typename... R>
auto guarded_with(hypergl::Context &context, F action, const R &...resources) {
    nanobind::gil_scoped_release unlocked;
    hypergl::Context::Lock lock(context);
    (context.check_live(resources), ...);
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
