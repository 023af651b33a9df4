// Failures the engine reports. The bindings turn them into the Python
// exceptions hypergl_compiler.VerifyError and hypergl.VMError.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "hypergl/isa_generated.hpp"

namespace hypergl {

// A failure tied to one instruction: its index (or -1), its mnemonic and why.
class InstructionError : public std::runtime_error {
  public:
    InstructionError(int64_t index, std::string mnemonic, std::string reason)
        : std::runtime_error(describe(index, mnemonic, reason)),
          index_(index),
          mnemonic_(std::move(mnemonic)),
          reason_(std::move(reason)) {}

    int64_t index() const { return index_; }
    const std::string &mnemonic() const { return mnemonic_; }
    const std::string &reason() const { return reason_; }

  private:
    static std::string describe(int64_t index, const std::string &mnemonic,
                                const std::string &reason) {
        if (index < 0) return "program: " + reason;
        return "instruction " + std::to_string(index) + " (" + mnemonic + "): " + reason;
    }
    int64_t index_;
    std::string mnemonic_;
    std::string reason_;
};

// The static verifier rejected a program; code() names the rule (isa.VerifyCode).
class VerifyFailure : public InstructionError {
  public:
    VerifyFailure(int64_t index, std::string mnemonic, isa::VerifyCode code, std::string reason)
        : InstructionError(index, std::move(mnemonic), std::move(reason)), code_(code) {}
    isa::VerifyCode code() const { return code_; }

  private:
    isa::VerifyCode code_;
};

// A verified program failed while running (dynamic check, budget, device error).
class VMFailure : public InstructionError {
    using InstructionError::InstructionError;
};

// The run was stopped because a Python signal handler raised (Ctrl+C).
class Interrupted : public std::exception {
  public:
    const char *what() const noexcept override { return "interrupted"; }
};

}  // namespace hypergl
