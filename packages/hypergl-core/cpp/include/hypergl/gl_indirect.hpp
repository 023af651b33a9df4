// Indirect draws and dispatches bounded on the GPU, the way WebGPU
// implementations do it (Dawn's and wgpu's indirect validation: a compute pass
// over the commands before they execute): their counts may have been written
// by a compute pass a moment earlier, so the CPU cannot read them without a
// stall. Before each indirect call a one-workgroup compute shader reads its
// commands (a count variant's count clamped to its maximum), totals their
// vertices (count x instances) or work groups (x * y * z) in 64 bits and
// writes a copy into an engine-owned scratch buffer: the commands unchanged
// when the total fits what is left of the submit's budget, each zeroed (no
// instances, no groups) when it does not, and the first such call recorded.
// The device then draws (or dispatches) from the copy; at the end of a submit
// that made indirect calls, it waits for the GPU and reports the overrun.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "hypergl/gl_resources.hpp"
#include "hypergl/indirect.hpp"

namespace hypergl {

class GLIndirect {
  public:
    explicit GLIndirect(std::shared_ptr<GLShared> shared) : shared_(std::move(shared)) {}
    ~GLIndirect();
    GLIndirect(const GLIndirect &) = delete;
    GLIndirect &operator=(const GLIndirect &) = delete;

    // Where the checked copy of one call's commands lies in the scratch buffer:
    // the (clamped) count at `count_offset`, the commands from `commands_offset`.
    struct Copy {
        GLuint buffer;
        GLintptr count_offset;
        GLintptr commands_offset;
    };

    // Checks `count` commands of `kind` at `offset` of `source` (`stride`
    // bytes apart, 0: packed), the count variants' count at `count_offset` of
    // `counts` (0: none), against `limits`. Binds its own program and storage
    // bindings 0..3: the caller restores its own.
    Copy check(IndirectKind kind, GLuint source, uint64_t offset, uint32_t count, uint32_t stride,
               GLuint counts, uint32_t count_offset, const IndirectLimits &limits);
    // True when this submit made checked calls (their results are pending).
    bool pending() const { return !calls_.empty(); }
    // The first overrun of this submit's calls; call after the GPU finished them.
    std::optional<IndirectOverrun> take_overrun();

    static constexpr GLuint kFirstBinding = 0;  // storage bindings 0..3 are used
    static constexpr GLuint kBindings = 4;

  private:
    void ensure_program();
    GLintptr allocate(uint64_t bytes);

    std::shared_ptr<GLShared> shared_;
    GLuint program_ = 0;
    GLint shape_location_ = -1, call_location_ = -1, left_location_ = -1;
    GLuint scratch_ = 0;
    uint64_t capacity_ = 0, used_ = 0;
    GLuint state_ = 0;
    uint32_t *state_words_ = nullptr;  // persistently mapped
    std::vector<IndirectLimits> calls_;  // this submit's, by call index
    std::vector<bool> call_groups_;
};

}  // namespace hypergl
