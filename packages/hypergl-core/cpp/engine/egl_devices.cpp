// Enumerating EGL devices (EGL_EXT_device_enumeration) and what each says
// about itself (EGL_EXT_device_query and the extensions that extend it).
#include "hypergl/egl.hpp"

namespace hypergl {

namespace {

constexpr egl::Int kExtensions = 0x3055;
constexpr egl::Int kVendor = 0x3053;
constexpr egl::Int kRendererEXT = 0x335F;
constexpr egl::Int kDriverNameEXT = 0x335E;
constexpr egl::Int kDrmDeviceFileEXT = 0x3233;
constexpr egl::Int kDrmRenderNodeFileEXT = 0x3377;
constexpr egl::Int kCudaDeviceNV = 0x323A;
constexpr egl::Int kMaxDevices = 64;

std::string device_string(const EGLLibrary &library, egl::Device device, egl::Int name) {
    const char *value = library.QueryDeviceStringEXT(device, name);
    if (!value) {
        library.GetError();  // clear EGL_BAD_PARAMETER
        return "";
    }
    return value;
}

}  // namespace

std::vector<egl::Device> query_egl_devices(const EGLLibrary &library) {
    if (!library.QueryDevicesEXT || !library.QueryDeviceStringEXT)
        throw EGLFailure(library.path + " cannot list devices (no EGL_EXT_device_enumeration)");
    egl::Device devices[kMaxDevices];
    egl::Int count = 0;
    if (!library.QueryDevicesEXT(kMaxDevices, devices, &count))
        throw EGLFailure("eglQueryDevicesEXT failed: " + library.last_error());
    return std::vector<egl::Device>(devices, devices + count);
}

std::vector<EGLDeviceInfo> list_egl_devices(const EGLLibrary &library) {
    std::vector<EGLDeviceInfo> out;
    const std::vector<egl::Device> devices = query_egl_devices(library);
    for (size_t i = 0; i < devices.size(); ++i) {
        EGLDeviceInfo info;
        info.index = static_cast<int>(i);
        info.extensions = device_string(library, devices[i], kExtensions);
        const auto has = [&](const char *name) { return extension_listed(info.extensions, name); };
        if (has("EGL_EXT_device_query_name")) {
            info.vendor = device_string(library, devices[i], kVendor);
            info.renderer = device_string(library, devices[i], kRendererEXT);
        }
        if (has("EGL_EXT_device_persistent_id"))
            info.driver = device_string(library, devices[i], kDriverNameEXT);
        if (has("EGL_EXT_device_drm"))
            info.drm_device = device_string(library, devices[i], kDrmDeviceFileEXT);
        if (has("EGL_EXT_device_drm_render_node"))
            info.drm_render_node = device_string(library, devices[i], kDrmRenderNodeFileEXT);
        if (has("EGL_NV_device_cuda") && library.QueryDeviceAttribEXT) {
            egl::Attrib cuda = -1;
            if (library.QueryDeviceAttribEXT(devices[i], kCudaDeviceNV, &cuda))
                info.cuda_device = static_cast<int>(cuda);
            else
                library.GetError();  // a GPU that CUDA does not see
        }
        info.software = has("EGL_MESA_device_software");
        out.push_back(std::move(info));
    }
    return out;
}

}  // namespace hypergl
