// The OpenGL device: runs the interpreter's calls on a real GL 4.5+ context
// (direct state access), and creates the GL objects behind resources.
// Every call happens on the thread where the context is current, with the
// context's lock held.
#pragma once

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "hypergl/device.hpp"
#include "hypergl/gl_resources.hpp"

namespace hypergl {

// A shader that did not compile or a program that did not link; what() holds
// the driver's log.
class ShaderError : public std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct GLFeatures {
    bool indirect_count = false;       // GL 4.6 or ARB_indirect_parameters
    bool indirect_count_arb = false;   // use the ARB entry points
    bool bindless_textures = false;    // ARB_bindless_texture
};

// The format of a texture by its HyperGL name ("rgba8", "r32f", "depth24", ...).
std::optional<TextureFormat> texture_format(const std::string &name);

class GLDevice final : public Device {
  public:
    GLDevice(const GLLoader &loader, GLFeatures features);
    ~GLDevice() override;
    const char *name() const override { return "gl"; }
    const GLFeatures &features() const { return features_; }
    const GLApi &api() const { return shared_->api; }
    int64_t live_mappings() const { return shared_->live_mappings.load(); }

    // --- factories -------------------------------------------------------------------
    std::shared_ptr<Buffer> create_buffer(const std::string &name, uint64_t size,
                                          const uint8_t *data, uint64_t data_size);
    std::shared_ptr<GLTexture> create_texture(const std::string &name, int width, int height,
                                              int layers, const TextureFormat &format,
                                              const uint8_t *pixels, uint64_t pixels_size,
                                              bool linear, GLenum wrap);
    // N same-sized images sampled by index: bindless handles in a storage
    // buffer where the driver has them, a 2D array texture otherwise.
    // Replaces every pixel of `texture` (all layers); `size` is checked.
    void write_texture(GLTexture &texture, const uint8_t *pixels, uint64_t size);
    std::shared_ptr<GLTexture> create_texture_set(const std::string &name, int width, int height,
                                                  int count, const TextureFormat &format,
                                                  const uint8_t *pixels, bool linear,
                                                  GLenum wrap);
    std::shared_ptr<GLPipeline> create_pipeline(const std::string &name,
                                                const std::string &vertex_shader,
                                                const std::string &fragment_shader,
                                                const std::string &compute_shader,
                                                PipelineState state);
    std::shared_ptr<GLFramebuffer> create_framebuffer(const std::string &name, int width,
                                                      int height,
                                                      const std::vector<TextureFormat> &colors,
                                                      const std::optional<TextureFormat> &depth);
    std::shared_ptr<GLFramebuffer> create_default_framebuffer(const std::string &name, int width,
                                                              int height);
    std::shared_ptr<GLFence> create_fence(const std::string &name);
    std::shared_ptr<GLReadback> create_readback(const std::string &name, int width, int height,
                                                int components, uint32_t attachment, int depth);

    // Makes GPU writes visible to mapped memory and waits for the GPU.
    void finish();
    // Deletes buffers whose last NumPy view died after their release.
    void collect() { shared_->collect(); }
    // Throws std::runtime_error naming every pending GL error.
    void check_errors(const char *where);

    // --- Device -------------------------------------------------------------------------
    void begin_run() override;
    void end_run() override;
    void check_after_run() override { check_errors("during the run"); }
    void clear(const float rgba_depth[5], uint32_t mask, uint32_t stencil) override;
    void bind_pipeline(Resource &pipeline) override;
    void bind_framebuffer(Resource &framebuffer) override;
    void bind_vertex_buffer(uint32_t binding, Buffer &buffer) override;
    void bind_index_buffer(Buffer &buffer) override;
    void bind_uniform_buffer(uint32_t binding, Buffer &buffer) override;
    void bind_storage_buffer(uint32_t binding, Buffer &buffer) override;
    void bind_indirect_buffer(Buffer &buffer) override;
    void bind_parameter_buffer(Buffer &buffer) override;
    void bind_texture(uint32_t unit, Resource &texture) override;
    void viewport(int32_t x, int32_t y, int32_t width, int32_t height) override;
    void uniform(uint32_t location, uint32_t type, const void *data) override;
    void draw(uint32_t count, uint32_t first, uint32_t instances) override;
    void draw_indexed(uint32_t index_type, uint32_t count, uint32_t first,
                      uint32_t instances) override;
    void draw_indirect(uint32_t offset) override;
    void draw_indexed_indirect(uint32_t index_type, uint32_t offset) override;
    void multi_draw_indirect(uint32_t offset, uint32_t count, uint32_t stride) override;
    void multi_draw_indexed_indirect(uint32_t index_type, uint32_t offset, uint32_t count,
                                     uint32_t stride) override;
    void multi_draw_indirect_count(uint32_t offset, uint32_t count_offset,
                                   uint32_t max_count) override;
    void multi_draw_indexed_indirect_count(uint32_t index_type, uint32_t offset,
                                           uint32_t count_offset, uint32_t max_count) override;
    void dispatch(uint32_t x, uint32_t y, uint32_t z) override;
    void dispatch_indirect(uint32_t offset) override;
    void barrier(uint32_t bits) override;
    void copy_buffer(Buffer &source, Buffer &destination, uint32_t source_offset,
                     uint32_t destination_offset, uint32_t size) override;
    void fence_signal(Resource &fence) override;
    bool fence_wait(Resource &fence, uint32_t timeout_us) override;
    void read_framebuffer(uint32_t attachment, Resource &readback, Resource &framebuffer) override;
    void upload(ExternalSource &source, Buffer &destination) override;
    void prepare_cpu_read(Buffer &buffer) override;

  private:
    GLuint compile(GLenum stage, const std::string &source, const char *stage_name);
    void apply_vertex_layout(const GLPipeline &pipeline);
    void rebind_vertex_buffer(GLuint binding);
    GLenum topology() const;

    std::shared_ptr<GLShared> shared_;
    GLFeatures features_;
    GLuint vao_ = 0;
    // Current state, as the device last set it.
    GLPipeline *pipeline_ = nullptr;
    GLFramebuffer *framebuffer_ = nullptr;
    Buffer *parameter_ = nullptr;  // the interpreter checks one is bound before count draws
    Buffer *vertex_buffers_[isa::kMaxBindingIndex + 1] = {};
    uint64_t enabled_attributes_ = 0;
    bool gpu_wrote_ = false;  // draws or dispatches since the CPU last synchronised
};

}  // namespace hypergl
