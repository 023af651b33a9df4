// GL textures: single images, 2D arrays, cube maps (each with or without its mip chain)
// and texture sets (bindless where the driver has it), their formats, writes and release.
#include <algorithm>
#include <map>
#include <stdexcept>

#include "hypergl/formats_generated.hpp"
#include "hypergl/gl_resources.hpp"

namespace hypergl {

std::optional<TextureFormat> texture_format(const std::string &name) {
    static const std::map<std::string, TextureFormat> formats = {
#define HYPERGL_FORMAT(NAME, INTERNAL, FORMAT, TYPE, BYTES, DEPTH) \
    {NAME, {gl::INTERNAL, gl::FORMAT, gl::TYPE, BYTES, DEPTH}},
        HYPERGL_TEXTURE_FORMATS(HYPERGL_FORMAT)
#undef HYPERGL_FORMAT
    };
    auto found = formats.find(name);
    if (found == formats.end()) return std::nullopt;
    return found->second;
}

// Every level of a full mip chain down to 1x1.
static int mip_levels(int width, int height) {
    int levels = 1;
    for (int size = std::max(width, height); size > 1; size /= 2) ++levels;
    return levels;
}

std::shared_ptr<GLTexture> GLTexture::create(const std::shared_ptr<GLShared> &shared,
                                             const std::string &name, int width, int height,
                                             int layers, const TextureFormat &format,
                                             const uint8_t *pixels, uint64_t pixels_size,
                                             bool linear, GLenum wrap, bool mipmaps, bool cube,
                                             const std::vector<Level> &levels) {
    const GLApi &api = shared->api;
    if (cube && (layers != 6 || width != height))
        throw std::invalid_argument("cube texture '" + name + "' needs 6 square faces, got " +
                                    std::to_string(layers) + " of " + std::to_string(width) +
                                    "x" + std::to_string(height));
    const GLenum target = cube ? gl::TEXTURE_CUBE_MAP
                               : (layers > 0 ? gl::TEXTURE_2D_ARRAY : gl::TEXTURE_2D);
    const int count = mipmaps ? mip_levels(width, height) : 1;
    if (!levels.empty() && (!mipmaps || !pixels || int(levels.size()) != count - 1))
        throw std::invalid_argument("texture '" + name + "' needs level 0 and " +
                                    std::to_string(count - 1) + " more levels, got " +
                                    std::to_string(levels.size()));
    GLuint texture = 0;
    api.glCreateTextures(target, 1, &texture);
    if (layers > 0 && !cube)
        api.glTextureStorage3D(texture, count, format.internal, width, height, layers);
    else  // a cube map's storage is one face's size; its faces are 6 layers to write
        api.glTextureStorage2D(texture, count, format.internal, width, height);
    const bool smooth = linear && !format.depth;
    const GLint mag = static_cast<GLint>(smooth ? gl::LINEAR : gl::NEAREST);
    const GLint min = static_cast<GLint>(
        !mipmaps ? mag : (smooth ? gl::LINEAR_MIPMAP_LINEAR : gl::NEAREST_MIPMAP_NEAREST));
    api.glTextureParameteri(texture, gl::TEXTURE_MIN_FILTER, min);
    api.glTextureParameteri(texture, gl::TEXTURE_MAG_FILTER, mag);
    api.glTextureParameteri(texture, gl::TEXTURE_WRAP_S, static_cast<GLint>(wrap));
    api.glTextureParameteri(texture, gl::TEXTURE_WRAP_T, static_cast<GLint>(wrap));
    if (cube) api.glTextureParameteri(texture, gl::TEXTURE_WRAP_R, static_cast<GLint>(wrap));
    auto made = std::make_shared<GLTexture>(name, shared, texture, target, format, width,
                                            height, layers);
    made->mipmaps_ = mipmaps;
    try {
        if (pixels) made->upload(0, pixels, pixels_size);
        for (size_t i = 0; i < levels.size(); ++i)  // the caller's levels 1, 2, ... as given
            made->upload(int(i) + 1, levels[i].first, levels[i].second);
    } catch (...) {
        made->release();
        throw;
    }
    if (pixels && mipmaps && levels.empty()) api.glGenerateTextureMipmap(texture);
    shared->check_errors("creating a texture");
    return made;
}

void GLTexture::upload(int level, const uint8_t *pixels, uint64_t size) {
    const int width = std::max(width_ >> level, 1), height = std::max(height_ >> level, 1);
    const uint64_t needed = uint64_t(width) * uint64_t(height) *
                            uint64_t(layers_ > 0 ? layers_ : 1) * format_.bytes_per_pixel;
    if (size != needed)
        throw std::invalid_argument("texture '" + name() + "' level " + std::to_string(level) +
                                    " needs " + std::to_string(needed) + " bytes of pixels, got " +
                                    std::to_string(size));
    const GLApi &api = shared_->api;
    api.glPixelStorei(gl::UNPACK_ALIGNMENT, 1);
    if (layers_ > 0)  // a 2D array's layers, or a cube map's faces (as DSA writes them)
        api.glTextureSubImage3D(gl_, level, 0, 0, 0, width, height, layers_, format_.format,
                                format_.type, pixels);
    else
        api.glTextureSubImage2D(gl_, level, 0, 0, width, height, format_.format, format_.type,
                                pixels);
}

void GLTexture::write(const uint8_t *pixels, uint64_t size) {
    if (released()) throw std::invalid_argument("texture '" + name() + "' has been released");
    if (handle_buffer)
        throw std::invalid_argument("texture set '" + name() + "' cannot be rewritten");
    const GLApi &api = shared_->api;
    upload(0, pixels, size);
    if (mipmaps_) api.glGenerateTextureMipmap(gl_);  // caller-given levels too: remade
    shared_->check_errors("writing a texture");
}

std::shared_ptr<GLTexture> GLTexture::create_set(const std::shared_ptr<GLShared> &shared,
                                                 bool bindless, const std::string &name,
                                                 int width, int height, int count,
                                                 const TextureFormat &format,
                                                 const uint8_t *pixels, bool linear, GLenum wrap) {
    const uint64_t image_bytes = uint64_t(width) * uint64_t(height) * format.bytes_per_pixel;
    if (!bindless)
        return create(shared, name, width, height, count, format, pixels, image_bytes * count,
                              linear, wrap);
    // Bindless: one texture per image, their resident handles in a storage buffer.
    const GLApi &api = shared->api;
    auto set = std::make_shared<GLTexture>(name, shared, 0, 0, format, width, height, count);
    std::vector<std::shared_ptr<GLTexture>> members;
    for (int i = 0; i < count; ++i) {
        members.push_back(create(shared, name + "#" + std::to_string(i), width, height, 0, format,
                                         pixels + image_bytes * uint64_t(i), image_bytes, linear,
                                         wrap));
        const GLuint64 handle = api.glGetTextureHandleARB(members.back()->gl());
        api.glMakeTextureHandleResidentARB(handle);
        set->resident_handles.push_back(handle);
        set->member_textures.push_back(members.back()->gl());
    }
    set->handle_buffer = create_gl_buffer(
        shared,         name + "#handles", sizeof(GLuint64) * set->resident_handles.size(),
        reinterpret_cast<const uint8_t *>(set->resident_handles.data()),
        sizeof(GLuint64) * set->resident_handles.size());
    shared->check_errors("creating a bindless texture set");
    return set;
}

void GLTexture::release() {
    if (released()) return;
    Resource::release();
    for (GLuint64 handle : resident_handles) shared_->api.glMakeTextureHandleNonResidentARB(handle);
    resident_handles.clear();
    handle_buffer.reset();
    if (!member_textures.empty())
        shared_->api.glDeleteTextures(static_cast<GLsizei>(member_textures.size()),
                                      member_textures.data());
    member_textures.clear();
    if (gl_) shared_->api.glDeleteTextures(1, &gl_);
}

}  // namespace hypergl
