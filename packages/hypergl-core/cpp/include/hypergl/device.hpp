// The interface through which the interpreter reaches the GPU. Three devices
// implement it: gl (real OpenGL), trace (records every call) and null (does
// nothing: measures pure dispatch). The same verified program runs on all.
//
// The interpreter has already checked every operand, statically or at run time,
// before it calls a device; devices report their own failures by throwing
// std::runtime_error, which the interpreter turns into a VMError.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "hypergl/indirect.hpp"
#include "hypergl/resources.hpp"

namespace hypergl {

class Device {
  public:
    virtual ~Device() = default;
    virtual const char *name() const = 0;

    // Called once at the start and end of every submit.
    virtual void begin_run() {}
    virtual void end_run() {}
    // After a run: throws std::runtime_error if the device saw an error
    // (the gl device reports pending GL errors here).
    virtual void check_after_run() {}
    // After a call into the context that failed (its error is on its way to the
    // caller): forget what else the device saw, so that it does not fail the next,
    // unrelated call (Context::Entry calls it).
    virtual void discard_errors() {}

    // One pure virtual function per entry of the ISA table's device-call list
    // (isa.DEVICE_CALLS): e.g. `virtual void draw(uint32_t count, uint32_t first,
    // uint32_t instances) = 0;`. `uniform`'s type is an isa UNIFORM_TYPES index
    // and its data the components; `fence_wait` returns false on a timeout.
#define HYPERGL_DECLARE_DEVICE_CALL(RETURN, NAME, PARAMS, IDLE) virtual RETURN NAME PARAMS = 0;
    HYPERGL_DEVICE_CALLS(HYPERGL_DECLARE_DEVICE_CALL)
#undef HYPERGL_DECLARE_DEVICE_CALL

    // Before the CPU reads a mapped buffer (load, skip_if_zero, ...): a GPU
    // device makes earlier GPU writes visible (barrier + fence wait).
    virtual void prepare_cpu_read(Buffer &) {}

    // True when the device bounds the next indirect call's commands itself, on
    // the GPU (they may have been written there since the CPU last synchronised):
    // the interpreter then calls indirect_limits() before the call and
    // indirect_overrun() at the end of the run. Otherwise the commands (and the
    // count) in CPU-visible memory are current, and the interpreter reads them
    // and charges them before the call.
    virtual bool indirect_on_gpu(const Buffer & /*commands*/, const Buffer * /*counts*/) const {
        return false;
    }
    virtual void indirect_limits(const IndirectLimits &) {}
    // The first indirect call of the run that asked for more than was left
    // (may wait for the GPU; `stop` as for any wait).
    virtual std::optional<IndirectOverrun> indirect_overrun() { return std::nullopt; }

    // Set by the interpreter for the length of a run (nullptr outside one):
    // `stop()` is true when the user asked the run to stop (Ctrl+C).
    void set_stop_check(const std::function<bool()> *stop) { stop_ = stop; }

  protected:
    // After a call that may have blocked (a draw the driver ran at once): throws
    // Interrupted when the stop check, asked at most every 10 ms, says so.
    void poll_stop();
    // Between slices of a long wait: asks the stop check now.
    bool stop_requested() const { return stop_ && *stop_ && (*stop_)(); }
    const std::function<bool()> *stop_check() const { return stop_; }

  private:
    const std::function<bool()> *stop_ = nullptr;
    int64_t last_poll_ns_ = 0;
};

// A monotonic clock cheap enough to read after every draw (Linux's coarse
// clock: a few ns, a few ms of resolution, plenty for a 10 ms poll period).
int64_t poll_clock_ns();
constexpr int64_t kPollPeriodNs = 10'000'000;

}  // namespace hypergl

// Declares every device call as an override, in a device's class body.
#define HYPERGL_OVERRIDE_DEVICE_CALL(RETURN, NAME, PARAMS, IDLE) RETURN NAME PARAMS override;
