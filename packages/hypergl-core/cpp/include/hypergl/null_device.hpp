// A device that does nothing: what remains is the interpreter's own cost.
#pragma once

#include "hypergl/device.hpp"

namespace hypergl {

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"  // every call ignores its arguments
#endif

class NullDevice final : public Device {
  public:
    const char *name() const override { return "null"; }
#define HYPERGL_NULL_DEVICE_CALL(RETURN, NAME, PARAMS, IDLE) \
    RETURN NAME PARAMS override { return IDLE; }
    HYPERGL_DEVICE_CALLS(HYPERGL_NULL_DEVICE_CALL)
#undef HYPERGL_NULL_DEVICE_CALL
};

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

}  // namespace hypergl
