// Bounding indirect draws and dispatches: their counts are in buffer memory,
// written by the CPU, by a file's initial data or by a compute pass, so the
// interpreter cannot charge them to the submit's budgets from the instruction.
// Devices whose buffers are host memory (trace, null) let the interpreter read
// the commands and charge them before the call (cpu_indirect_cost); the gl
// device bounds them on the GPU (gl_indirect.hpp) and reports an overrun at the
// end of the submit (IndirectOverrun).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace hypergl {

// What an indirect command costs: vertices (count x instances) or work groups (x*y*z).
enum class IndirectKind : uint32_t { DRAW = 0, INDEXED = 1, DISPATCH = 2 };

// Bytes of one command of each kind (Draw[Elements|Arrays]IndirectCommand, DispatchIndirectCommand).
constexpr uint32_t indirect_command_size(IndirectKind kind) {
    return kind == IndirectKind::DRAW ? 16u : kind == IndirectKind::INDEXED ? 20u : 12u;
}

// What is left of the submit's budgets at an indirect call, and where it is.
struct IndirectLimits {
    uint64_t vertices_left, vertex_budget;
    uint64_t groups_left, group_budget;
    uint32_t instruction;
};

// An indirect call whose commands asked for more than was left: its commands
// ran as zero-sized draws (or dispatches), and the submit raises this.
struct IndirectOverrun {
    uint32_t instruction;
    bool groups;     // work groups (a dispatch) rather than vertices
    uint64_t asked;  // the call's total (saturated at 2**64 - 1)
    uint64_t left;   // what was left of the budget
    uint64_t budget;
};

inline uint64_t saturating_add(uint64_t a, uint64_t b) {
    const uint64_t sum = a + b;
    return sum < a ? UINT64_MAX : sum;
}

inline uint64_t saturating_mul(uint64_t a, uint64_t b) {
    uint64_t product;
    return __builtin_mul_overflow(a, b, &product) ? UINT64_MAX : product;
}

// The total cost of `count` commands of `kind` at `offset` of `data`, `stride`
// bytes apart (0: tightly packed). The caller has checked they lie inside it.
inline uint64_t cpu_indirect_cost(IndirectKind kind, const uint8_t *data, uint64_t offset,
                                  uint64_t count, uint64_t stride) {
    const uint64_t step = stride ? stride : indirect_command_size(kind);
    uint64_t total = 0;
    for (uint64_t i = 0; i < count; ++i) {
        uint32_t w[3];
        std::memcpy(w, data + offset + i * step, sizeof w);
        const uint64_t cost = kind == IndirectKind::DISPATCH
                                  ? saturating_mul(saturating_mul(w[0], w[1]), w[2])
                                  : uint64_t(w[0]) * w[1];
        total = saturating_add(total, cost);
    }
    return total;
}

}  // namespace hypergl
