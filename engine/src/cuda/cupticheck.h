#pragma once

// CUPTI_CHECK(call): runs a CUPTI call; on failure returns from the enclosing function (which
// returns a Result or Status) with an Error naming the call and CUPTI's own error string.

#include "slicescope/core/result.h"

#include <cupti_result.h>

namespace slicescope::cuda {

// The error for a failed CUPTI call: missing privileges and unsupported devices are
// Error::Code::Unsupported (the run goes on without that instrument), the rest Internal.
Error cuptiError(CUptiResult result, const char* callText);
bool isPrivilegeError(const Error& error);

} // namespace slicescope::cuda

#define CUPTI_CHECK(call)                                                                          \
    do {                                                                                           \
        const CUptiResult cuptiCheckResult_ = (call);                                              \
        if (cuptiCheckResult_ != CUPTI_SUCCESS) {                                                  \
            return ::tl::unexpected(::slicescope::cuda::cuptiError(cuptiCheckResult_, #call));     \
        }                                                                                          \
    } while (false)
