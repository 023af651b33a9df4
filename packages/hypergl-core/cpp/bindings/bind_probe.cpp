// hypergl._core.probe: the capability probe of the current GL context.
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "hypergl/gl_api.hpp"
#include "hypergl/probe.hpp"

namespace nb = nanobind;

nb::dict probe_with(const hypergl::GLLoader &loader) {
    hypergl::GLApi api;
    hypergl::load_gl_api(api, loader);
    hypergl::ProbeResult result = hypergl::probe_context(api);
    nb::dict out;
    out["version"] = result.version;
    out["renderer"] = result.renderer;
    out["vendor"] = result.vendor;
    out["glsl_version"] = result.glsl_version;
    out["major"] = result.major;
    out["minor"] = result.minor;
    out["core_profile"] = result.core_profile;
    out["extensions"] = result.extensions;
    out["limits"] = result.limits;
    return out;
}

namespace {

nb::dict probe(nb::callable load) { return probe_with(python_loader(std::move(load))); }

}  // namespace

void register_probe(nb::module_ &m) {
    m.def("probe", &probe, nb::arg("load"),
          "Probe the current GL context. `load(name) -> int` resolves entry points.");
}
