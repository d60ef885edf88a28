// Stands in for a CUDA program in tst_injectionlifecycle: loads the injection library and calls
// InitializeInjection as the driver's cuInit would, then ends the way argv[2] says. No CUDA is
// needed: without a driver CUPTI's calls fail, which the library writes to its spool, and the
// spool's framing, exit and signal paths are what is tested.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <signal.h>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

namespace {
extern "C" void exitNine(int) {
    std::exit(9);
}
} // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: injectionharness LIBRARY HOW\n");
        return 2;
    }
    const char* how = argv[2];
    if (std::strcmp(how, "handled-term") == 0) {
        // The program handles SIGTERM itself (as Python handles SIGINT) before CUDA starts.
        signal(SIGTERM, exitNine);
    }
    void* library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
        std::fprintf(stderr, "dlopen: %s\n", dlerror());
        return 2;
    }
    auto* initialize = reinterpret_cast<int (*)()>(dlsym(library, "InitializeInjection"));
    if (initialize == nullptr || initialize() != 1) {
        std::fprintf(stderr, "InitializeInjection missing or failed\n");
        return 2;
    }
    if (std::strcmp(how, "exit") == 0) {
        std::exit(5);
    } else if (std::strcmp(how, "_exit") == 0) {
        _exit(6);
    } else if (std::strcmp(how, "abort") == 0) {
        std::abort();
    } else if (std::strcmp(how, "throw") == 0) {
        throw std::runtime_error("an uncaught exception");
    } else if (std::strcmp(how, "term") == 0 || std::strcmp(how, "handled-term") == 0) {
        raise(SIGTERM);
    } else if (std::strcmp(how, "kill") == 0) {
        raise(SIGKILL);
    } else if (std::strcmp(how, "segv") == 0) {
        volatile int* nowhere = nullptr;
        *nowhere = 1;
    } else if (std::strcmp(how, "fork") == 0) {
        // A child forked without exec shares the spool; its exit must not end the parent's.
        const pid_t child = fork();
        if (child == 0) {
            std::exit(0);
        }
        int status = 0;
        waitpid(child, &status, 0);
    }
    return 0;
}
