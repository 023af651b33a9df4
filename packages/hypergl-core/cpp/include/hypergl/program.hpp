// A program image: decoded instructions, constant pool, slot table and
// subroutine entries, exactly as recorded by hypergl_compiler. Never a pointer
// in the bytecode: resources are slot indices, bound at submit time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hypergl/isa_generated.hpp"

namespace hypergl {

struct Instruction {
    uint16_t op;
    uint16_t a;
    uint32_t b;
    uint32_t c;
    uint32_t d;
};
static_assert(sizeof(Instruction) == isa::kInstructionSize, "instructions are 16 bytes");
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "HyperGL bytecode is little-endian; big-endian hosts need byte swapping"
#endif

struct Constant {
    isa::ConstKind kind;
    std::vector<uint8_t> data;
};

struct Slot {
    isa::ResourceKind kind;
    std::string name;
    uint64_t size = 0;  // declared size in bytes (buffers)
};

struct ProgramImage {
    // Recorded instructions followed by one sentinel `halt`, so a jump to the
    // end (target == count) stops without a bounds check in the loop.
    std::vector<Instruction> code;
    std::vector<Constant> constants;
    std::vector<Slot> slots;
    std::vector<uint32_t> subroutine_entries;
    std::vector<std::string> subroutine_names;

    uint32_t instruction_count() const { return static_cast<uint32_t>(code.size() - 1); }
};

// Builds an image from raw bytecode; throws VerifyFailure(index -1) if the
// code size is not a multiple of 16. Call verify() before running it.
ProgramImage make_program(const uint8_t *code, size_t code_size, std::vector<Constant> constants,
                          std::vector<Slot> slots, std::vector<uint32_t> subroutine_entries,
                          std::vector<std::string> subroutine_names);

// Mnemonic of an opcode, or "?" if there is no such op.
const char *mnemonic_of(uint32_t opcode);

}  // namespace hypergl
