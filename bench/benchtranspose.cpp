// slicescope-bench-transpose: the host layout pass of slice-middle (compute/transpose.h) against
// the row-at-a-time loop it replaced and against numpy's np.ascontiguousarray(a.transpose(1, 0,
// 2)) on the same machine, in one run (docs/performance.md, "Host layout passes"). Medians of
// --repeat timings of each direction (R x C x N -> C x R x N and back) per shape and type.
//   slicescope-bench-transpose [--repeat N] [--no-numpy]
// numpy's column comes from `python3` when it imports numpy, and says why when it does not.
#include "slicescope/compute/transpose.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <omp.h>
#include <string>
#include <vector>

using namespace slicescope;

namespace {

struct Shape {
    std::uint64_t r, c, n;
};

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values.empty() ? 0 : values[values.size() / 2];
}

template <typename F> double medianMs(int repeat, F&& pass) {
    std::vector<double> ms;
    for (int i = 0; i < repeat; ++i) {
        const auto start = std::chrono::steady_clock::now();
        pass();
        const auto end = std::chrono::steady_clock::now();
        ms.push_back(std::chrono::duration<double, std::milli>(end - start).count());
    }
    return median(ms);
}

// Both directions, one after the other, as slice-middle pays them in a repetition.
template <typename T, typename F> double bothWaysMs(const Shape& s, int repeat, F&& transpose) {
    std::vector<T> rcn(s.r * s.c * s.n), crn(rcn.size()), back(rcn.size());
    std::iota(rcn.begin(), rcn.end(), T(0));
    transpose(rcn.data(), crn.data(), s.r, s.c, s.n); // first touch of the outputs, untimed
    transpose(crn.data(), back.data(), s.c, s.r, s.n);
    return medianMs(repeat, [&] {
        transpose(rcn.data(), crn.data(), s.r, s.c, s.n);
        transpose(crn.data(), back.data(), s.c, s.r, s.n);
    });
}

// numpy's figure for the same shape and both directions, or a negative number and why not.
double numpyMs(const Shape& s, const char* dtype, int repeat, std::string& why) {
    const std::string script = "import time, numpy as np\n"
                               "a = np.arange(" +
                               std::to_string(s.r * s.c * s.n) + ", dtype=np." + dtype +
                               ").reshape(" + std::to_string(s.r) + "," + std::to_string(s.c) +
                               "," + std::to_string(s.n) +
                               ")\n"
                               "t = []\n"
                               "for i in range(" +
                               std::to_string(repeat + 1) +
                               "):\n"
                               "    s = time.perf_counter()\n"
                               "    b = np.ascontiguousarray(a.transpose(1, 0, 2))\n"
                               "    c = np.ascontiguousarray(b.transpose(1, 0, 2))\n"
                               "    t.append((time.perf_counter() - s) * 1e3)\n"
                               "t = sorted(t[1:])\n"
                               "print(t[len(t) // 2])\n";
    const std::string command = "python3 -c '" + script + "' 2>&1";
    FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) {
        why = "python3 could not be started";
        return -1;
    }
    std::array<char, 512> line{};
    std::string output;
    while (std::fgets(line.data(), int(line.size()), pipe) != nullptr) {
        output += line.data();
    }
    const int status = ::pclose(pipe);
    char* end = nullptr;
    const double ms = std::strtod(output.c_str(), &end);
    if (status != 0 || end == output.c_str()) {
        // The last line says why (a traceback ends with its exception).
        while (!output.empty() && output.back() == '\n') {
            output.pop_back();
        }
        why = output.empty() ? "python3 failed" : output.substr(output.rfind('\n') + 1);
        return -1;
    }
    return ms;
}

template <typename T> void benchShape(const Shape& s, const char* dtype, int repeat, bool numpy) {
    const double naive = bothWaysMs<T>(s, repeat, compute::transposeRowsNaive<T>);
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    const double serial = bothWaysMs<T>(s, repeat, compute::transposeRows<T>);
    omp_set_num_threads(threads);
    const double parallel = bothWaysMs<T>(s, repeat, compute::transposeRows<T>);
    std::string why;
    const double np = numpy ? numpyMs(s, dtype, repeat, why) : -1;
    char numpyText[64] = "not measured";
    if (np >= 0) {
        std::snprintf(numpyText, sizeof numpyText, "%.2f ms (parallel / numpy %.2f)", np,
                      parallel / np);
    }
    std::printf("| %llux%llux%llu %s | %.2f ms | %.2f ms | %.2f ms (%d threads) | %.2fx | %s |\n",
                (unsigned long long)s.r, (unsigned long long)s.c, (unsigned long long)s.n, dtype,
                naive, serial, parallel, threads, naive / parallel, numpyText);
    if (numpy && np < 0) {
        std::printf("numpy not measured: %s\n", why.c_str());
    }
}

} // namespace

int main(int argc, char** argv) {
    int repeat = 21;
    bool numpy = true;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
            repeat = std::max(1, std::atoi(argv[++i]));
        } else if (std::strcmp(argv[i], "--no-numpy") == 0) {
            numpy = false;
        } else {
            std::fprintf(stderr, "usage: slicescope-bench-transpose [--repeat N] [--no-numpy]\n");
            return 2;
        }
    }
    std::printf("Both directions (R x C x N -> C x R x N -> R x C x N), median of %d\n\n", repeat);
    std::printf("| shape | row at a time | blocked, 1 thread | blocked, parallel | speed-up | "
                "numpy |\n|---|---|---|---|---|---|\n");
    for (const Shape& s :
         {Shape{100, 4000, 5}, Shape{1000, 4000, 5}, Shape{4000, 100, 5}, Shape{100, 4000, 1}}) {
        benchShape<double>(s, "float64", repeat, numpy);
        benchShape<float>(s, "float32", repeat, numpy);
    }
    return 0;
}
