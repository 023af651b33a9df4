// The GPU check of indirect commands (see gl_indirect.hpp).
#include "hypergl/gl_indirect.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace hypergl {
namespace {

// One workgroup: 64 invocations total the commands (each a strided share, in
// 64-bit pairs that saturate), invocation 0 decides against what is left,
// then all copy their share, zeroed when the total does not fit.
constexpr const char *kShader = R"(#version 430
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Source { uint src[]; };
layout(std430, binding = 1) readonly buffer Counts { uint counts[]; };
layout(std430, binding = 2) writeonly buffer Scratch { uint dst[]; };
layout(std430, binding = 3) buffer State { uint state[]; };
// shape: first word, stride in words, words per command, most commands
// call: count word in Counts (~0u: none), first output word, call index, 1 for work groups
// left: what is left of the budget (low, high)
uniform uvec4 shape;
uniform uvec4 call;
uniform uvec4 left;
shared uvec2 parts[64];
shared uint keep;

const uvec2 SATURATED = uvec2(0xFFFFFFFFu);

uvec2 add64(uvec2 a, uvec2 b) {
    uint c0, c1, c2;
    uint lo = uaddCarry(a.x, b.x, c0);
    uint hi = uaddCarry(a.y, b.y, c1);
    hi = uaddCarry(hi, c0, c2);
    return (c1 | c2) != 0u ? SATURATED : uvec2(lo, hi);
}
uvec2 mul64(uvec2 a, uint b) {
    uint h0, l0, h1, l1, c;
    umulExtended(a.x, b, h0, l0);
    umulExtended(a.y, b, h1, l1);
    uint hi = uaddCarry(l1, h0, c);
    return (h1 | c) != 0u ? SATURATED : uvec2(l0, hi);
}
bool above(uvec2 a, uvec2 b) { return a.y > b.y || (a.y == b.y && a.x > b.x); }
uvec2 cost(uint base) {
    uvec2 v = mul64(uvec2(src[base], 0u), src[base + 1u]);
    return call.w == 1u ? mul64(v, src[base + 2u]) : v;
}

void main() {
    uint n = shape.w;
    if (call.x != 0xFFFFFFFFu) n = min(n, counts[call.x]);
    uint t = gl_LocalInvocationID.x;
    uvec2 sum = uvec2(0u);
    for (uint c = t; c < n; c += 64u) sum = add64(sum, cost(shape.x + c * shape.y));
    parts[t] = sum;
    memoryBarrierShared();
    barrier();
    if (t == 0u) {
        uvec2 total = uvec2(0u);
        for (uint i = 0u; i < 64u; ++i) total = add64(total, parts[i]);
        uint at = call.w == 1u ? 2u : 0u;
        uvec2 used = uvec2(state[at], state[at + 1u]);
        uvec2 after = add64(used, total);
        keep = above(after, left.xy) ? 0u : 1u;
        if (keep == 1u) {
            state[at] = after.x;
            state[at + 1u] = after.y;
        } else if (state[4] == 0u) {
            uint borrow;
            uint lo = usubBorrow(left.x, used.x, borrow);
            uint hi = left.y - used.y - borrow;
            bool none = above(used, left.xy);
            state[4] = 1u;
            state[5] = call.z;
            state[6] = total.x;
            state[7] = total.y;
            state[8] = none ? 0u : lo;
            state[9] = none ? 0u : hi;
        }
        dst[call.y] = n;
    }
    memoryBarrierShared();
    barrier();
    uint words = shape.z;
    uint first = call.y + 4u;
    for (uint c = t; c < n; c += 64u) {
        uint from = shape.x + c * shape.y;
        uint to = first + c * words;
        for (uint w = 0u; w < words; ++w) dst[to + w] = src[from + w];
        if (keep == 0u) {
            dst[to] = 0u;
            dst[to + 1u] = 0u;
            if (call.w == 1u) dst[to + 2u] = 0u;
        }
    }
}
)";

constexpr uint64_t kMinScratch = 64 * 1024;
constexpr uint32_t kStateWords = 16;

GLuint compile_program(const GLApi &api) {
    const GLuint shader = api.glCreateShader(gl::COMPUTE_SHADER);
    api.glShaderSource(shader, 1, &kShader, nullptr);
    api.glCompileShader(shader);
    GLint ok = 0;
    api.glGetShaderiv(shader, gl::COMPILE_STATUS, &ok);
    if (!ok) {
        char log[1024] = {};
        api.glGetShaderInfoLog(shader, sizeof log, nullptr, log);
        api.glDeleteShader(shader);
        throw std::runtime_error(std::string("the indirect-command check did not compile: ") + log);
    }
    const GLuint program = api.glCreateProgram();
    api.glAttachShader(program, shader);
    api.glLinkProgram(program);
    api.glDetachShader(program, shader);
    api.glDeleteShader(shader);
    api.glGetProgramiv(program, gl::LINK_STATUS, &ok);
    if (!ok) {
        api.glDeleteProgram(program);
        throw std::runtime_error("the indirect-command check did not link");
    }
    return program;
}

}  // namespace

GLIndirect::~GLIndirect() = default;  // GL objects go with the GL context

void GLIndirect::ensure_program() {
    if (program_) return;
    const GLApi &api = shared_->api;
    program_ = compile_program(api);
    shape_location_ = api.glGetUniformLocation(program_, "shape");
    call_location_ = api.glGetUniformLocation(program_, "call");
    left_location_ = api.glGetUniformLocation(program_, "left");
    const GLbitfield flags = gl::MAP_READ_BIT | gl::MAP_WRITE_BIT | gl::MAP_PERSISTENT_BIT |
                             gl::MAP_COHERENT_BIT;
    api.glCreateBuffers(1, &state_);
    api.glNamedBufferStorage(state_, kStateWords * 4, nullptr, flags);
    state_words_ = static_cast<uint32_t *>(
        api.glMapNamedBufferRange(state_, 0, kStateWords * 4, flags));
    if (!state_words_) throw std::runtime_error("could not map the indirect-check state");
}

GLintptr GLIndirect::allocate(uint64_t bytes) {
    bytes = (bytes + 15) & ~uint64_t(15);
    if (used_ + bytes > capacity_) {
        // A new buffer; GL keeps the old one alive for the draws that still read it.
        const GLApi &api = shared_->api;
        if (scratch_) api.glDeleteBuffers(1, &scratch_);
        capacity_ = std::max({kMinScratch, 2 * capacity_, bytes});
        api.glCreateBuffers(1, &scratch_);
        api.glNamedBufferStorage(scratch_, static_cast<GLsizeiptr>(capacity_), nullptr, 0);
        used_ = 0;
    }
    const auto at = static_cast<GLintptr>(used_);
    used_ += bytes;
    return at;
}

GLIndirect::Copy GLIndirect::check(IndirectKind kind, GLuint source, uint64_t offset,
                                   uint32_t count, uint32_t stride, GLuint counts,
                                   uint32_t count_offset, const IndirectLimits &limits) {
    ensure_program();
    const GLApi &api = shared_->api;
    if (calls_.empty()) {  // the submit's first call: the GPU is done with the state
        std::memset(state_words_, 0, kStateWords * 4);
        used_ = 0;
    }
    const uint32_t size = indirect_command_size(kind);
    const GLintptr at = allocate(16 + uint64_t(count) * size);
    const bool groups = kind == IndirectKind::DISPATCH;
    const uint64_t left = groups ? limits.groups_left : limits.vertices_left;
    const GLuint shape[4] = {static_cast<GLuint>(offset / 4), (stride ? stride : size) / 4,
                             size / 4, count};
    const GLuint call[4] = {counts ? count_offset / 4 : 0xFFFFFFFFu,
                            static_cast<GLuint>(at / 4), static_cast<GLuint>(calls_.size()),
                            groups ? 1u : 0u};
    const GLuint left_words[4] = {static_cast<GLuint>(left), static_cast<GLuint>(left >> 32), 0,
                                  0};
    calls_.push_back(limits);
    call_groups_.push_back(groups);
    // Earlier shader writes to the commands (a culling pass) must be visible to this read.
    api.glMemoryBarrier(gl::SHADER_STORAGE_BARRIER_BIT);
    api.glUseProgram(program_);
    api.glUniform4uiv(shape_location_, 1, shape);
    api.glUniform4uiv(call_location_, 1, call);
    api.glUniform4uiv(left_location_, 1, left_words);
    api.glBindBufferBase(gl::SHADER_STORAGE_BUFFER, 0, source);
    api.glBindBufferBase(gl::SHADER_STORAGE_BUFFER, 1, counts ? counts : source);
    api.glBindBufferBase(gl::SHADER_STORAGE_BUFFER, 2, scratch_);
    api.glBindBufferBase(gl::SHADER_STORAGE_BUFFER, 3, state_);
    api.glDispatchCompute(1, 1, 1);
    api.glMemoryBarrier(gl::COMMAND_BARRIER_BIT | gl::SHADER_STORAGE_BARRIER_BIT |
                        gl::CLIENT_MAPPED_BUFFER_BARRIER_BIT);
    return Copy{scratch_, at, at + 16};
}

std::optional<IndirectOverrun> GLIndirect::take_overrun() {
    if (calls_.empty()) return std::nullopt;
    std::optional<IndirectOverrun> overrun;
    if (state_words_[4] != 0) {
        const uint32_t index = state_words_[5];
        const IndirectLimits &limits = calls_.at(index);
        const bool groups = call_groups_.at(index);
        const auto pair = [&](int i) {
            return uint64_t(state_words_[i]) | (uint64_t(state_words_[i + 1]) << 32);
        };
        overrun = IndirectOverrun{limits.instruction, groups, pair(6), pair(8),
                                  groups ? limits.group_budget : limits.vertex_budget};
    }
    calls_.clear();
    call_groups_.clear();
    return overrun;
}

}  // namespace hypergl
