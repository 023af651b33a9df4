// Headless OpenGL through EGL, with libEGL loaded at run time (dlopen), so the
// extension imports on machines without EGL and needs no EGL headers to build.
//
// EGLLibrary is the loaded function table; list_egl_devices enumerates the
// machine's EGL devices (EGL_EXT_device_enumeration); HeadlessContext makes a
// GL core context on a device display (EGL_EXT_platform_device), else the
// surfaceless platform (EGL_MESA_platform_surfaceless), else the default
// display, and makes it current on whichever thread enters it.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "hypergl/engine_gl_context.hpp"

namespace hypergl {

// No EGL library, no usable display or device, or a context that could not be
// made or made current. The message says what was tried and what to install.
class EGLFailure : public std::runtime_error {
    using std::runtime_error::runtime_error;
};

namespace egl {
using Boolean = unsigned int;
using Int = int32_t;
using Enum = unsigned int;
using Attrib = std::intptr_t;
using Display = void *;
using Config = void *;
using Surface = void *;
using ContextHandle = void *;
using Device = void *;
}  // namespace egl

// The EGL entry points HyperGL uses. Core ones come from dlsym, extension
// ones from eglGetProcAddress (null where the implementation lacks them).
struct EGLLibrary {
    std::string path;
    void *handle = nullptr;
    void *(*GetProcAddress)(const char *) = nullptr;
    egl::Int (*GetError)() = nullptr;
    const char *(*QueryString)(egl::Display, egl::Int) = nullptr;
    egl::Display (*GetDisplay)(void *) = nullptr;
    egl::Boolean (*Initialize)(egl::Display, egl::Int *, egl::Int *) = nullptr;
    egl::Boolean (*BindAPI)(egl::Enum) = nullptr;
    egl::Boolean (*ChooseConfig)(egl::Display, const egl::Int *, egl::Config *, egl::Int,
                                 egl::Int *) = nullptr;
    egl::ContextHandle (*CreateContext)(egl::Display, egl::Config, egl::ContextHandle,
                                        const egl::Int *) = nullptr;
    egl::Boolean (*DestroyContext)(egl::Display, egl::ContextHandle) = nullptr;
    egl::Surface (*CreatePbufferSurface)(egl::Display, egl::Config, const egl::Int *) = nullptr;
    egl::Boolean (*DestroySurface)(egl::Display, egl::Surface) = nullptr;
    egl::Boolean (*MakeCurrent)(egl::Display, egl::Surface, egl::Surface,
                                egl::ContextHandle) = nullptr;
    egl::ContextHandle (*GetCurrentContext)() = nullptr;
    egl::Display (*GetCurrentDisplay)() = nullptr;
    egl::Surface (*GetCurrentSurface)(egl::Int) = nullptr;
    // Extensions (EGL_EXT_platform_base, EGL_EXT_device_*):
    egl::Display (*GetPlatformDisplayEXT)(egl::Enum, void *, const egl::Int *) = nullptr;
    egl::Boolean (*QueryDevicesEXT)(egl::Int, egl::Device *, egl::Int *) = nullptr;
    const char *(*QueryDeviceStringEXT)(egl::Device, egl::Int) = nullptr;
    egl::Boolean (*QueryDeviceAttribEXT)(egl::Device, egl::Int, egl::Attrib *) = nullptr;

    // Client extensions (EGL_EXT_client_extensions), "" where not supported.
    std::string client_extensions;

    // The library named by $HYPERGL_EGL_LIBRARY, else libEGL.so.1. Throws EGLFailure.
    static std::shared_ptr<EGLLibrary> load();
    ~EGLLibrary();
    bool has_client_extension(const char *name) const;
    // "EGL error 0x300C (EGL_BAD_PARAMETER)" for the last error of this thread.
    std::string last_error() const;
};

// Whether the space-separated extension `list` names `name` exactly.
bool extension_listed(const std::string &list, const char *name);

// What one EGL device says about itself; empty strings where it does not say.
struct EGLDeviceInfo {
    int index = 0;
    std::string extensions;
    std::string vendor;      // EGL_EXT_device_query_name
    std::string renderer;    // EGL_EXT_device_query_name
    std::string driver;      // EGL_EXT_device_persistent_id
    std::string drm_device;  // EGL_EXT_device_drm
    std::string drm_render_node;  // EGL_EXT_device_drm_render_node
    int cuda_device = -1;    // EGL_NV_device_cuda, -1 where absent
    bool software = false;   // EGL_MESA_device_software
};

// The raw device handles, in the order EGL lists them (throws EGLFailure).
std::vector<egl::Device> query_egl_devices(const EGLLibrary &library);

// Every EGL device, in the order EGL lists them. Throws EGLFailure when the
// library has no device enumeration.
std::vector<EGLDeviceInfo> list_egl_devices(const EGLLibrary &library);

// A headless GL context. Enter it (Context's lock held) to make it current on
// the calling thread; leave it to put back what that thread had current.
class HeadlessContext final : public EngineGLContext {
  public:
    // `device_index` picks one EGL device (an index into list_egl_devices);
    // none tries each device, then surfaceless, then the default display.
    explicit HeadlessContext(std::optional<int> device_index);
    ~HeadlessContext() override;
    HeadlessContext(const HeadlessContext &) = delete;
    HeadlessContext &operator=(const HeadlessContext &) = delete;

    void enter() override;
    void leave() noexcept override;
    // Destroys the EGL context; a later enter() throws. Idempotent.
    void destroy();
    bool destroyed() const;

    // eglGetProcAddress, for the GL entry points (call while entered).
    GLLoader loader() const override;

    const std::string &platform() const { return platform_; }  // "device", "surfaceless", "default"
    int device_index() const { return device_index_; }  // -1 unless on the device platform
    int major() const { return major_; }  // the version asked for (0: driver default)
    int minor() const { return minor_; }
    bool robust_access() const { return robust_; }
    const std::string &display_extensions() const { return display_extensions_; }

  private:
    bool open_display(egl::Display display, std::string platform, int device_index,
                      std::string &why);
    bool create_context(std::string &why);

    std::shared_ptr<EGLLibrary> library_;
    mutable std::mutex mutex_;  // destroy() against enter()
    egl::Display display_ = nullptr;
    egl::Config config_ = nullptr;
    egl::Surface surface_ = nullptr;  // a 1x1 pbuffer where surfaceless contexts are missing
    egl::ContextHandle context_ = nullptr;
    std::string platform_;
    std::string display_extensions_;
    int device_index_ = -1;
    int major_ = 0, minor_ = 0;
    bool robust_ = false;
    // What enter() found current on this thread, put back by leave().
    egl::Display previous_display_ = nullptr;
    egl::Surface previous_draw_ = nullptr, previous_read_ = nullptr;
    egl::ContextHandle previous_context_ = nullptr;
    bool made_current_ = false;
};

}  // namespace hypergl
