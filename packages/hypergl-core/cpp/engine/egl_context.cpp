// A headless GL context: choosing the display, creating the newest core
// context the driver gives, and making it current on the thread that enters.
#include <cstdlib>
#include <utility>

#include "hypergl/egl.hpp"

namespace hypergl {

namespace {

constexpr egl::Int kNone = 0x3038;
constexpr egl::Int kExtensions = 0x3055;
constexpr egl::Int kSurfaceType = 0x3033, kPbufferBit = 0x0001;
constexpr egl::Int kRenderableType = 0x3040, kOpenGLBit = 0x0008;
constexpr egl::Int kWidth = 0x3057, kHeight = 0x3056;
constexpr egl::Int kDraw = 0x3059, kRead = 0x305A;
constexpr egl::Enum kOpenGLAPI = 0x30A2;
constexpr egl::Enum kPlatformDeviceEXT = 0x313F;
constexpr egl::Enum kPlatformSurfacelessMESA = 0x31DD;
constexpr egl::Int kContextMajorVersion = 0x3098, kContextMinorVersion = 0x30FB;
constexpr egl::Int kContextProfileMask = 0x30FD, kCoreProfileBit = 0x1;
// EGL_EXT_create_context_robustness
constexpr egl::Int kRobustAccessEXT = 0x30BF;
constexpr egl::Int kResetStrategyEXT = 0x3138, kLoseContextOnResetEXT = 0x31BF;
// EGL_KHR_context_flush_control: leaving the context need not flush it,
// since the next entry (on any thread) continues the same command stream.
constexpr egl::Int kReleaseBehaviorKHR = 0x2097, kReleaseBehaviorNoneKHR = 0;

// Newest first; {0, 0} asks for no version: whatever the driver gives.
constexpr std::pair<int, int> kVersions[] = {{4, 6}, {4, 5}, {4, 4}, {4, 3}, {0, 0}};

const char *const kInstallHint =
    ". On Debian/Ubuntu: apt install libegl1 libgl1-mesa-dri libegl-mesa0 (Mesa, software "
    "rendering) or the GPU vendor's driver";

}  // namespace

HeadlessContext::HeadlessContext(std::optional<int> device_index)
    : library_(EGLLibrary::load()) {
    const EGLLibrary &lib = *library_;
    std::string tried;
    const auto attempt = [&](egl::Display display, std::string platform, int index) {
        std::string why;
        if (open_display(display, platform, index, why) && create_context(why)) return true;
        tried += "\n  " + platform + (index >= 0 ? " " + std::to_string(index) : "") + ": " + why;
        return false;
    };
    const bool device_platform = lib.GetPlatformDisplayEXT &&
                                 lib.has_client_extension("EGL_EXT_platform_device") &&
                                 lib.QueryDevicesEXT;
    if (device_index) {
        if (!device_platform)
            throw EGLFailure(lib.path + " has no EGL device platform (EGL_EXT_platform_device), "
                             "so device_index=" + std::to_string(*device_index) +
                             " cannot be chosen");
        const std::vector<egl::Device> devices = query_egl_devices(lib);
        if (*device_index < 0 || *device_index >= static_cast<int>(devices.size()))
            throw EGLFailure("EGL device " + std::to_string(*device_index) +
                             " does not exist: this machine has " +
                             std::to_string(devices.size()) + " EGL device(s)" +
                             (devices.empty() ? "" : ", 0.." + std::to_string(devices.size() - 1)));
        if (attempt(lib.GetPlatformDisplayEXT(kPlatformDeviceEXT, devices[*device_index], nullptr),
                    "device", *device_index))
            return;
        throw EGLFailure("could not create an OpenGL context on EGL device " +
                         std::to_string(*device_index) + ":" + tried);
    }
    if (device_platform) {
        std::vector<egl::Device> devices;
        try {
            devices = query_egl_devices(lib);
        } catch (const EGLFailure &error) {
            tried += std::string("\n  devices: ") + error.what();
        }
        for (size_t i = 0; i < devices.size(); ++i)
            if (attempt(lib.GetPlatformDisplayEXT(kPlatformDeviceEXT, devices[i], nullptr),
                        "device", static_cast<int>(i)))
                return;
        if (devices.empty()) tried += "\n  device: EGL lists no devices";
    }
    if (lib.GetPlatformDisplayEXT && lib.has_client_extension("EGL_MESA_platform_surfaceless") &&
        attempt(lib.GetPlatformDisplayEXT(kPlatformSurfacelessMESA, nullptr, nullptr),
                "surfaceless", -1))
        return;
    if (attempt(lib.GetDisplay(nullptr), "default display", -1)) return;
    throw EGLFailure("could not create a headless OpenGL context through " + lib.path + ":" +
                     tried + kInstallHint);
}

HeadlessContext::~HeadlessContext() {
    try {
        destroy();
    } catch (...) {  // a destructor must not throw; the process keeps going
    }
}

bool HeadlessContext::open_display(egl::Display display, std::string platform, int device_index,
                                   std::string &why) {
    const EGLLibrary &lib = *library_;
    if (!display) {
        why = "no display (" + lib.last_error() + ")";
        return false;
    }
    egl::Int major = 0, minor = 0;
    if (!lib.Initialize(display, &major, &minor)) {
        why = "eglInitialize failed (" + lib.last_error() + ")";
        return false;
    }
    if (!lib.BindAPI(kOpenGLAPI)) {
        why = "no desktop OpenGL (eglBindAPI: " + lib.last_error() + ")";
        return false;
    }
    const char *extensions = lib.QueryString(display, kExtensions);
    display_ = display;
    display_extensions_ = extensions ? extensions : "";
    platform_ = std::move(platform);
    device_index_ = device_index;
    return true;
}

bool HeadlessContext::create_context(std::string &why) {
    const EGLLibrary &lib = *library_;
    const auto has = [&](const char *name) { return extension_listed(display_extensions_, name); };
    const bool surfaceless = has("EGL_KHR_surfaceless_context");
    const egl::Int config_attributes[] = {kSurfaceType, kPbufferBit, kRenderableType, kOpenGLBit,
                                          kNone};
    egl::Int count = 0;
    config_ = nullptr;
    if (!lib.ChooseConfig(display_, config_attributes, &config_, 1, &count) || count < 1) {
        lib.GetError();
        config_ = nullptr;
        if (!surfaceless || !has("EGL_KHR_no_config_context")) {
            why = "no OpenGL configuration with pbuffers";
            return false;
        }
    }
    // HYPERGL_EGL_ROBUST=0 asks for a plain context (a driver whose robust
    // contexts are slow or broken); llvmpipe showed no cost (benchmarks/egl_robust.py).
    const char *robust_setting = std::getenv("HYPERGL_EGL_ROBUST");
    const bool robustness = has("EGL_EXT_create_context_robustness") &&
                            !(robust_setting && std::string(robust_setting) == "0");
    const bool flush_control = has("EGL_KHR_context_flush_control");
    std::string last;
    // Robust access with a reset notification, robust access alone (llvmpipe
    // refuses any reset strategy), then none.
    enum Robustness { kRobustWithReset, kRobustOnly, kNotRobust };
    for (const Robustness level : {kRobustWithReset, kRobustOnly, kNotRobust}) {
        const bool robust = level != kNotRobust;
        if (robust && !robustness) continue;
        for (const auto &[major, minor] : kVersions) {
            egl::Int attributes[16];
            int n = 0;
            if (major) {
                attributes[n++] = kContextMajorVersion;
                attributes[n++] = major;
                attributes[n++] = kContextMinorVersion;
                attributes[n++] = minor;
                attributes[n++] = kContextProfileMask;
                attributes[n++] = kCoreProfileBit;
            }
            if (robust) {
                attributes[n++] = kRobustAccessEXT;
                attributes[n++] = 1;
            }
            if (level == kRobustWithReset) {
                attributes[n++] = kResetStrategyEXT;
                attributes[n++] = kLoseContextOnResetEXT;
            }
            if (flush_control) {
                attributes[n++] = kReleaseBehaviorKHR;
                attributes[n++] = kReleaseBehaviorNoneKHR;
            }
            attributes[n] = kNone;
            context_ = lib.CreateContext(display_, config_, nullptr, attributes);
            if (context_) {
                major_ = major;
                minor_ = minor;
                robust_ = robust;
                break;
            }
            last = lib.last_error();
        }
        if (context_) break;
    }
    if (!context_) {
        why = "eglCreateContext refused every OpenGL version from 4.6 down (" + last + ")";
        return false;
    }
    if (!surfaceless) {
        const egl::Int size[] = {kWidth, 1, kHeight, 1, kNone};
        surface_ = lib.CreatePbufferSurface(display_, config_, size);
        if (!surface_) {
            why = "no surfaceless contexts and no pbuffer (" + lib.last_error() + ")";
            lib.DestroyContext(display_, context_);
            context_ = nullptr;
            return false;
        }
    }
    return true;
}

void HeadlessContext::enter() {
    std::lock_guard<std::mutex> lock(mutex_);
    const EGLLibrary &lib = *library_;
    if (!context_) throw EGLFailure("this context has been closed");
    previous_context_ = lib.GetCurrentContext();
    if (previous_context_ == context_) return;  // already current here: nothing to undo
    previous_display_ = lib.GetCurrentDisplay();
    previous_draw_ = lib.GetCurrentSurface(kDraw);
    previous_read_ = lib.GetCurrentSurface(kRead);
    if (!lib.MakeCurrent(display_, surface_, surface_, context_))
        throw EGLFailure("could not make the OpenGL context current on this thread: " +
                         lib.last_error());
    made_current_ = true;
}

void HeadlessContext::leave() noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!made_current_) return;
    made_current_ = false;
    const EGLLibrary &lib = *library_;
    if (previous_context_)
        lib.MakeCurrent(previous_display_, previous_draw_, previous_read_, previous_context_);
    else
        lib.MakeCurrent(display_, nullptr, nullptr, nullptr);
}

void HeadlessContext::destroy() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!context_) return;
    const EGLLibrary &lib = *library_;
    // EGL frees a context current on another thread when that thread lets go.
    if (lib.GetCurrentContext() == context_) lib.MakeCurrent(display_, nullptr, nullptr, nullptr);
    lib.DestroyContext(display_, context_);
    if (surface_) lib.DestroySurface(display_, surface_);
    context_ = nullptr;
    surface_ = nullptr;
    // The display stays initialised: other contexts (ours or another
    // library's) may share it, and eglTerminate would end them too.
}

bool HeadlessContext::destroyed() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return context_ == nullptr;
}

GLLoader HeadlessContext::loader() const {
    auto library = library_;
    return [library](const char *name) { return library->GetProcAddress(name); };
}

}  // namespace hypergl
