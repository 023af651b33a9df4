#include "hypergl/program.hpp"

#include <cstring>

#include "hypergl/errors.hpp"

namespace hypergl {

const char *mnemonic_of(uint32_t opcode) {
    const isa::OpInfo *info = isa::op_info(opcode);
    return info ? info->mnemonic : "?";
}

ProgramImage make_program(const uint8_t *code, size_t code_size, std::vector<Constant> constants,
                          std::vector<Slot> slots, std::vector<uint32_t> subroutine_entries,
                          std::vector<std::string> subroutine_names) {
    if (code_size % isa::kInstructionSize != 0)
        throw VerifyFailure(-1, "", isa::VerifyCode::CODE_LENGTH,
                            "code size " + std::to_string(code_size) +
                                " is not a multiple of 16 bytes");
    if (code_size / isa::kInstructionSize >= 0xFFFFFFFFull)
        throw VerifyFailure(-1, "", isa::VerifyCode::CODE_LENGTH,
                            "program has too many instructions");
    ProgramImage image;
    const size_t count = code_size / isa::kInstructionSize;
    image.code.resize(count + 1);
    if (count) std::memcpy(image.code.data(), code, code_size);
    image.code[count] = Instruction{static_cast<uint16_t>(isa::Opcode::HALT), 0, 0, 0, 0};
    image.constants = std::move(constants);
    image.slots = std::move(slots);
    image.subroutine_entries = std::move(subroutine_entries);
    image.subroutine_names = std::move(subroutine_names);
    image.subroutine_names.resize(image.subroutine_entries.size());
    return image;
}

}  // namespace hypergl
