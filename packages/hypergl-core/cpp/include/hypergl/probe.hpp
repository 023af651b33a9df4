// Reads what the current GL context is: version, renderer, extensions, limits.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "hypergl/gl_api.hpp"

namespace hypergl {

struct ProbeResult {
    std::string version;        // GL_VERSION as the driver spells it
    std::string renderer;       // GL_RENDERER
    std::string vendor;         // GL_VENDOR
    std::string glsl_version;   // GL_SHADING_LANGUAGE_VERSION
    int major = 0;
    int minor = 0;
    bool core_profile = false;
    std::vector<std::string> extensions;
    std::map<std::string, long long> limits;  // GL_MAX_* values by short name
};

// Needs a current context whose entry points are in `api`.
ProbeResult probe_context(const GLApi &api);

}  // namespace hypergl
