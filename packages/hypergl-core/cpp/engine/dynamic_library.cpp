// Run-time library loading for POSIX (dlopen) and Windows (LoadLibrary).
#include "hypergl/dynamic_library.hpp"

#ifdef _WIN32
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#else
#include <dlfcn.h>
#endif

namespace hypergl {

#ifdef _WIN32

void *open_library(const std::string &path, std::string &error) {
    HMODULE module = LoadLibraryA(path.c_str());
    if (!module) error = "LoadLibrary failed, Windows error " + std::to_string(GetLastError());
    return reinterpret_cast<void *>(module);
}

void *library_symbol(void *handle, const char *name) {
    return reinterpret_cast<void *>(GetProcAddress(static_cast<HMODULE>(handle), name));
}

// ANGLE's and Mesa's EGL builds for Windows both go by this name.
const char *default_egl_library() { return "libEGL.dll"; }

#else

void *open_library(const std::string &path, std::string &error) {
    void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        error = why ? why : "not found";
    }
    return handle;
}

void *library_symbol(void *handle, const char *name) { return dlsym(handle, name); }

const char *default_egl_library() { return "libEGL.so.1"; }

#endif

}  // namespace hypergl
