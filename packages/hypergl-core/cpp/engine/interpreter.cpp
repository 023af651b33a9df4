#include "hypergl/interpreter.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>

#include "hypergl/errors.hpp"

namespace hypergl {
namespace {

// Kept out of the dispatch loop's code: failure reports (cold) and the checks
// of draws that read vertex buffers (noinline).
#if defined(__GNUC__)
#define HGL_COLD __attribute__((cold, noinline))
#define HGL_NOINLINE __attribute__((noinline))
#define HGL_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define HGL_COLD
#define HGL_NOINLINE
#define HGL_UNLIKELY(x) (x)
#endif

constexpr uint32_t kPollInterval = 1024;  // instructions between clock checks
constexpr uint32_t kDrawCommandSize = indirect_command_size(IndirectKind::DRAW);
constexpr uint32_t kIndexedCommandSize = indirect_command_size(IndirectKind::INDEXED);
constexpr uint32_t kDispatchCommandSize = indirect_command_size(IndirectKind::DISPATCH);
constexpr uint32_t kBindings = isa::kMaxBindingIndex + 1;

float as_float(uint32_t bits) {
    float value;
    std::memcpy(&value, &bits, 4);
    return value;
}
uint32_t as_bits(float value) {
    uint32_t bits;
    std::memcpy(&bits, &value, 4);
    return bits;
}
int32_t as_int(uint32_t bits) { return static_cast<int32_t>(bits); }

uint32_t read_u32(const uint8_t *base, uint64_t offset) {
    uint32_t value;
    std::memcpy(&value, base + offset, 4);
    return value;
}

// gen_rand's generator: SplitMix64 (one add and a mix per number; any seed,
// 0 included, gives a full-period stream), the high 32 bits of each output.
uint32_t next_random(uint64_t &state) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return static_cast<uint32_t>((z ^ (z >> 31)) >> 32);
}

uint32_t saturate_u32(uint64_t value) {
    return value > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(value);
}

// What is bound right now, to skip identical consecutive binds.
struct BoundState {
    Resource *pipeline = nullptr;
    Resource *framebuffer = nullptr;
    Buffer *index = nullptr;
    Buffer *indirect = nullptr;
    Buffer *parameter = nullptr;
    Buffer *vertex[kBindings] = {};
    Buffer *uniform[kBindings] = {};
    Buffer *storage[kBindings] = {};
    Resource *texture[kBindings] = {};
};

class Interpreter {
  public:
    Interpreter(const ProgramImage &program, Resource *const *slots, Device &device,
                uint32_t *registers, const RunOptions &options)
        : p_(program), slots_(slots), dev_(device), r_(registers), options_(options),
          debug_sink_(options.debug_output) {}

    RunStats run();

  private:
    // Appends to the debug output, cut (once, marked) at the limit; the cut drops the
    // sink, so that no later print or dump of this submit formats anything.
    HGL_NOINLINE void debug_write(const std::string &text);
    // print and dump (out of line: the dispatch loop holds no std::string, which
    // clang's computed goto could not jump out of).
    HGL_NOINLINE void debug_print(uint32_t reg);
    HGL_NOINLINE void debug_dump(Buffer &b, uint32_t reg, uint32_t size);
    // bind_*_range_reg: the register offset is aligned and the range inside the buffer.
    HGL_NOINLINE void need_register_range(const Buffer &b, uint32_t reg, uint32_t size) const;
    [[noreturn]] void fail(const std::string &reason) const {
        throw VMFailure(pc_, mnemonic_of(p_.code[pc_].op), reason);
    }
    Buffer &buffer(uint32_t slot) const { return static_cast<Buffer &>(*slots_[slot]); }
    Resource &resource(uint32_t slot) const { return *slots_[slot]; }

    // Binds `value` into `current` unless it is already there.
    template <typename T, typename Call>
    void bind(T *&current, T *value, Call call) {
        if (current == value) {
            ++stats_.binds_skipped;
            return;
        }
        current = value;
        ++stats_.binds_issued;
        ++stats_.device_calls;
        call();
    }

    // A pipeline is bound and (once after each pipeline or uniform bind) every
    // uniform block it reads has at least its size bound.
    void need_pipeline() {
        if (!bound_.pipeline) fail("no pipeline is bound");
        if (HGL_UNLIKELY(!blocks_checked_)) check_uniform_blocks();
    }
    HGL_NOINLINE void check_uniform_blocks();
    // Charges `count` x `instances` vertices to the vertex budget. Inline and
    // branch-light: it runs for every draw; the failure is out of line.
    void spend_vertices(uint64_t count, uint64_t instances) {
        const uint64_t vertices = count * instances;  // both < 2**32: no overflow
        if (HGL_UNLIKELY(vertices > vertices_left_)) vertex_budget_spent(count, instances);
        vertices_left_ -= vertices;
    }
    [[noreturn]] HGL_COLD void vertex_budget_spent(uint64_t count, uint64_t instances) const;
    // Charges a dispatch's x * y * z work groups to the group budget (in 64
    // bits: a driver that counts them in 32 would wrap).
    void spend_groups(uint64_t x, uint64_t y, uint64_t z) {
        const uint64_t groups = x * y * z;  // each <= 65535 (verified): no overflow
        if (HGL_UNLIKELY(groups > groups_left_)) group_budget_spent(x, y, z);
        groups_left_ -= groups;
    }
    [[noreturn]] HGL_COLD void group_budget_spent(uint64_t x, uint64_t y, uint64_t z) const;
    // Which of a draw's ranges the VM knows: all (direct draws), the instances
    // (indexed draws: the indices name the vertices) or none (indirect draws:
    // the counts are in GPU memory). The rest is robust access's to guard.
    enum class Known { ALL, INSTANCES, NONE };
    // A draw of vertices first..first+count-1 and instances 0..instances-1:
    // every vertex input of the pipeline has a buffer bound, and each known
    // read stays inside it.
    void need_vertex_buffers(uint64_t first, uint64_t count, uint64_t instances,
                             Known known) const {
        if (!inputs_->empty()) check_vertex_buffers(first, count, instances, known);
    }
    HGL_NOINLINE void check_vertex_buffers(uint64_t first, uint64_t count, uint64_t instances,
                                           Known known) const;
    void need_indexed(uint32_t index_type, uint64_t first, uint64_t count) const;
    void need_indirect(uint64_t offset, uint64_t count, uint64_t stride, uint32_t size) const;
    void need_parameter(uint32_t count_offset) const;
    // Charges the commands of an indirect call (checked by need_indirect) to
    // the vertex or group budget: read here on host memory, handed to the
    // device's GPU check otherwise. `counted`: the count variants, whose
    // count (at `count_offset` of the parameter buffer) is clamped to `count`.
    void spend_indirect(IndirectKind kind, uint64_t offset, uint64_t count, uint64_t stride,
                        bool counted = false, uint32_t count_offset = 0);
    [[noreturn]] HGL_COLD void indirect_budget_spent(bool groups, uint64_t asked, uint64_t left,
                                                     uint64_t budget, bool on_gpu) const;
    // After the run: the device's report of an indirect call past its budget.
    void check_indirect_overrun();
    // Refills the countdown from the budget (failing when it is spent) and
    // polls for signals about every 10 ms. Returns the new countdown.
    uint32_t poll_or_exhaust();
    // Reports a device error at the instruction executed last.
    void check_previous();
    void finish_run() {
        dev_.set_stop_check(nullptr);
        dev_.end_run();
    }

    const ProgramImage &p_;
    Resource *const *slots_;
    Device &dev_;
    uint32_t *r_;
    const RunOptions &options_;
    uint32_t pc_ = 0;
    uint32_t previous_ = 0;
    RunStats stats_;
    BoundState bound_;
    uint32_t data_stack_[isa::kDataStackDepth];
    uint32_t data_depth_ = 0;
    uint32_t call_stack_[isa::kCallStackDepth];
    uint32_t call_depth_ = 0;
    uint64_t remaining_ = 0;  // budget left beyond the current countdown
    uint64_t vertices_left_ = 0;
    uint64_t groups_left_ = 0;
    // Bytes bound at each uniform binding (the buffer's or the range's; 0: none).
    uint64_t uniform_bytes_[kBindings] = {};
    bool blocks_checked_ = false;
    const std::vector<VertexInput> *inputs_ = nullptr;  // of the bound pipeline
    int64_t last_poll_ns_ = 0;
    std::string *debug_sink_;  // where print and dump write; null: nowhere, or past the cut
};

void Interpreter::debug_write(const std::string &text) {
    std::string *out = debug_sink_;
    if (!out) return;
    if (out->size() + text.size() <= options_.debug_limit) {
        out->append(text);
        return;
    }
    out->append(text, 0, options_.debug_limit - std::min(out->size(), options_.debug_limit));
    out->append("...\n");  // marks the cut; nothing more is written in this submit
    debug_sink_ = nullptr;
}

void Interpreter::debug_print(uint32_t reg) {
    char line[96];
    ++stats_.debug_formatted;
    const uint32_t v = r_[reg];
    std::snprintf(line, sizeof line, "[%u] r%u = %u (i32 %d, f32 %.9g)\n", pc_, reg, v,
                  as_int(v), double(as_float(v)));
    debug_write(line);
}

void Interpreter::debug_dump(Buffer &b, uint32_t reg, uint32_t size) {
    const uint64_t offset = r_[reg];
    if (offset + size > b.size())  // checked with or without a sink: the same program fails alike
        fail("dump range r" + std::to_string(reg) + " (" + std::to_string(offset) + ") + " +
             std::to_string(size) + " is outside buffer '" + b.name() + "' of " +
             std::to_string(b.size()) + " bytes");
    if (!debug_sink_) return;
    ++stats_.debug_formatted;
    dev_.prepare_cpu_read(b);
    std::string text = "[" + std::to_string(pc_) + "] " + b.name() + "[" +
                       std::to_string(offset) + ".." + std::to_string(offset + size) + "]:";
    char hex[4];
    for (uint32_t k = 0; k < size; ++k) {
        std::snprintf(hex, sizeof hex, " %02x", b.data()[offset + k]);
        text += hex;
    }
    debug_write(text + "\n");
}

void Interpreter::need_register_range(const Buffer &b, uint32_t reg, uint32_t size) const {
    const uint64_t offset = r_[reg];
    if (size == 0) fail("range size 0: a range holds at least one byte");
    if (offset % isa::kRangeAlignment != 0)
        fail("range offset r" + std::to_string(reg) + " (" + std::to_string(offset) +
             ") is not a multiple of " + std::to_string(isa::kRangeAlignment));
    if (offset + size > b.size())
        fail("range r" + std::to_string(reg) + " (" + std::to_string(offset) + ") + " +
             std::to_string(size) + " is outside buffer '" + b.name() + "' of " +
             std::to_string(b.size()) + " bytes");
}

void Interpreter::need_indexed(uint32_t index_type, uint64_t first, uint64_t count) const {
    if (!bound_.index) fail("no index buffer is bound");
    const uint64_t size = isa::kIndexTypeSize[index_type];
    if ((first + count) * size > bound_.index->size())
        fail("indices " + std::to_string(first) + ".." + std::to_string(first + count) +
             " run past index buffer '" + bound_.index->name() + "' of " +
             std::to_string(bound_.index->size()) + " bytes");
}

void Interpreter::need_indirect(uint64_t offset, uint64_t count, uint64_t stride,
                                uint32_t size) const {
    // Indirect draws (and dispatches, whose pipelines read no vertices): the
    // counts are the GPU's, but a vertex input without a buffer is known now.
    need_vertex_buffers(0, 1, 1, Known::NONE);
    if (!bound_.indirect) fail("no indirect buffer is bound");
    if (offset % 4 != 0) fail("indirect offset " + std::to_string(offset) + " is not a multiple of 4");
    if (stride != 0 && (stride % 4 != 0 || stride < size))
        fail("indirect stride " + std::to_string(stride) + " must be 0 or a multiple of 4 >= " +
             std::to_string(size));
    if (count == 0) return;
    const uint64_t step = stride ? stride : size;
    const uint64_t end = offset + (count - 1) * step + size;
    if (end > bound_.indirect->size())
        fail(std::to_string(count) + " indirect command(s) from offset " + std::to_string(offset) +
             " run past indirect buffer '" + bound_.indirect->name() + "' of " +
             std::to_string(bound_.indirect->size()) + " bytes");
}

void Interpreter::need_parameter(uint32_t count_offset) const {
    if (!bound_.parameter) fail("no parameter buffer is bound");
    if (count_offset % 4 != 0 || uint64_t(count_offset) + 4 > bound_.parameter->size())
        fail("draw count offset " + std::to_string(count_offset) +
             " is not a 4-byte-aligned u32 inside parameter buffer '" + bound_.parameter->name() +
             "'");
}

void Interpreter::spend_indirect(IndirectKind kind, uint64_t offset, uint64_t count,
                                 uint64_t stride, bool counted, uint32_t count_offset) {
    if (dev_.indirect_on_gpu(*bound_.indirect, counted ? bound_.parameter : nullptr)) {
        dev_.indirect_limits(IndirectLimits{vertices_left_, options_.vertex_budget, groups_left_,
                                            options_.group_budget, pc_});
        return;
    }
    if (counted) count = std::min<uint64_t>(count, read_u32(bound_.parameter->data(), count_offset));
    const uint64_t cost = cpu_indirect_cost(kind, bound_.indirect->data(), offset, count, stride);
    const bool groups = kind == IndirectKind::DISPATCH;
    uint64_t &left = groups ? groups_left_ : vertices_left_;
    if (HGL_UNLIKELY(cost > left))
        indirect_budget_spent(groups, cost, left,
                              groups ? options_.group_budget : options_.vertex_budget, false);
    left -= cost;
}

void Interpreter::indirect_budget_spent(bool groups, uint64_t asked, uint64_t left,
                                        uint64_t budget, bool on_gpu) const {
    const std::string what = groups ? "work groups" : "vertices";
    const std::string how = groups ? "x * y * z" : "count x instances";
    fail("the indirect commands ask for " + std::to_string(asked) + " " + what + " (" + how +
         ", summed), beyond what is left of the " + (groups ? "group" : "vertex") + " budget (" +
         std::to_string(left) + " of " + std::to_string(budget) + " per submit; submit(" +
         (groups ? "group_budget" : "vertex_budget") + "=...) raises it)" +
         (on_gpu ? "; the GPU ran none of them" : ""));
}

void Interpreter::check_indirect_overrun() {
    std::optional<IndirectOverrun> overrun;
    try {
        overrun = dev_.indirect_overrun();
    } catch (const Interrupted &) {
        throw;
    } catch (const std::exception &error) {
        throw VMFailure(-1, "", error.what());
    }
    if (!overrun) return;
    pc_ = overrun->instruction;
    indirect_budget_spent(overrun->groups, overrun->asked, overrun->left, overrun->budget, true);
}

void Interpreter::vertex_budget_spent(uint64_t count, uint64_t instances) const {
    fail("the draw asks for " + std::to_string(count) + " vertices x " +
             std::to_string(instances) + " instances, beyond what is left of the vertex budget (" +
             std::to_string(vertices_left_) + " of " + std::to_string(options_.vertex_budget) +
             " per submit; submit(vertex_budget=...) raises it)");
}

void Interpreter::group_budget_spent(uint64_t x, uint64_t y, uint64_t z) const {
    fail("the dispatch of " + std::to_string(x) + " x " + std::to_string(y) + " x " +
         std::to_string(z) + " = " + std::to_string(x * y * z) +
         " work groups is beyond what is left of the group budget (" +
         std::to_string(groups_left_) + " of " + std::to_string(options_.group_budget) +
         " per submit; submit(group_budget=...) raises it)");
}

void Interpreter::check_uniform_blocks() {
    const auto &pipeline = static_cast<const Pipeline &>(*bound_.pipeline);
    for (const UniformBlock &block : pipeline.uniform_blocks()) {
        if (block.binding >= kBindings) continue;
        const uint64_t bound = uniform_bytes_[block.binding];
        if (bound != 0 && bound < block.size)
            fail("uniform block '" + block.name + "' of pipeline '" + pipeline.name() +
                 "' (binding " + std::to_string(block.binding) + ") is " +
                 std::to_string(block.size) + " bytes, but only " + std::to_string(bound) +
                 " bytes are bound there: the shader would read zeros past them");
    }
    blocks_checked_ = true;
}

void Interpreter::check_vertex_buffers(uint64_t first, uint64_t count, uint64_t instances,
                                       Known known) const {
    if (known != Known::NONE && (count == 0 || instances == 0)) return;  // draws nothing
    for (const VertexInput &input : *inputs_) {
        const Buffer *buffer = bound_.vertex[input.binding];
        if (!buffer)
            fail("pipeline '" + bound_.pipeline->name() + "' reads vertex binding " +
                 std::to_string(input.binding) + ", which has no buffer bound");
        if (known == Known::NONE || (known == Known::INSTANCES && !input.per_instance)) continue;
        const uint64_t last = input.per_instance ? instances - 1 : first + count - 1;
        const uint64_t end = last * input.stride + input.extent;
        if (end > buffer->size())
            fail((input.per_instance ? "instance " : "vertex ") + std::to_string(last) +
                 " reads bytes up to " + std::to_string(end) + " of vertex buffer '" +
                 buffer->name() + "' (binding " + std::to_string(input.binding) + ", stride " +
                 std::to_string(input.stride) + "), which has " + std::to_string(buffer->size()));
    }
}

uint32_t Interpreter::poll_or_exhaust() {
    if (remaining_ == 0)
        fail("instruction budget of " + std::to_string(options_.budget) + " exhausted");
    const auto countdown =
        static_cast<uint32_t>(remaining_ < kPollInterval ? remaining_ : kPollInterval);
    remaining_ -= countdown;
    if (options_.should_stop) {
        const int64_t now = poll_clock_ns();
        if (now - last_poll_ns_ >= kPollPeriodNs) {
            last_poll_ns_ = now;
            if (options_.should_stop()) throw Interrupted();
        }
    }
    return countdown;
}

void Interpreter::check_previous() {
    try {
        dev_.check_after_run();
    } catch (const std::exception &error) {
        throw VMFailure(previous_, mnemonic_of(p_.code[previous_].op), error.what());
    }
}

RunStats Interpreter::run() {
    const Instruction *code = p_.code.data();
    remaining_ = options_.budget;
    vertices_left_ = options_.vertex_budget;
    groups_left_ = options_.group_budget;
    last_poll_ns_ = poll_clock_ns();
    uint64_t local_random = 0;
    uint64_t &random = options_.random_state ? *options_.random_state : local_random;
    dev_.set_stop_check(&options_.should_stop);
    dev_.begin_run();

// Dispatch: computed goto where the compiler has it (each handler jumps straight
// to the next handler: one indirect branch per op, predicted per site), a switch
// elsewhere. The same handlers serve both, behind HGL_OP / HGL_NEXT.
#if defined(__GNUC__) && !defined(HYPERGL_SWITCH_DISPATCH)
#define HGL_COMPUTED_GOTO 1
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"  // labels as values are a GNU extension
#define HGL_OP(name) L_##name:
#define HGL_NEXT()                                                        \
    do {                                                                  \
        pc_ = next;                                                       \
        if (countdown == 0 || check_each) goto top;                       \
        --countdown;                                                      \
        ip = code + pc_;                                                  \
        next = pc_ + 1;                                                   \
        goto *labels[ip->op];                                             \
    } while (0)
#else
#define HGL_COMPUTED_GOTO 0
#define HGL_OP(name) case isa::Opcode::name:
#define HGL_NEXT() break
#endif

    // Instructions executed = budget spent = what left `remaining_` and the countdown.
    uint32_t countdown = 0;
    const bool check_each = options_.check_each_instruction;
    bool started = false;
    const auto account = [&] { stats_.instructions = options_.budget - remaining_ - countdown; };
    const Instruction *ip = code;
    uint32_t next = 0;
#if HGL_COMPUTED_GOTO
    // Opcode -> handler. Verified programs hold known opcodes only (and end in the
    // sentinel halt), so every entry reached is a real handler.
    void *labels[isa::kOpTableSize];
    for (void *&label : labels) label = &&L_INVALID;
#define HGL_LABEL(name) labels[static_cast<uint32_t>(isa::Opcode::name)] = &&L_##name;
    HYPERGL_ISA_OPS(HGL_LABEL)
#undef HGL_LABEL
#endif
    try {
        for (;;) {
#if HGL_COMPUTED_GOTO
        top:  // the slow path: budget and signals, debugging checks
#endif
            if (countdown == 0) countdown = poll_or_exhaust();
            --countdown;
            if (check_each) {  // debugging only: keeps the hot path free of the bookkeeping
                if (started) check_previous();
                previous_ = pc_;
                started = true;
            }
            ip = code + pc_;
            next = pc_ + 1;
#if HGL_COMPUTED_GOTO
            goto *labels[ip->op];
#else
            switch (static_cast<isa::Opcode>(ip->op)) {
#endif
                HGL_OP(NOP) HGL_NEXT();
                HGL_OP(HALT) goto done;
                HGL_OP(GOTO) next = ip->b; HGL_NEXT();
                HGL_OP(CALL)
                    if (call_depth_ == isa::kCallStackDepth)
                        fail("call depth limit of " + std::to_string(isa::kCallStackDepth) +
                             " exceeded");
                    call_stack_[call_depth_++] = next;
                    next = p_.subroutine_entries[ip->b];
                    HGL_NEXT();
                HGL_OP(RET)
                    if (call_depth_ == 0) fail("ret with an empty call stack");
                    next = call_stack_[--call_depth_];
                    HGL_NEXT();
                HGL_OP(JZ) if (r_[ip->a] == 0) next = ip->b; HGL_NEXT();
                HGL_OP(JNZ) if (r_[ip->a] != 0) next = ip->b; HGL_NEXT();
                HGL_OP(LOOP) if (--r_[ip->a] != 0) next = ip->b; HGL_NEXT();
                HGL_OP(JUMP_TABLE) {
                    const Constant &table = p_.constants[ip->b];
                    const uint32_t index = r_[ip->a];
                    next = index < table.data.size() / 4 ? read_u32(table.data.data(), 4ull * index)
                                                         : ip->c;
                    HGL_NEXT();
                }
                HGL_OP(PUSH)
                    if (data_depth_ == isa::kDataStackDepth)
                        fail("data stack overflow (depth " +
                             std::to_string(isa::kDataStackDepth) + ")");
                    data_stack_[data_depth_++] = r_[ip->a];
                    HGL_NEXT();
                HGL_OP(POP)
                    if (data_depth_ == 0) fail("data stack underflow");
                    r_[ip->a] = data_stack_[--data_depth_];
                    HGL_NEXT();

                HGL_OP(LI) r_[ip->a] = ip->b; HGL_NEXT();
                HGL_OP(LF) r_[ip->a] = ip->b; HGL_NEXT();
                HGL_OP(MOV) r_[ip->a] = r_[ip->b]; HGL_NEXT();
                HGL_OP(IADD) r_[ip->a] = r_[ip->b] + r_[ip->c]; HGL_NEXT();
                HGL_OP(ISUB) r_[ip->a] = r_[ip->b] - r_[ip->c]; HGL_NEXT();
                HGL_OP(IMUL) r_[ip->a] = r_[ip->b] * r_[ip->c]; HGL_NEXT();
                HGL_OP(IDIV) {
                    const int32_t x = as_int(r_[ip->b]), y = as_int(r_[ip->c]);
                    if (y == 0) fail("integer division by zero (r" + std::to_string(ip->c) + ")");
                    r_[ip->a] = (x == INT32_MIN && y == -1) ? r_[ip->b]
                                                           : static_cast<uint32_t>(x / y);
                    HGL_NEXT();
                }
                HGL_OP(IREM) {
                    const int32_t x = as_int(r_[ip->b]), y = as_int(r_[ip->c]);
                    if (y == 0) fail("integer remainder by zero (r" + std::to_string(ip->c) + ")");
                    r_[ip->a] = (y == -1) ? 0u : static_cast<uint32_t>(x % y);
                    HGL_NEXT();
                }
                HGL_OP(IADDI) r_[ip->a] = r_[ip->b] + ip->c; HGL_NEXT();
                HGL_OP(INEG) r_[ip->a] = 0u - r_[ip->b]; HGL_NEXT();
                HGL_OP(AND) r_[ip->a] = r_[ip->b] & r_[ip->c]; HGL_NEXT();
                HGL_OP(OR) r_[ip->a] = r_[ip->b] | r_[ip->c]; HGL_NEXT();
                HGL_OP(XOR) r_[ip->a] = r_[ip->b] ^ r_[ip->c]; HGL_NEXT();
                HGL_OP(NOT) r_[ip->a] = ~r_[ip->b]; HGL_NEXT();
                HGL_OP(SHL) r_[ip->a] = r_[ip->b] << (r_[ip->c] & 31); HGL_NEXT();
                HGL_OP(SHR) r_[ip->a] = r_[ip->b] >> (r_[ip->c] & 31); HGL_NEXT();
                HGL_OP(SAR)
                    r_[ip->a] = static_cast<uint32_t>(as_int(r_[ip->b]) >> (r_[ip->c] & 31));
                    HGL_NEXT();
                HGL_OP(FADD) r_[ip->a] = as_bits(as_float(r_[ip->b]) + as_float(r_[ip->c])); HGL_NEXT();
                HGL_OP(FSUB) r_[ip->a] = as_bits(as_float(r_[ip->b]) - as_float(r_[ip->c])); HGL_NEXT();
                HGL_OP(FMUL) r_[ip->a] = as_bits(as_float(r_[ip->b]) * as_float(r_[ip->c])); HGL_NEXT();
                HGL_OP(FDIV) r_[ip->a] = as_bits(as_float(r_[ip->b]) / as_float(r_[ip->c])); HGL_NEXT();
                HGL_OP(ITOF) r_[ip->a] = as_bits(static_cast<float>(as_int(r_[ip->b]))); HGL_NEXT();
                HGL_OP(FTOI) {
                    const float x = as_float(r_[ip->b]);
                    int32_t value;
                    if (std::isnan(x)) value = 0;
                    else if (x >= 2147483648.0f) value = INT32_MAX;
                    else if (x <= -2147483648.0f) value = INT32_MIN;
                    else value = static_cast<int32_t>(x);
                    r_[ip->a] = static_cast<uint32_t>(value);
                    HGL_NEXT();
                }
                HGL_OP(IEQ) r_[ip->a] = r_[ip->b] == r_[ip->c]; HGL_NEXT();
                HGL_OP(INE) r_[ip->a] = r_[ip->b] != r_[ip->c]; HGL_NEXT();
                HGL_OP(ILT) r_[ip->a] = as_int(r_[ip->b]) < as_int(r_[ip->c]); HGL_NEXT();
                HGL_OP(ILE) r_[ip->a] = as_int(r_[ip->b]) <= as_int(r_[ip->c]); HGL_NEXT();
                HGL_OP(ULT) r_[ip->a] = r_[ip->b] < r_[ip->c]; HGL_NEXT();
                HGL_OP(FEQ) r_[ip->a] = as_float(r_[ip->b]) == as_float(r_[ip->c]); HGL_NEXT();
                HGL_OP(FLT) r_[ip->a] = as_float(r_[ip->b]) < as_float(r_[ip->c]); HGL_NEXT();
                HGL_OP(FLE) r_[ip->a] = as_float(r_[ip->b]) <= as_float(r_[ip->c]); HGL_NEXT();

                HGL_OP(LOAD) {
                    Buffer &b = buffer(ip->b);
                    dev_.prepare_cpu_read(b);
                    r_[ip->a] = read_u32(b.data(), ip->c);
                    HGL_NEXT();
                }
                HGL_OP(STORE) {
                    Buffer &b = buffer(ip->b);
                    std::memcpy(b.data() + ip->c, &r_[ip->a], 4);
                    HGL_NEXT();
                }
                HGL_OP(LOAD_INDEXED)
                HGL_OP(STORE_INDEXED) {
                    Buffer &b = buffer(ip->b);
                    const uint64_t offset = uint64_t(ip->d) + 4ull * r_[ip->c];
                    if (offset + 4 > b.size())
                        fail("offset " + std::to_string(ip->d) + " + 4 * r" +
                             std::to_string(ip->c) + " (" + std::to_string(r_[ip->c]) +
                             ") is outside buffer '" + b.name() + "' of " +
                             std::to_string(b.size()) + " bytes");
                    if (ip->op == static_cast<uint16_t>(isa::Opcode::LOAD_INDEXED)) {
                        dev_.prepare_cpu_read(b);
                        r_[ip->a] = read_u32(b.data(), offset);
                    } else {
                        std::memcpy(b.data() + offset, &r_[ip->a], 4);
                    }
                    HGL_NEXT();
                }
                HGL_OP(SKIP_IF_ZERO)
                HGL_OP(SKIP_IF_NOT_ZERO)
                HGL_OP(JUMP_IF_ZERO)
                HGL_OP(JUMP_IF_NOT_ZERO) {
                    Buffer &b = buffer(ip->b);
                    dev_.prepare_cpu_read(b);
                    const bool zero = read_u32(b.data(), ip->c) == 0;
                    const auto op = static_cast<isa::Opcode>(ip->op);
                    const bool when_zero =
                        op == isa::Opcode::SKIP_IF_ZERO || op == isa::Opcode::JUMP_IF_ZERO;
                    const bool is_skip =
                        op == isa::Opcode::SKIP_IF_ZERO || op == isa::Opcode::SKIP_IF_NOT_ZERO;
                    if (zero == when_zero) next = is_skip ? pc_ + 2 : ip->d;
                    HGL_NEXT();
                }

                HGL_OP(CLEAR) {
                    float values[5];
                    std::memcpy(values, p_.constants[ip->b].data.data(), sizeof values);
                    ++stats_.device_calls;
                    dev_.clear(values, ip->c, ip->d);
                    HGL_NEXT();
                }
                HGL_OP(BIND_PIPELINE)
                    bind(bound_.pipeline, &resource(ip->b), [&] {
                        inputs_ = &static_cast<Pipeline &>(resource(ip->b)).vertex_inputs();
                        blocks_checked_ = false;
                        dev_.bind_pipeline(resource(ip->b));
                    });
                    HGL_NEXT();
                HGL_OP(BIND_FRAMEBUFFER)
                    bind(bound_.framebuffer, &resource(ip->b),
                         [&] { dev_.bind_framebuffer(resource(ip->b)); });
                    HGL_NEXT();
                HGL_OP(BIND_VERTEX_BUFFER)
                    bind(bound_.vertex[ip->c], &buffer(ip->b),
                         [&] { dev_.bind_vertex_buffer(ip->c, buffer(ip->b)); });
                    HGL_NEXT();
                HGL_OP(BIND_INDEX_BUFFER)
                    bind(bound_.index, &buffer(ip->b), [&] { dev_.bind_index_buffer(buffer(ip->b)); });
                    HGL_NEXT();
                HGL_OP(BIND_UNIFORM_BUFFER)
                    uniform_bytes_[ip->c] = buffer(ip->b).size();
                    blocks_checked_ = false;
                    bind(bound_.uniform[ip->c], &buffer(ip->b),
                         [&] { dev_.bind_uniform_buffer(ip->c, buffer(ip->b)); });
                    HGL_NEXT();
                HGL_OP(BIND_STORAGE_BUFFER)
                    bind(bound_.storage[ip->c], &buffer(ip->b),
                         [&] { dev_.bind_storage_buffer(ip->c, buffer(ip->b)); });
                    HGL_NEXT();
                HGL_OP(BIND_UNIFORM_RANGE)
                    // A range is not a whole-buffer binding: forget it, so that the
                    // next bind_uniform_buffer of the same buffer is not skipped.
                    bound_.uniform[ip->a] = nullptr;
                    uniform_bytes_[ip->a] = ip->d;
                    blocks_checked_ = false;
                    ++stats_.binds_issued;
                    ++stats_.device_calls;
                    dev_.bind_uniform_range(ip->a, buffer(ip->b), ip->c, ip->d);
                    HGL_NEXT();
                HGL_OP(BIND_STORAGE_RANGE)
                    bound_.storage[ip->a] = nullptr;
                    ++stats_.binds_issued;
                    ++stats_.device_calls;
                    dev_.bind_storage_range(ip->a, buffer(ip->b), ip->c, ip->d);
                    HGL_NEXT();
                HGL_OP(BIND_INDIRECT_BUFFER)
                    bind(bound_.indirect, &buffer(ip->b),
                         [&] { dev_.bind_indirect_buffer(buffer(ip->b)); });
                    HGL_NEXT();
                HGL_OP(BIND_PARAMETER_BUFFER)
                    bind(bound_.parameter, &buffer(ip->b),
                         [&] { dev_.bind_parameter_buffer(buffer(ip->b)); });
                    HGL_NEXT();
                HGL_OP(BIND_TEXTURE)
                    bind(bound_.texture[ip->c], &resource(ip->b),
                         [&] { dev_.bind_texture(ip->c, resource(ip->b)); });
                    HGL_NEXT();
                HGL_OP(VIEWPORT) {
                    int32_t v[4];
                    std::memcpy(v, p_.constants[ip->b].data.data(), sizeof v);
                    ++stats_.device_calls;  // width, height >= 0: verified (VIEWPORT_SIZE)
                    dev_.viewport(v[0], v[1], v[2], v[3]);
                    HGL_NEXT();
                }
                HGL_OP(VIEWPORT_REG) {
                    const int32_t w = as_int(r_[ip->a + 2]), h = as_int(r_[ip->a + 3]);
                    if (w < 0 || h < 0) fail("viewport width and height must be >= 0");
                    ++stats_.device_calls;
                    dev_.viewport(as_int(r_[ip->a]), as_int(r_[ip->a + 1]), w, h);
                    HGL_NEXT();
                }
                HGL_OP(UNIFORM_I)
                    need_pipeline();
                    ++stats_.device_calls;
                    dev_.uniform(ip->b, 5, &r_[ip->a]);
                    HGL_NEXT();
                HGL_OP(UNIFORM_F)
                    need_pipeline();
                    ++stats_.device_calls;
                    dev_.uniform(ip->b, 0, &r_[ip->a]);
                    HGL_NEXT();
                HGL_OP(UNIFORM_CONST) {
                    need_pipeline();
                    ++stats_.device_calls;  // the constant's size: verified (UNIFORM_SIZE)
                    dev_.uniform(ip->b, ip->d, p_.constants[ip->c].data.data());
                    HGL_NEXT();
                }

                HGL_OP(DRAW)
                    need_pipeline();
                    spend_vertices(ip->b, ip->d);
                    need_vertex_buffers(ip->c, ip->b, ip->d, Known::ALL);
                    ++stats_.draws;
                    ++stats_.device_calls;
                    dev_.draw(ip->b, ip->c, ip->d);
                    HGL_NEXT();
                HGL_OP(DRAW_INDEXED)
                    need_pipeline();
                    need_indexed(ip->a, ip->c, ip->b);
                    spend_vertices(ip->b, ip->d);
                    need_vertex_buffers(0, ip->b, ip->d, Known::INSTANCES);
                    ++stats_.draws;
                    ++stats_.device_calls;
                    dev_.draw_indexed(ip->a, ip->b, ip->c, ip->d);
                    HGL_NEXT();
                HGL_OP(DRAW_REG)
                    need_pipeline();
                    spend_vertices(r_[ip->a], r_[ip->c]);
                    need_vertex_buffers(r_[ip->b], r_[ip->a], r_[ip->c], Known::ALL);
                    ++stats_.draws;
                    ++stats_.device_calls;
                    dev_.draw(r_[ip->a], r_[ip->b], r_[ip->c]);
                    HGL_NEXT();
                HGL_OP(DRAW_INDIRECT)
                    need_pipeline();
                    need_indirect(ip->b, 1, 0, kDrawCommandSize);
                    spend_indirect(IndirectKind::DRAW, ip->b, 1, 0);
                    ++stats_.draws;
                    ++stats_.device_calls;
                    dev_.draw_indirect(ip->b);
                    HGL_NEXT();
                HGL_OP(DRAW_INDEXED_INDIRECT)
                    need_pipeline();
                    need_indexed(ip->a, 0, 0);
                    need_indirect(ip->b, 1, 0, kIndexedCommandSize);
                    spend_indirect(IndirectKind::INDEXED, ip->b, 1, 0);
                    ++stats_.draws;
                    ++stats_.device_calls;
                    dev_.draw_indexed_indirect(ip->a, ip->b);
                    HGL_NEXT();
                HGL_OP(MULTI_DRAW_INDIRECT)
                    need_pipeline();
                    need_indirect(ip->b, ip->c, ip->d, kDrawCommandSize);
                    spend_indirect(IndirectKind::DRAW, ip->b, ip->c, ip->d);
                    ++stats_.draws;
                    ++stats_.device_calls;
                    dev_.multi_draw_indirect(ip->b, ip->c, ip->d);
                    HGL_NEXT();
                HGL_OP(MULTI_DRAW_INDEXED_INDIRECT)
                    need_pipeline();
                    need_indexed(ip->a, 0, 0);
                    need_indirect(ip->b, ip->c, ip->d, kIndexedCommandSize);
                    spend_indirect(IndirectKind::INDEXED, ip->b, ip->c, ip->d);
                    ++stats_.draws;
                    ++stats_.device_calls;
                    dev_.multi_draw_indexed_indirect(ip->a, ip->b, ip->c, ip->d);
                    HGL_NEXT();
                HGL_OP(MULTI_DRAW_INDIRECT_COUNT)
                    need_pipeline();
                    need_indirect(ip->b, ip->d, 0, kDrawCommandSize);
                    need_parameter(ip->c);
                    spend_indirect(IndirectKind::DRAW, ip->b, ip->d, 0, true, ip->c);
                    ++stats_.draws;
                    ++stats_.device_calls;
                    dev_.multi_draw_indirect_count(ip->b, ip->c, ip->d);
                    HGL_NEXT();
                HGL_OP(MULTI_DRAW_INDEXED_INDIRECT_COUNT)
                    need_pipeline();
                    need_indexed(ip->a, 0, 0);
                    need_indirect(ip->b, ip->d, 0, kIndexedCommandSize);
                    need_parameter(ip->c);
                    spend_indirect(IndirectKind::INDEXED, ip->b, ip->d, 0, true, ip->c);
                    ++stats_.draws;
                    ++stats_.device_calls;
                    dev_.multi_draw_indexed_indirect_count(ip->a, ip->b, ip->c, ip->d);
                    HGL_NEXT();
                HGL_OP(DISPATCH)
                    need_pipeline();
                    spend_groups(ip->b, ip->c, ip->d);
                    ++stats_.dispatches;
                    ++stats_.device_calls;
                    dev_.dispatch(ip->b, ip->c, ip->d);
                    HGL_NEXT();
                HGL_OP(DISPATCH_INDIRECT)
                    need_pipeline();
                    need_indirect(ip->b, 1, 0, kDispatchCommandSize);
                    spend_indirect(IndirectKind::DISPATCH, ip->b, 1, 0);
                    ++stats_.dispatches;
                    ++stats_.device_calls;
                    dev_.dispatch_indirect(ip->b);
                    HGL_NEXT();
                HGL_OP(BARRIER) ++stats_.device_calls; dev_.barrier(ip->b); HGL_NEXT();

                HGL_OP(COPY_BUFFER) {
                    const uint8_t *range = p_.constants[ip->d].data.data();
                    ++stats_.device_calls;
                    dev_.copy_buffer(buffer(ip->b), buffer(ip->c), read_u32(range, 0),
                                     read_u32(range, 4), read_u32(range, 8));
                    HGL_NEXT();
                }
                HGL_OP(FENCE_SIGNAL) ++stats_.device_calls; dev_.fence_signal(resource(ip->b)); HGL_NEXT();
                HGL_OP(FENCE_WAIT)
                    ++stats_.device_calls;
                    if (!dev_.fence_wait(resource(ip->b), ip->c))
                        fail("fence '" + resource(ip->b).name() + "' not signalled within " +
                             std::to_string(ip->c) + " us");
                    HGL_NEXT();
                HGL_OP(READ_FRAMEBUFFER)
                    ++stats_.device_calls;
                    dev_.read_framebuffer(ip->a, resource(ip->b), resource(ip->c));
                    HGL_NEXT();
                HGL_OP(RESOLVE_FRAMEBUFFER)
                    ++stats_.device_calls;
                    dev_.resolve_framebuffer(resource(ip->b), resource(ip->c));
                    HGL_NEXT();
                HGL_OP(UPLOAD)
                    ++stats_.device_calls;
                    dev_.upload(static_cast<ExternalSource &>(resource(ip->b)), buffer(ip->c));
                    HGL_NEXT();
                HGL_OP(SKIP_IF_NOT_READY)
                    ++stats_.device_calls;
                    if (!dev_.fence_ready(resource(ip->b))) next = pc_ + 2;
                    HGL_NEXT();
                HGL_OP(BIND_UNIFORM_RANGE_REG)
                    need_register_range(buffer(ip->b), ip->c, ip->d);
                    bound_.uniform[ip->a] = nullptr;  // as bind_uniform_range
                    uniform_bytes_[ip->a] = ip->d;
                    blocks_checked_ = false;
                    ++stats_.binds_issued;
                    ++stats_.device_calls;
                    dev_.bind_uniform_range(ip->a, buffer(ip->b), r_[ip->c], ip->d);
                    HGL_NEXT();
                HGL_OP(BIND_STORAGE_RANGE_REG)
                    need_register_range(buffer(ip->b), ip->c, ip->d);
                    bound_.storage[ip->a] = nullptr;
                    ++stats_.binds_issued;
                    ++stats_.device_calls;
                    dev_.bind_storage_range(ip->a, buffer(ip->b), r_[ip->c], ip->d);
                    HGL_NEXT();
                HGL_OP(GET_TIME) r_[ip->a] = as_bits(options_.time); HGL_NEXT();
                HGL_OP(GET_DELTA) r_[ip->a] = as_bits(options_.delta); HGL_NEXT();
                HGL_OP(GEN_RAND) {
                    const uint32_t bits = next_random(random);
                    // b == 1: the top 24 bits over 2**24, exactly representable, < 1.
                    r_[ip->a] = ip->b ? as_bits(float(bits >> 8) * (1.0f / 16777216.0f)) : bits;
                    HGL_NEXT();
                }
                HGL_OP(SIN_COS) {
                    const float x = as_float(r_[ip->c]);
                    const float s = std::sin(x), c = std::cos(x);
                    r_[ip->a] = as_bits(s);
                    r_[ip->b] = as_bits(c);
                    HGL_NEXT();
                }
                HGL_OP(GET_STAT) {
                    uint64_t value = 0;
                    switch (ip->b) {
                        case 0: value = options_.budget - remaining_ - countdown; break;
                        case 1: value = stats_.draws; break;
                        case 2: value = stats_.dispatches; break;
                        case 3: value = stats_.binds_issued; break;
                        case 4: value = stats_.binds_skipped; break;
                        default: value = stats_.device_calls; break;
                    }
                    r_[ip->a] = saturate_u32(value);
                    HGL_NEXT();
                }
                HGL_OP(ASSERT_REG)
                    if (HGL_UNLIKELY(r_[ip->a] == 0))
                        fail("assertion failed: r" + std::to_string(ip->a) + " = 0");
                    HGL_NEXT();
                HGL_OP(PRINT)
                    if (debug_sink_) debug_print(ip->a);
                    HGL_NEXT();
                HGL_OP(DUMP)
                    debug_dump(buffer(ip->b), ip->c, ip->d);
                    HGL_NEXT();
#if HGL_COMPUTED_GOTO
            L_INVALID:
                fail("opcode not implemented by the interpreter");
#else
                default: fail("opcode not implemented by the interpreter");
            }
            pc_ = next;
#endif
        }
    } catch (const VMFailure &) {
        finish_run();
        throw;
    } catch (const Interrupted &) {
        finish_run();
        throw;
    } catch (const std::exception &error) {
        finish_run();
        throw VMFailure(pc_, mnemonic_of(p_.code[pc_].op), error.what());
    }
done:
#undef HGL_OP
#undef HGL_NEXT
#if HGL_COMPUTED_GOTO
#pragma GCC diagnostic pop
#endif
#undef HGL_COMPUTED_GOTO
    account();
    try {
        check_indirect_overrun();
    } catch (...) {
        finish_run();
        throw;
    }
    finish_run();
    return stats_;
}

}  // namespace

RunStats run_program(const ProgramImage &program, Resource *const *slots, Device &device,
                     uint32_t registers[isa::kNumRegisters], const RunOptions &options) {
    return Interpreter(program, slots, device, registers, options).run();
}

}  // namespace hypergl
