#include "cupticheck.h"

#include <cupti.h>
#include <string>

namespace slicescope::cuda {

namespace {
constexpr std::string_view kPrivilegeHint =
    " (reading GPU performance counters needs administrator rights, or the driver option "
    "NVreg_RestrictProfilingToAdminUsers=0)";
}

Error cuptiError(CUptiResult result, const char* callText) {
    const char* text = nullptr;
    if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || text == nullptr) {
        text = "unknown CUPTI error";
    }
    std::string message = std::string(callText) + " failed: " + text + " (CUPTI error " +
                          std::to_string(int(result)) + ")";
    Error::Code code = Error::Code::Internal;
    switch (result) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
        message += kPrivilegeHint;
        code = Error::Code::Unsupported;
        break;
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_COMPATIBLE:
    case CUPTI_ERROR_NOT_INITIALIZED:
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_INVALID_CHIP_NAME:
    case CUPTI_ERROR_CUDA_COMPILER_NOT_COMPATIBLE:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
        code = Error::Code::Unsupported;
        break;
    default:
        break;
    }
    return Error{code, std::move(message)};
}

bool isPrivilegeError(const Error& error) {
    return error.message.find("CUPTI_ERROR_INSUFFICIENT_PRIVILEGES") != std::string::npos ||
           error.message.find(std::string(kPrivilegeHint)) != std::string::npos;
}

} // namespace slicescope::cuda
