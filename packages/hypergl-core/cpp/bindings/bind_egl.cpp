// hypergl._core.EGLContext and egl_devices: the engine's own headless EGL
// context, and the machine's EGL devices. EGL failures become
// hypergl.ContextError.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>

#include "bindings.hpp"
#include "errors.hpp"
#include "hypergl/egl.hpp"

namespace nb = nanobind;
using namespace hypergl;

namespace {

nb::list egl_devices() {
    std::vector<EGLDeviceInfo> devices;
    {
        nb::gil_scoped_release unlocked;
        devices = list_egl_devices(*EGLLibrary::load());
    }
    nb::list out;
    for (const EGLDeviceInfo &device : devices) {
        nb::dict entry;
        entry["index"] = device.index;
        entry["extensions"] = device.extensions;
        entry["vendor"] = device.vendor;
        entry["renderer"] = device.renderer;
        entry["driver"] = device.driver;
        entry["drm_device"] = device.drm_device;
        entry["drm_render_node"] = device.drm_render_node;
        entry["cuda_device"] = device.cuda_device;
        entry["software"] = device.software;
        out.append(entry);
    }
    return out;
}

}  // namespace

void register_egl(nb::module_ &m) {
    register_context_error<EGLFailure>();

    nb::class_<HeadlessContext, EngineGLContext>(m, "EGLContext",
                                "A headless OpenGL context the engine made through EGL.")
        .def(nb::init<std::optional<int>>(), nb::arg("device_index").none(),
             nb::call_guard<nb::gil_scoped_release>())
        .def_prop_ro("platform", &HeadlessContext::platform)
        .def_prop_ro("device_index", &HeadlessContext::device_index)
        .def_prop_ro("major", &HeadlessContext::major)
        .def_prop_ro("minor", &HeadlessContext::minor)
        .def_prop_ro("robust_access", &HeadlessContext::robust_access)
        .def_prop_ro("display_extensions", &HeadlessContext::display_extensions)
        .def_prop_ro("destroyed", &HeadlessContext::destroyed)
        .def("destroy", &HeadlessContext::destroy, nb::call_guard<nb::gil_scoped_release>(),
             "Destroy the EGL context; using it afterwards raises ContextError.");

    m.def("egl_devices", &egl_devices,
          "The machine's EGL devices: a dict per device, in EGL's order.");
}
