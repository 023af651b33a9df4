// The authoritative static verifier. Runs once per program, before its first
// execution; afterwards the interpreter trusts every static operand.
#pragma once

#include "hypergl/program.hpp"

namespace hypergl {

// Throws VerifyFailure naming the first bad instruction (index, mnemonic,
// reason, and the isa::VerifyCode of the rule). Checks, in this order:
// subroutine entries; then per instruction: known opcode, fields a, b, c, d by
// operand kind (unused fields zero, registers, immediates' bounds, jump
// targets, constants with their element type and count, subroutines, typed
// slots), then the op's rules (static buffer offsets, jump tables, copy
// ranges, register ranges, skips, uniform constant sizes, viewport sizes).
// hypergl_compiler.verify implements the same order and codes; a test
// compares them.
void verify(const ProgramImage &program);

}  // namespace hypergl
