// Opening a shared library at run time and finding its symbols: dlopen on POSIX,
// LoadLibrary on Windows. The one place the engine touches the platform's loader.
#pragma once

#include <string>

namespace hypergl {

// The library's handle, or nullptr with `error` saying why.
void *open_library(const std::string &path, std::string &error);
// The symbol's address, or nullptr where the library has none.
void *library_symbol(void *handle, const char *name);
// The name libEGL goes by on this platform.
const char *default_egl_library();

}  // namespace hypergl
