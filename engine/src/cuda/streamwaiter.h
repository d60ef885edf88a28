#pragma once

// Waits for a CUDA stream on a thread of its own, so the caller can give up after a timeout: a
// kernel that never ends must not hang the program. One thread for the whole session (CUPTI
// gives every new thread its own activity buffer, so a thread per wait would cost a buffer each).

#include <cuda_runtime_api.h>
#include <memory>
#include <optional>
#include <thread>

namespace slicescope::cuda {

class StreamWaiter {
  public:
    // Starts the waiting thread; it makes `device` current before its first wait.
    explicit StreamWaiter(int device);
    ~StreamWaiter(); // joins the thread, unless abandoned
    StreamWaiter(const StreamWaiter&) = delete;
    StreamWaiter& operator=(const StreamWaiter&) = delete;

    // cudaStreamSynchronize's result, or nothing when the stream did not finish in time. After a
    // timeout the thread is still waiting inside the driver: abandon() it.
    std::optional<cudaError_t> wait(cudaStream_t stream, double timeoutS);
    // Lets the stuck thread go; the process is expected to end soon (std::_Exit).
    void abandon();

  private:
    struct State;
    std::shared_ptr<State> state_;
    std::thread thread_;
};

} // namespace slicescope::cuda
