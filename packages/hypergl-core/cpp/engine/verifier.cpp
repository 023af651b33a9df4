#include "hypergl/verifier.hpp"

#include <cstdio>
#include <cstring>
#include <string>

#include "hypergl/errors.hpp"
#include "hypergl/resources.hpp"

namespace hypergl {
namespace {

constexpr const char *kFieldNames[4] = {"a", "b", "c", "d"};
using C = isa::VerifyCode;

const char *const_kind_name(isa::ConstKind kind) {
    switch (kind) {
        case isa::ConstKind::BYTES: return "bytes";
        case isa::ConstKind::U32: return "u32";
        case isa::ConstKind::I32: return "i32";
        case isa::ConstKind::F32: return "f32";
        case isa::ConstKind::UTF8: return "utf8";
    }
    return "unknown";
}

uint32_t element_size(isa::ConstKind kind) {
    switch (kind) {
        case isa::ConstKind::U32:
        case isa::ConstKind::I32:
        case isa::ConstKind::F32: return 4;
        default: return 1;
    }
}

bool slot_kind_of(isa::Operand operand, isa::ResourceKind &kind) {
    switch (operand) {
        case isa::Operand::BUFFER: kind = isa::ResourceKind::BUFFER; return true;
        case isa::Operand::TEXTURE: kind = isa::ResourceKind::TEXTURE; return true;
        case isa::Operand::PIPELINE: kind = isa::ResourceKind::PIPELINE; return true;
        case isa::Operand::FRAMEBUFFER: kind = isa::ResourceKind::FRAMEBUFFER; return true;
        case isa::Operand::FENCE: kind = isa::ResourceKind::FENCE; return true;
        case isa::Operand::READBACK: kind = isa::ResourceKind::READBACK; return true;
        case isa::Operand::EXTERNAL: kind = isa::ResourceKind::EXTERNAL; return true;
        default: return false;
    }
}

uint32_t read_u32(const std::vector<uint8_t> &data, size_t index) {
    uint32_t value;
    std::memcpy(&value, data.data() + 4 * index, 4);
    return value;
}

class Verifier {
  public:
    explicit Verifier(const ProgramImage &program)
        : p_(program), n_(program.instruction_count()) {}

    void run() {
        for (size_t s = 0; s < p_.subroutine_entries.size(); ++s) {
            if (p_.subroutine_entries[s] >= n_)
                throw VerifyFailure(-1, "call", isa::VerifyCode::SUBROUTINE_ENTRY,
                                    "subroutine " + std::to_string(s) + " '" +
                                        p_.subroutine_names[s] + "' enters at " +
                                        std::to_string(p_.subroutine_entries[s]) +
                                        ", outside the code (0.." + std::to_string(n_) + ")");
        }
        for (uint32_t i = 0; i < n_; ++i) instruction(i);
    }

  private:
    [[noreturn]] void fail(uint32_t index, const char *mnemonic, isa::VerifyCode code,
                           const std::string &reason) const {
        throw VerifyFailure(index, mnemonic, code, reason);
    }

    uint64_t buffer_size(uint32_t slot) const { return p_.slots[slot].size; }

    std::string slot_label(uint32_t slot) const {
        return "slot " + std::to_string(slot) + " '" + p_.slots[slot].name + "'";
    }

    void instruction(uint32_t i) const {
        const Instruction &ins = p_.code[i];
        const isa::OpInfo *info = isa::op_info(ins.op);
        if (!info) {
            char hex[16];
            std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned>(ins.op));
            fail(i, "?", isa::VerifyCode::UNKNOWN_OPCODE, std::string("unknown opcode ") + hex);
        }
        const uint32_t fields[4] = {ins.a, ins.b, ins.c, ins.d};
        for (int f = 0; f < 4; ++f) field(i, *info, f, fields[f]);
        rules(i, *info, ins);
    }

    // The success path allocates nothing: messages are built only to fail.
    void field(uint32_t i, const isa::OpInfo &info, int f, uint32_t value) const {
        const char *m = info.mnemonic;
        const auto name = [f] { return std::string(kFieldNames[f]); };
        const auto shown = [value] { return std::to_string(value); };
        isa::ResourceKind wanted;
        switch (info.operands[f]) {
            case isa::Operand::NONE:
                if (value != 0) fail(i, m, C::UNUSED_FIELD, "unused field " + name() + " must be 0, got " + shown());
                return;
            case isa::Operand::REG:
                if (value >= isa::kNumRegisters)
                    fail(i, m, C::REGISTER,
                         "register r" + shown() + " in field " + name() + " is outside r0..r7");
                return;
            case isa::Operand::U32:
                if (value > info.max[f])
                    fail(i, m, C::IMMEDIATE, "field " + name() + " = " + shown() + " exceeds its maximum " +
                                   std::to_string(info.max[f]));
                return;
            case isa::Operand::I32:
            case isa::Operand::F32: return;
            case isa::Operand::TARGET:
                if (value > n_)
                    fail(i, m, C::TARGET, "jump target " + shown() + " is outside the code (0.." +
                                   std::to_string(n_) + ")");
                return;
            case isa::Operand::CONST: constant(i, info, f, value); return;
            case isa::Operand::SUB:
                if (value >= p_.subroutine_entries.size())
                    fail(i, m, C::SUBROUTINE, "subroutine " + shown() + " does not exist (" +
                                   std::to_string(p_.subroutine_entries.size()) +
                                   " subroutines)");
                return;
            default:
                if (!slot_kind_of(info.operands[f], wanted))
                    fail(i, m, C::UNKNOWN_OPCODE, "bad operand kind");
                if (value >= p_.slots.size())
                    fail(i, m, C::SLOT_INDEX, "slot " + shown() + " is out of range (" +
                                   std::to_string(p_.slots.size()) + " resources)");
                if (p_.slots[value].kind != wanted)
                    fail(i, m, C::SLOT_KIND, slot_label(value) + " is a " + resource_kind_name(p_.slots[value].kind) +
                                   ", not a " + resource_kind_name(wanted));
                return;
        }
    }

    void constant(uint32_t i, const isa::OpInfo &info, int f, uint32_t value) const {
        const char *m = info.mnemonic;
        if (value >= p_.constants.size())
            fail(i, m, C::CONSTANT_INDEX, "constant " + std::to_string(value) + " is out of range (" +
                           std::to_string(p_.constants.size()) + " constants)");
        if (info.const_field != f) return;
        const Constant &k = p_.constants[value];
        if (info.const_kind != isa::ConstKind::BYTES && k.kind != info.const_kind)
            fail(i, m, C::CONSTANT_KIND, "constant " + std::to_string(value) + " holds " + const_kind_name(k.kind) +
                           ", expected " + const_kind_name(info.const_kind));
        const uint32_t size = element_size(k.kind);
        if (k.data.size() % size != 0)
            fail(i, m, C::CONSTANT_SIZE, "constant " + std::to_string(value) + " has " +
                           std::to_string(k.data.size()) + " bytes, not a whole number of " +
                           const_kind_name(k.kind));
        const size_t count = k.data.size() / size;
        if (info.const_count ? count != info.const_count : count == 0)
            fail(i, m, C::CONSTANT_COUNT,
                 "constant " + std::to_string(value) + " has " + std::to_string(count) +
                           " elements, expected " +
                           (info.const_count ? std::to_string(info.const_count) : "at least 1"));
    }

    void rules(uint32_t i, const isa::OpInfo &info, const Instruction &ins) const {
        const char *m = info.mnemonic;
        if (info.rules & isa::rule::MEM_U32) {
            if (ins.c % 4 != 0)
                fail(i, m, C::ALIGNMENT,
                     "offset " + std::to_string(ins.c) + " is not a multiple of 4");
            if (uint64_t(ins.c) + 4 > buffer_size(ins.b))
                fail(i, m, C::BUFFER_BOUNDS, "offset " + std::to_string(ins.c) + " + 4 bytes is outside " +
                               slot_label(ins.b) + " of " + std::to_string(buffer_size(ins.b)) +
                               " bytes");
        }
        if (info.rules & isa::rule::JUMP_TABLE) {
            const Constant &table = p_.constants[ins.b];
            for (size_t e = 0; e < table.data.size() / 4; ++e) {
                const uint32_t target = read_u32(table.data, e);
                if (target > n_)
                    fail(i, m, C::JUMP_TABLE_TARGET, "jump table entry " + std::to_string(e) + " = " +
                                   std::to_string(target) + " is outside the code (0.." +
                                   std::to_string(n_) + ")");
            }
        }
        if (info.rules & isa::rule::COPY_RANGE) {
            const Constant &range = p_.constants[ins.d];
            const uint64_t src = read_u32(range.data, 0), dst = read_u32(range.data, 1),
                           size = read_u32(range.data, 2);
            if (src + size > buffer_size(ins.b))
                fail(i, m, C::COPY_SOURCE, "source range " + std::to_string(src) + "+" + std::to_string(size) +
                               " is outside " + slot_label(ins.b) + " of " +
                               std::to_string(buffer_size(ins.b)) + " bytes");
            if (dst + size > buffer_size(ins.c))
                fail(i, m, C::COPY_DESTINATION, "destination range " + std::to_string(dst) + "+" +
                               std::to_string(size) + " is outside " + slot_label(ins.c) +
                               " of " + std::to_string(buffer_size(ins.c)) + " bytes");
        }
        if (info.rules & isa::rule::BUFFER_RANGE) {
            if (ins.c % isa::kRangeAlignment != 0)
                fail(i, m, C::ALIGNMENT, "range offset " + std::to_string(ins.c) +
                                             " is not a multiple of " +
                                             std::to_string(isa::kRangeAlignment));
            if (ins.d == 0 || ins.d > isa::kMaxRangeSize)
                fail(i, m, C::RANGE_SIZE, "range size " + std::to_string(ins.d) +
                                              " is outside 1.." +
                                              std::to_string(isa::kMaxRangeSize));
            if (uint64_t(ins.c) + ins.d > buffer_size(ins.b))
                fail(i, m, C::BUFFER_BOUNDS, "range " + std::to_string(ins.c) + "+" +
                                                 std::to_string(ins.d) + " is outside " +
                                                 slot_label(ins.b) + " of " +
                                                 std::to_string(buffer_size(ins.b)) + " bytes");
        }
        if ((info.rules & isa::rule::REG_RANGE4) && ins.a > isa::kNumRegisters - 4)
            fail(i, m, C::REGISTER_RANGE, "registers r" + std::to_string(ins.a) + "..r" + std::to_string(ins.a + 3) +
                           " go past r7");
        if ((info.rules & isa::rule::SKIP_NEXT) && i + 1 >= n_)
            fail(i, m, C::SKIP_NEXT, "there is no next instruction to skip");
        if (info.rules & isa::rule::UNIFORM_SIZE) {
            const uint64_t have = p_.constants[ins.c].data.size();
            const uint64_t need = 4ull * isa::kUniformComponents[ins.d];
            if (have != need)
                fail(i, m, C::UNIFORM_SIZE,
                     "constant " + std::to_string(ins.c) + " has " + std::to_string(have) +
                         " bytes; uniform type " + std::to_string(ins.d) + " needs " +
                         std::to_string(need));
        }
        if (info.rules & isa::rule::VIEWPORT_SIZE) {
            const Constant &rect = p_.constants[ins.b];
            const auto width = static_cast<int32_t>(read_u32(rect.data, 2));
            const auto height = static_cast<int32_t>(read_u32(rect.data, 3));
            if (width < 0 || height < 0)
                fail(i, m, C::VIEWPORT_SIZE,
                     "viewport width " + std::to_string(width) + " and height " +
                         std::to_string(height) + " must be >= 0");
        }
        if (info.rules & isa::rule::GROUP_COUNT) {
            const uint64_t groups = uint64_t(ins.b) * ins.c * ins.d;  // in 64 bits: no wrap
            if (groups > isa::kMaxDispatchGroups)
                fail(i, m, C::GROUP_COUNT,
                     "dispatch of " + std::to_string(ins.b) + " x " + std::to_string(ins.c) +
                         " x " + std::to_string(ins.d) + " = " + std::to_string(groups) +
                         " work groups is above " + std::to_string(isa::kMaxDispatchGroups) +
                         " (2**32 - 1, what drivers count)");
        }
    }

    const ProgramImage &p_;
    const uint32_t n_;
};

}  // namespace

void verify(const ProgramImage &program) { Verifier(program).run(); }

}  // namespace hypergl
