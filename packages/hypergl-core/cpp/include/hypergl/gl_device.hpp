// The OpenGL device: runs the interpreter's calls on a real GL 4.5+ context
// (direct state access). The GL objects behind resources are made by their
// own factories (gl_resources.hpp) from this device's shared() state.
// Every call happens on the thread where the context is current, with the
// context's lock held.
#pragma once

#include <memory>
#include <optional>
#include <unordered_set>
#include <stdexcept>
#include <string>
#include <vector>

#include "hypergl/device.hpp"
#include "hypergl/gl_indirect.hpp"
#include "hypergl/gl_resources.hpp"

namespace hypergl {

struct GLFeatures {
    bool indirect_count = false;       // GL 4.6 or ARB_indirect_parameters
    bool indirect_count_arb = false;   // use the ARB entry points
    bool bindless_textures = false;    // ARB_bindless_texture
    // A software renderer (llvmpipe): the GPU is the CPU, and a texture write, a copy, a
    // read into a pixel-pack buffer or a memory barrier waits for all drawing inside the
    // driver, where Ctrl+C cannot end it (see before_driver_wait).
    bool waits_in_driver = false;
};

class GLDevice final : public Device {
  public:
    GLDevice(const GLLoader &loader, GLFeatures features);
    ~GLDevice() override;
    const char *name() const override { return "gl"; }
    const GLFeatures &features() const { return features_; }
    const GLApi &api() const { return shared_->api; }
    // What the resources made for this device share with it (see gl_resources.hpp).
    const std::shared_ptr<GLShared> &shared() const { return shared_; }
    int64_t live_mappings() const { return shared_->live_mappings.load(); }

    // Makes GPU writes visible to mapped memory and waits for the GPU; `stop`
    // (may be null) can end the wait (client_wait: throws Interrupted).
    void finish(const std::function<bool()> *stop = nullptr);
    // Start the GPU on everything submitted, without waiting (glFlush).
    void flush();
    // Before a call that a software renderer runs only once all drawing is done (a
    // texture write, a copy, a barrier, a read into a pixel-pack buffer): there, waits
    // for the GPU in slices first (`stop`: Ctrl+C); a hardware GPU needs no wait.
    void before_driver_wait(const std::function<bool()> *stop);
    // Deletes buffers whose last NumPy view died after their release.
    void collect() { shared_->collect(); }
    // Throws std::runtime_error naming every pending GL error.
    void check_errors(const char *where) { shared_->check_errors(where); }

    // --- Device -------------------------------------------------------------------------
    void begin_run() override;
    void end_run() override;
    void check_after_run() override { check_errors("during the run"); }
    void discard_errors() override;
    HYPERGL_DEVICE_CALLS(HYPERGL_OVERRIDE_DEVICE_CALL)
    void prepare_cpu_read(Buffer &buffer) override;
    bool indirect_on_gpu(const Buffer &commands, const Buffer *counts) const override {
        return gpu_written_.count(&commands) || (counts && gpu_written_.count(counts));
    }
    void indirect_limits(const IndirectLimits &limits) override { limits_ = limits; }
    std::optional<IndirectOverrun> indirect_overrun() override;

  private:
    // Makes GPU writes visible to mapped memory and waits for them (sliced: Ctrl+C,
    // through the run's stop check, or `stop`).
    void sync_cpu();
    void sync_cpu(const std::function<bool()> *stop);
    // Where an indirect call reads its commands (and count): the program's own
    // buffers, or the GPU-checked copy (GLIndirect) bound at `target` when they
    // may have been written on the GPU; the program's state is restored after
    // the check. done() puts the program's indirect buffer back.
    struct IndirectSource {
        bool checked;
        GLintptr commands_offset;
        GLsizei stride;
        GLuint counts;
        GLintptr count_offset;
    };
    IndirectSource indirect_source(IndirectKind kind, GLenum target, uint32_t offset,
                                   uint32_t count, uint32_t stride, bool counted,
                                   uint32_t count_offset);
    void done(const IndirectSource &source, GLenum target);
    // Buffers the GPU may have written since the CPU last synchronised: what is
    // bound for storage now (rebuilt at each sync), and copy destinations.
    void forget_gpu_writes();
    void apply_vertex_layout(const GLPipeline &pipeline);
    void set_clip_distances(GLuint count);
    void set_multisample(bool on);
    void rebind_vertex_buffer(GLuint binding);
    void reset_state();
    GLenum topology() const;

    std::shared_ptr<GLShared> shared_;
    GLFeatures features_;
    GLuint vao_ = 0;
    // Current state, as the device last set it.
    GLPipeline *pipeline_ = nullptr;
    GLFramebuffer *framebuffer_ = nullptr;
    Buffer *parameter_ = nullptr;  // the interpreter checks one is bound before count draws
    Buffer *indirect_ = nullptr;   // and an indirect buffer before indirect calls
    // What the program bound at the storage bindings the indirect check borrows.
    struct StorageBinding {
        GLuint buffer = 0;
        GLintptr offset = 0;
        GLsizeiptr size = 0;  // 0: the whole buffer
    } storage_[GLIndirect::kBindings];
    GLIndirect indirect_check_;
    IndirectLimits limits_{};
    Buffer *storage_buffers_[isa::kMaxBindingIndex + 1] = {};
    std::unordered_set<const Buffer *> gpu_written_;
    Buffer *vertex_buffers_[isa::kMaxBindingIndex + 1] = {};
    uint64_t enabled_attributes_ = 0;
    GLuint clip_distances_ = 0;  // GL_CLIP_DISTANCE0 .. this - 1 are enabled
    bool multisample_ = true;    // GL_MULTISAMPLE (GL's default: enabled)
    bool gpu_wrote_ = false;  // draws or dispatches since the CPU last synchronised
    // Bindings this run made (bit i: binding or unit i), undone at its end.
    struct Touched {
        uint64_t vertex = 0, uniform = 0, storage = 0, texture = 0;
        bool index = false, indirect = false;
    } touched_;
};

}  // namespace hypergl
