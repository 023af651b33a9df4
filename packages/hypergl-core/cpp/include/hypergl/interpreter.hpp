// Runs a verified program against a device. Static operands are trusted (the
// verifier has checked them); dynamic ones (register-computed offsets, stack
// and call depth, division by zero, bound state of draws, the vertex ranges
// of draws against their vertex and index buffers, the budgets) are checked
// here and raise VMFailure with the instruction's index and mnemonic.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "hypergl/device.hpp"
#include "hypergl/program.hpp"

namespace hypergl {

struct RunStats {
    uint64_t instructions = 0;
    uint64_t draws = 0;
    uint64_t dispatches = 0;
    uint64_t binds_issued = 0;
    uint64_t binds_skipped = 0;
    uint64_t device_calls = 0;
    // print and dump instructions whose text was formatted (none past a debug sink's cut)
    uint64_t debug_formatted = 0;
};

struct RunOptions {
    // Instructions allowed before the run fails with "budget exhausted".
    uint64_t budget = UINT64_MAX;
    // Vertices the draws of the run may ask for, counted as vertices x instances
    // of each direct draw (indirect draws read their counts on the GPU).
    uint64_t vertex_budget = UINT64_MAX;
    // Compute work groups the dispatches of the run may run, x * y * z summed.
    uint64_t group_budget = UINT64_MAX;
    // Called about every 10 ms of running (checked each 1024 instructions);
    // returning true stops the run by throwing Interrupted.
    std::function<bool()> should_stop;
    // Ask the device for errors after every instruction, so that an error is
    // reported at the instruction that caused it (slow: for debugging).
    bool check_each_instruction = false;
    // The context's clock, read by get_time and get_delta (seconds).
    float time = 0.0f;
    float delta = 0.0f;
    // gen_rand's generator: its state at the start; receives the advanced state
    // (the caller keeps it between submits). Null: a generator seeded with 0.
    uint64_t *random_state = nullptr;
    // Where print and dump write, cut at debug_limit bytes (null: nowhere).
    std::string *debug_output = nullptr;
    size_t debug_limit = isa::kDebugOutputLimit;
};

// `slots[i]` is the live resource bound to slot i; the caller has checked that
// each is of the slot's kind, not released, and (buffers) large enough.
// `registers` holds the initial values and receives the final ones.
RunStats run_program(const ProgramImage &program, Resource *const *slots, Device &device,
                     uint32_t registers[isa::kNumRegisters], const RunOptions &options);

}  // namespace hypergl
