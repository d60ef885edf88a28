#include "streamwaiter.h"

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace slicescope::cuda {

struct StreamWaiter::State {
    std::mutex mutex;
    std::condition_variable changed;
    cudaStream_t stream = nullptr;
    bool pending = false; // a wait was asked for
    bool done = false;    // and has finished
    bool stop = false;
    cudaError_t result = cudaSuccess;
};

StreamWaiter::StreamWaiter(int device) : state_(std::make_shared<State>()) {
    // The thread holds the state too: after abandon() it may outlive this object.
    thread_ = std::thread([state = state_, device] {
        if (device != 0) {
            (void)cudaSetDevice(device);
        }
        std::unique_lock lock(state->mutex);
        for (;;) {
            state->changed.wait(lock,
                                [&] { return state->stop || (state->pending && !state->done); });
            if (state->stop) {
                return;
            }
            cudaStream_t stream = state->stream;
            lock.unlock();
            const cudaError_t result = cudaStreamSynchronize(stream);
            lock.lock();
            state->result = result;
            state->done = true;
            state->changed.notify_all();
        }
    });
}

StreamWaiter::~StreamWaiter() {
    if (thread_.joinable()) {
        {
            const std::lock_guard lock(state_->mutex);
            state_->stop = true;
        }
        state_->changed.notify_all();
        thread_.join();
    }
}

std::optional<cudaError_t> StreamWaiter::wait(cudaStream_t stream, double timeoutS) {
    std::unique_lock lock(state_->mutex);
    state_->stream = stream;
    state_->pending = true;
    state_->done = false;
    state_->changed.notify_all();
    if (!state_->changed.wait_for(lock, std::chrono::duration<double>(timeoutS),
                                  [&] { return state_->done; })) {
        return std::nullopt;
    }
    state_->pending = false;
    return state_->result;
}

void StreamWaiter::abandon() {
    if (thread_.joinable()) {
        thread_.detach();
    }
}

} // namespace slicescope::cuda
