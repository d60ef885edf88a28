#pragma once

// A GPU test may skip only for a reason that is not a failure: no device, no right to read the
// GPU's counters, or a device or configuration CUPTI does not support. A run's notes name the
// CUPTI error behind a missing figure (engine/src/cuda/cupticheck.cpp); any other cause (a decode
// error, a profiler call that failed, nothing said at all) is a failure the test must report.

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace slicescope::gpuskip {

// The CUPTI results that say "this machine cannot", not "this code failed".
inline constexpr std::array<std::string_view, 12> kNotAFailure = {
    "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES",
    "CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES",
    "CUPTI_ERROR_NOT_SUPPORTED",
    "CUPTI_ERROR_NOT_COMPATIBLE",
    "CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED",
    "CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED",
    "CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED",
    "CUPTI_ERROR_INVALID_CHIP_NAME",
    "CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED",
    "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED",
    "CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED",
    "CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED",
};

// The reason a missing GPU figure may be skipped, found in a run's notes; nothing when the notes
// show no such reason, and the test must then fail.
inline std::optional<std::string> skipReason(std::string_view notes) {
    for (const auto reason : kNotAFailure) {
        if (notes.find(reason) != std::string_view::npos) {
            return std::string(reason);
        }
    }
    return std::nullopt;
}

} // namespace slicescope::gpuskip
