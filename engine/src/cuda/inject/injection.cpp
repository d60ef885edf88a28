// libslicescope-inject.so: the CUDA injection library behind `slicescope-cli record`. The CUDA
// driver loads it in cuInit when CUDA_INJECTION64_PATH names it and calls InitializeInjection,
// where it may use CUPTI but no CUDA API. It records into the spool directory the recorder named
// in SLICESCOPE_RECORD_DIR (see injectionrecorder.h for what is kept, and when).

#include "injectionrecorder.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

namespace {

using slicescope::cuda::InjectionConfig;
using slicescope::cuda::InjectionRecorder;

std::atomic<InjectionRecorder*> recorder{nullptr};
std::atomic<bool> initialized{false};
// Set in a child forked (without exec) from a recorded process: it shares the parent's spool
// file, and must not write an End frame into it.
std::atomic<bool> forkedChild{false};

constexpr int kSignalFlushTimeoutMs = 2000;

// Signals whose default action ends the process. Handled only where the program left the default
// in place; a program that handles one itself ends through its own path (often exit()).
constexpr int kFatalSignals[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGABRT, SIGSEGV,
                                 SIGBUS,  SIGFPE, SIGILL, SIGPIPE, SIGXCPU, SIGXFSZ};

void onFatalSignal(int signal) {
    static std::atomic<bool> handling{false};
    if (!handling.exchange(true) && !forkedChild.load()) {
        if (auto* r = recorder.load()) {
            r->finishOnSignal(signal, kSignalFlushTimeoutMs);
        }
    }
    // Die of the signal as the program would have: default action, signal unblocked.
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(signal, &dfl, nullptr);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, signal);
    pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
    raise(signal);
}

void installSignalHandlers() {
    for (int signal : kFatalSignals) {
        struct sigaction current {};
        if (sigaction(signal, nullptr, &current) != 0 || current.sa_handler != SIG_DFL ||
            (current.sa_flags & SA_SIGINFO) != 0) {
            continue;
        }
        struct sigaction handler {};
        handler.sa_handler = onFatalSignal;
        sigemptyset(&handler.sa_mask);
        handler.sa_flags = SA_RESTART;
        sigaction(signal, &handler, nullptr);
    }
}

void onExit() {
    if (forkedChild.load()) {
        return;
    }
    if (auto* r = recorder.load()) {
        r->finishAtExit();
    }
}

void onForkChild() {
    forkedChild.store(true);
}

} // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
    if (initialized.exchange(true)) {
        return 1;
    }
    auto config = InjectionConfig::fromEnvironment();
    if (!config) {
        std::fprintf(stderr, "slicescope-inject: not recording: %s\n",
                     config.error().message.c_str());
        return 1; // the program runs on, unrecorded
    }
    auto started = InjectionRecorder::start(*config);
    if (!started) {
        std::fprintf(stderr, "slicescope-inject: not recording: %s\n",
                     started.error().message.c_str());
        return 1;
    }
    recorder.store(*started);
    pthread_atfork(nullptr, nullptr, onForkChild);
    std::atexit(onExit);
    installSignalHandlers();
    return 1;
}
