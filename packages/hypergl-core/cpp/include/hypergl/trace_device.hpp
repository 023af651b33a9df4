// A device that records every GL-level call with its arguments, like an
// apitrace built in: for inspecting what a program does, and for tests of the
// interpreter that need no GPU. Host-side effects that need no GPU (buffer
// copies, uploads from external sources) are carried out on host memory, so
// programs that read buffers behave as they would on the gl device.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "hypergl/device.hpp"

namespace hypergl {

using TraceArg = std::variant<int64_t, double, std::string>;

struct TraceEntry {
    const char *call;  // the ISA mnemonic of the call (static storage)
    std::vector<TraceArg> args;
};

class TraceDevice final : public Device {
  public:
    const char *name() const override { return "trace"; }
    const std::vector<TraceEntry> &entries() const { return entries_; }
    void clear_entries() { entries_.clear(); }

    HYPERGL_DEVICE_CALLS(HYPERGL_OVERRIDE_DEVICE_CALL)

  private:
    void record(const char *call, std::vector<TraceArg> args) {
        entries_.push_back(TraceEntry{call, std::move(args)});
    }
    std::vector<TraceEntry> entries_;
};

}  // namespace hypergl
