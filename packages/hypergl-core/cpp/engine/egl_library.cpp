// Loading libEGL at run time and naming its errors.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "hypergl/dynamic_library.hpp"
#include "hypergl/egl.hpp"

namespace hypergl {

namespace {

constexpr egl::Int kExtensions = 0x3055;

const char *error_name(egl::Int code) {
    switch (code) {
        case 0x3000: return "EGL_SUCCESS";
        case 0x3001: return "EGL_NOT_INITIALIZED";
        case 0x3002: return "EGL_BAD_ACCESS";
        case 0x3003: return "EGL_BAD_ALLOC";
        case 0x3004: return "EGL_BAD_ATTRIBUTE";
        case 0x3005: return "EGL_BAD_CONFIG";
        case 0x3006: return "EGL_BAD_CONTEXT";
        case 0x3007: return "EGL_BAD_CURRENT_SURFACE";
        case 0x3008: return "EGL_BAD_DISPLAY";
        case 0x3009: return "EGL_BAD_MATCH";
        case 0x300A: return "EGL_BAD_NATIVE_PIXMAP";
        case 0x300B: return "EGL_BAD_NATIVE_WINDOW";
        case 0x300C: return "EGL_BAD_PARAMETER";
        case 0x300D: return "EGL_BAD_SURFACE";
        case 0x300E: return "EGL_CONTEXT_LOST";
        case 0x322B: return "EGL_BAD_DEVICE_EXT";
        default: return "unknown";
    }
}

template <typename F>
void bind(void *handle, F &target, const char *name, const std::string &path) {
    target = reinterpret_cast<F>(library_symbol(handle, name));
    if (!target)
        throw EGLFailure(path + " has no " + name + ": it is not a complete EGL library");
}

template <typename F>
void bind_extension(const EGLLibrary &library, F &target, const char *name) {
    target = reinterpret_cast<F>(library.GetProcAddress(name));
}

}  // namespace

std::shared_ptr<EGLLibrary> EGLLibrary::load() {
    auto library = std::make_shared<EGLLibrary>();
    const char *chosen = std::getenv("HYPERGL_EGL_LIBRARY");
    library->path = (chosen && *chosen) ? chosen : default_egl_library();
    std::string why;
    library->handle = open_library(library->path, why);
    if (!library->handle) {
        throw EGLFailure("could not load the EGL library " + library->path + " (" + why +
                         "). On Debian/Ubuntu: apt install libegl1 libgl1-mesa-dri libegl-mesa0 "
                         "(Mesa, software rendering) or the GPU vendor's driver");
    }
    const std::string &path = library->path;
    void *h = library->handle;
    bind(h, library->GetProcAddress, "eglGetProcAddress", path);
    bind(h, library->GetError, "eglGetError", path);
    bind(h, library->QueryString, "eglQueryString", path);
    bind(h, library->GetDisplay, "eglGetDisplay", path);
    bind(h, library->Initialize, "eglInitialize", path);
    bind(h, library->BindAPI, "eglBindAPI", path);
    bind(h, library->ChooseConfig, "eglChooseConfig", path);
    bind(h, library->CreateContext, "eglCreateContext", path);
    bind(h, library->DestroyContext, "eglDestroyContext", path);
    bind(h, library->CreatePbufferSurface, "eglCreatePbufferSurface", path);
    bind(h, library->DestroySurface, "eglDestroySurface", path);
    bind(h, library->MakeCurrent, "eglMakeCurrent", path);
    bind(h, library->GetCurrentContext, "eglGetCurrentContext", path);
    bind(h, library->GetCurrentDisplay, "eglGetCurrentDisplay", path);
    bind(h, library->GetCurrentSurface, "eglGetCurrentSurface", path);
    // EGL_NO_DISPLAY: the client extensions (null, with an error, where unsupported).
    const char *client = library->QueryString(nullptr, kExtensions);
    library->client_extensions = client ? client : "";
    if (!client) library->GetError();  // clear EGL_BAD_DISPLAY
    if (library->has_client_extension("EGL_EXT_platform_base"))
        bind_extension(*library, library->GetPlatformDisplayEXT, "eglGetPlatformDisplayEXT");
    if (library->has_client_extension("EGL_EXT_device_base") ||
        library->has_client_extension("EGL_EXT_device_enumeration")) {
        bind_extension(*library, library->QueryDevicesEXT, "eglQueryDevicesEXT");
        bind_extension(*library, library->QueryDeviceStringEXT, "eglQueryDeviceStringEXT");
        bind_extension(*library, library->QueryDeviceAttribEXT, "eglQueryDeviceAttribEXT");
    }
    return library;
}

// The library stays loaded: drivers register exit handlers and thread-local
// state that must not outlive their code.
EGLLibrary::~EGLLibrary() = default;

bool EGLLibrary::has_client_extension(const char *name) const {
    return extension_listed(client_extensions, name);
}

std::string EGLLibrary::last_error() const {
    const egl::Int code = GetError();
    char hex[16];
    std::snprintf(hex, sizeof hex, "0x%04X", static_cast<unsigned>(code));
    return std::string("EGL error ") + hex + " (" + error_name(code) + ")";
}

bool extension_listed(const std::string &list, const char *name) {
    const size_t length = std::strlen(name);
    for (size_t at = list.find(name); at != std::string::npos; at = list.find(name, at + 1)) {
        const bool starts = at == 0 || list[at - 1] == ' ';
        const bool ends = at + length == list.size() || list[at + length] == ' ';
        if (starts && ends) return true;
    }
    return false;
}

}  // namespace hypergl
