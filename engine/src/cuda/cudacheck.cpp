#include "cudacheck.h"

#include <string>

namespace slicescope::cuda {

bool isStickyError(cudaError_t error) {
    switch (error) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case cudaErrorAssert:
    case cudaErrorECCUncorrectable:
    case cudaErrorContextIsDestroyed:
    case cudaErrorUnknown:
        return true;
    default:
        return false;
    }
}

Error cudaError(cudaError_t error, const char* callText) {
    std::string message = std::string(callText) + " failed: " + cudaGetErrorName(error) + " (" +
                          cudaGetErrorString(error) + ")";
    Error::Code code = Error::Code::Internal;
    switch (error) {
    case cudaErrorMemoryAllocation:
        code = Error::Code::InsufficientMemory;
        break;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInvalidDevice:
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorUnsupportedPtxVersion:
    case cudaErrorDevicesUnavailable:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
        code = Error::Code::Unsupported;
        break;
    default:
        code = isStickyError(error) ? Error::Code::DeviceFault : Error::Code::Internal;
        break;
    }
    return Error{code, std::move(message)};
}

} // namespace slicescope::cuda
