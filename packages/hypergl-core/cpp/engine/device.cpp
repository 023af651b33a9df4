#include "hypergl/device.hpp"

#include <chrono>
#include <ctime>

#include "hypergl/errors.hpp"

namespace hypergl {

int64_t poll_clock_ns() {
#if defined(CLOCK_MONOTONIC_COARSE)
    timespec now;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
    return int64_t(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
#else
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
#endif
}

void Device::poll_stop() {
    if (!stop_ || !*stop_) return;
    const int64_t now = poll_clock_ns();
    if (now - last_poll_ns_ < kPollPeriodNs) return;
    last_poll_ns_ = now;
    if ((*stop_)()) throw Interrupted();
}

}  // namespace hypergl
