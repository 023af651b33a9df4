// OpenGL objects behind the engine's resources, each created by its own
// factory (gl_memory.cpp, gl_texture.cpp, gl_pipeline.cpp, gl_framebuffer.cpp,
// gl_fence.cpp, gl_readback.cpp) on the context's thread and released there
// too. Buffer memory is a persistent, coherent mapping shared with NumPy
// arrays: when the last array dies after a release, the GL buffer is queued
// and deleted on the next call into the device, on the right thread.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "hypergl/gl_api.hpp"
#include "hypergl/resources.hpp"

namespace hypergl {

// What the device and the memory blocks that may outlive a release share.
struct GLShared {
    GLApi api;
    std::mutex mutex;
    bool alive = true;
    std::vector<GLuint> doomed_buffers;
    // Mappings still alive (a buffer's or only a NumPy array's): while any is,
    // the GL context must not be destroyed, or the arrays would dangle.
    std::atomic<int64_t> live_mappings{0};
    // Deletes queued buffers; call with the context current.
    void collect();
    // Throws std::runtime_error naming every pending GL error.
    void check_errors(const char *where) const;
};

// "GL_INVALID_ENUM", ... or the number in hex.
std::string gl_error_name(GLenum error);

// A shader that did not compile or a program that did not link; what() holds
// the driver's log.
class ShaderError : public std::runtime_error {
    using std::runtime_error::runtime_error;
};

class GLMemory final : public Memory {
  public:
    GLMemory(std::shared_ptr<GLShared> shared, GLuint name, uint8_t *mapped, uint64_t size);
    ~GLMemory() override;
    GLuint gl() const { return name_; }

  private:
    std::shared_ptr<GLShared> shared_;
    GLuint name_;
};

// The GL name of a live buffer (its memory is a GLMemory on the gl device).
GLuint gl_buffer_name(const Buffer &buffer);

// A buffer of `size` bytes, persistently mapped for reading and writing,
// holding a copy of `data` (`data_size` bytes, may be null).
std::shared_ptr<Buffer> create_gl_buffer(const std::shared_ptr<GLShared> &shared,
                                         const std::string &name, uint64_t size,
                                         const uint8_t *data, uint64_t data_size);

struct TextureFormat {
    GLenum internal;
    GLenum format;
    GLenum type;
    uint32_t bytes_per_pixel;
    bool depth;
};

// The format of a texture by its HyperGL name ("rgba8", "r32f", "depth24", ...).
std::optional<TextureFormat> texture_format(const std::string &name);

class GLTexture final : public Resource {
  public:
    GLTexture(std::string name, std::shared_ptr<GLShared> shared, GLuint gl, GLenum target,
              TextureFormat format, int width, int height, int layers)
        : Resource(isa::ResourceKind::TEXTURE, std::move(name)), shared_(std::move(shared)),
          gl_(gl), target_(target), format_(format), width_(width), height_(height),
          layers_(layers) {}
    // A 2D texture (or a 2D array of `layers` > 0, or with `cube` a cube map whose
    // 6 `layers` are its faces in GL's order +x -x +y -y +z -z), with `pixels` if
    // given. `mipmaps`: the full chain of levels, made from level 0 at every write,
    // sampled trilinearly (LINEAR_MIPMAP_LINEAR) when `linear`; at creation `levels`
    // (each (pixels, bytes), every level after 0, each half the last down to 1x1)
    // give the chain instead of glGenerateTextureMipmap making it.
    using Level = std::pair<const uint8_t *, uint64_t>;
    static std::shared_ptr<GLTexture> create(const std::shared_ptr<GLShared> &shared,
                                             const std::string &name, int width, int height,
                                             int layers, const TextureFormat &format,
                                             const uint8_t *pixels, uint64_t pixels_size,
                                             bool linear, GLenum wrap, bool mipmaps = false,
                                             bool cube = false,
                                             const std::vector<Level> &levels = {});
    // N same-sized images sampled by index: bindless handles in a storage
    // buffer where the driver has them, a 2D array texture otherwise.
    static std::shared_ptr<GLTexture> create_set(const std::shared_ptr<GLShared> &shared,
                                                 bool bindless, const std::string &name,
                                                 int width, int height, int count,
                                                 const TextureFormat &format,
                                                 const uint8_t *pixels, bool linear, GLenum wrap);
    // Replaces every pixel of level 0 (all layers; `size` is checked) and remakes
    // the mip chain from it, even one the caller gave at creation.
    void write(const uint8_t *pixels, uint64_t size);
    void release() override;
    GLuint gl() const { return gl_; }
    GLenum target() const { return target_; }
    const TextureFormat &format() const { return format_; }
    int width() const { return width_; }
    int height() const { return height_; }
    int layers() const { return layers_; }
    bool mipmaps() const { return mipmaps_; }

    // Bindless handle storage (texture sets on drivers with ARB_bindless_texture).
    std::vector<GLuint64> resident_handles;
    std::vector<GLuint> member_textures;
    std::shared_ptr<Buffer> handle_buffer;

  private:
    std::shared_ptr<GLShared> shared_;
    GLuint gl_;
    GLenum target_;
    TextureFormat format_;
    int width_, height_, layers_;
    bool mipmaps_ = false;
    // Writes one level's pixels (all layers); `size` is checked against that level.
    void upload(int level, const uint8_t *pixels, uint64_t size);
};

struct VertexAttribute {
    GLuint location;
    GLuint binding;
    GLint components;
    GLenum type;
    bool normalized;
    bool integer;
    GLuint offset;
};

struct VertexBinding {
    GLuint binding;
    GLsizei stride;
    GLuint divisor;
};

struct PipelineState {
    GLenum topology = 0x0004;
    bool depth_test = false;
    bool depth_write = true;
    GLenum depth_func = 0x0201;
    bool blend = false;
    GLenum cull = 0;  // 0: none, else GL_FRONT / GL_BACK
    GLenum front_face = 0x0901;
    GLuint clip_distances = 0;  // GL_CLIP_DISTANCE0 .. this - 1 enabled (gl_ClipDistance[])
    bool multisample = true;    // false: rasterized as one sample, written to every one
    std::vector<VertexAttribute> attributes;
    std::vector<VertexBinding> bindings;
};

class GLPipeline final : public Pipeline {
  public:
    GLPipeline(std::string name, std::shared_ptr<GLShared> shared, GLuint program,
               bool compute, PipelineState state, std::vector<VertexInput> inputs,
               std::vector<UniformBlock> blocks)
        : Pipeline(std::move(name), std::move(inputs), std::move(blocks)),
          shared_(std::move(shared)),
          program_(program), compute_(compute), state_(std::move(state)) {}
    // Compiles and links the shaders (compute, or vertex + optional fragment);
    // throws ShaderError with the driver's log.
    static std::shared_ptr<GLPipeline> create(const std::shared_ptr<GLShared> &shared,
                                              const std::string &name,
                                              const std::string &vertex_shader,
                                              const std::string &fragment_shader,
                                              const std::string &compute_shader,
                                              PipelineState state,
                                              std::vector<VertexInput> inputs);
    void release() override;
    GLuint program() const { return program_; }
    bool compute() const { return compute_; }
    const PipelineState &state() const { return state_; }
    // Stride of vertex buffer `binding` in this pipeline's layout (0 if unused).
    GLsizei stride_of(GLuint binding) const;

  private:
    std::shared_ptr<GLShared> shared_;
    GLuint program_;
    bool compute_;
    PipelineState state_;
};

class GLFramebuffer final : public Resource {
  public:
    GLFramebuffer(std::string name, std::shared_ptr<GLShared> shared, GLuint fbo, int width,
                  int height, std::vector<std::shared_ptr<GLTexture>> colors,
                  std::shared_ptr<GLTexture> depth)
        : Resource(isa::ResourceKind::FRAMEBUFFER, std::move(name)), shared_(std::move(shared)),
          fbo_(fbo), width_(width), height_(height), colors_(std::move(colors)),
          depth_(std::move(depth)) {}
    // Colour textures of `colors` plus an optional depth texture; throws
    // std::invalid_argument when the driver finds it incomplete. `samples` > 0: drawn
    // into multisampled textures (colour, sample_colors()) and a renderbuffer (depth),
    // resolved into single-sampled textures (those of colors() and depth()) by resolve(),
    // which every read of its pixels runs first.
    static std::shared_ptr<GLFramebuffer> create(const std::shared_ptr<GLShared> &shared,
                                                 const std::string &name, int width, int height,
                                                 const std::vector<TextureFormat> &colors,
                                                 const std::optional<TextureFormat> &depth,
                                                 int samples = 0);
    // The window's own framebuffer (GL name 0).
    static std::shared_ptr<GLFramebuffer> create_default(const std::shared_ptr<GLShared> &shared,
                                                         const std::string &name, int width,
                                                         int height);
    void release() override;
    GLuint fbo() const { return fbo_; }
    int width() const { return width_; }
    int height() const { return height_; }
    int samples() const { return samples_; }
    const std::vector<std::shared_ptr<GLTexture>> &colors() const { return colors_; }
    const std::shared_ptr<GLTexture> &depth() const { return depth_; }
    // Multisampled: the colour attachments drawn into, multisampled textures (a shader
    // reads their samples with texelFetch on a sampler2DMS); empty otherwise.
    const std::vector<std::shared_ptr<GLTexture>> &sample_colors() const {
        return sample_colors_;
    }
    // Multisampled: resolves `attachment` (0-3 colour, 4 depth) into the single-sampled
    // framebuffer and returns that one's name, what a read reads; else fbo().
    GLuint resolve(uint32_t attachment);
    // Copies every colour attachment into `destination`'s, and the depth where it has one
    // (single-sampled, of this size and formats; multisampled: resolved, colour averaged,
    // one sample's depth); throws std::invalid_argument naming the mismatch otherwise.
    void copy_into(GLFramebuffer &destination);
    // Reports the default framebuffer's size after a window resize.
    void resize(int width, int height) {
        width_ = width;
        height_ = height;
    }

  private:
    static std::shared_ptr<GLFramebuffer> create_multisampled(
        const std::shared_ptr<GLShared> &shared, const std::string &name, int width, int height,
        const std::vector<TextureFormat> &colors, const std::optional<TextureFormat> &depth,
        int samples);
    std::shared_ptr<GLShared> shared_;
    GLuint fbo_;  // 0: the window's default framebuffer
    int width_, height_;
    std::vector<std::shared_ptr<GLTexture>> colors_;
    std::shared_ptr<GLTexture> depth_;
    int samples_ = 0;
    std::vector<GLuint> renderbuffers_;  // the multisampled depth attachment
    std::vector<std::shared_ptr<GLTexture>> sample_colors_;  // the multisampled colours
    std::shared_ptr<GLFramebuffer> resolved_;  // where they resolve to (samples_ > 0)
};

// Waits up to `timeout_ns` for `sync` (flushing first), in 10 ms slices when
// `stop` is given, asking it between slices: throws Interrupted when it says
// so (Ctrl+C during a long GPU wait). Returns glClientWaitSync's last result.
GLenum client_wait(const GLApi &api, GLsync sync, uint64_t timeout_ns,
                   const std::function<bool()> *stop);

// Waits for everything submitted so far, through a fence in slices (`stop` as for
// client_wait). Every CPU wait of ours goes through it before a GL call that would
// wait inside the driver, where no slice can end it: a synchronous glReadPixels, a
// glMemoryBarrier (llvmpipe's is a glFinish), a swap.
void wait_idle(const GLApi &api, const std::function<bool()> *stop);

class GLFence final : public Resource {
  public:
    GLFence(std::string name, std::shared_ptr<GLShared> shared)
        : Resource(isa::ResourceKind::FENCE, std::move(name)), shared_(std::move(shared)) {}
    void release() override;
    void signal();
    // True when signalled within `timeout_ns` (also when never signalled);
    // `stop` as for client_wait().
    bool wait(uint64_t timeout_ns, const std::function<bool()> *stop = nullptr);
    // True when signalled now (also when never signalled); never waits.
    bool ready();

  private:
    std::shared_ptr<GLShared> shared_;
    GLsync sync_ = nullptr;
};

// A ring of persistently mapped pixel-pack buffers: read_framebuffer writes
// frame k into slot k % depth with a fence; the CPU reads a frame once its
// fence has passed, one or more frames later, without stalling the GPU.
class GLReadback final : public Resource {
  public:
    GLReadback(std::string name, std::shared_ptr<GLShared> shared, int width, int height,
               int components, uint32_t attachment, int depth);
    static std::shared_ptr<GLReadback> create(const std::shared_ptr<GLShared> &shared,
                                              const std::string &name, int width, int height,
                                              int components, uint32_t attachment, int depth);
    void release() override;
    int width() const { return width_; }
    int height() const { return height_; }
    int components() const { return components_; }
    uint32_t attachment() const { return attachment_; }
    uint64_t frame_bytes() const { return frame_bytes_; }
    // Read without the lock (Python's frames_written); written under it.
    uint64_t frames_written() const { return written_.load(std::memory_order_relaxed); }
    int depth() const { return static_cast<int>(slots_.size()); }

    // Issues the read of `framebuffer` into the next ring slot (waiting, if the
    // CPU never took the frame in that slot, for its read to finish).
    void capture(GLFramebuffer &framebuffer, const std::function<bool()> *stop = nullptr);
    // Waits for frame `frame` (< frames_written, not yet overwritten) and
    // returns its mapped bytes (rows bottom-up, as GL stores them).
    const uint8_t *frame(uint64_t frame, uint64_t timeout_ns,
                         const std::function<bool()> *stop = nullptr);

  private:
    struct Slot {
        GLuint pbo = 0;
        uint8_t *mapped = nullptr;
        GLsync fence = nullptr;
    };
    std::shared_ptr<GLShared> shared_;
    int width_, height_, components_;
    uint32_t attachment_;
    uint64_t frame_bytes_;
    std::atomic<uint64_t> written_{0};
    std::vector<Slot> slots_;
};

// Binds `framebuffer` for reading `attachment` (0..3 colour, 4 depth);
// returns the (format, type) of glReadPixels.
std::pair<GLenum, GLenum> prepare_read(const GLApi &api, GLFramebuffer &framebuffer,
                                       uint32_t attachment, int components, bool float_pixels);

// A rectangle of a framebuffer in GL's coordinates (origin bottom-left).
struct PixelRect {
    int x, y, width, height;
};

// Reads `rect` of attachment `attachment` (0..3 colour, 4 depth) of
// `framebuffer` into caller memory: `components` 1..4 of uint8 (colour) or
// float32 depth, rows bottom-up. Throws std::invalid_argument when the rect
// leaves the framebuffer or `size` is smaller than the read.
void read_pixels(const GLApi &api, GLFramebuffer &framebuffer, uint32_t attachment,
                 int components, bool float_pixels, PixelRect rect, uint8_t *out, uint64_t size);

}  // namespace hypergl
