#pragma once

#include "slicescope/trace/trace.h"

#include <cstddef>
#include <cstdint>

// A synthetic trace for benchmarks and load tests: generated activity, never a measurement.
// Every run is named "synthetic-N", is in "recorded" mode with the generator as its command, and
// carries a note saying it is synthetic, so a reader who opens the file cannot mistake it.
namespace slicescope::bench {

struct SyntheticOptions {
    std::size_t events = 1'000'000; // activities in the whole trace
    int runs = 4;                   // the events are spread over this many runs
    std::uint64_t seed = 1;         // same seed, same trace
};

// What a CUDA application's profile looks like, repeated: per iteration on host thread 0 an
// HtoD cudaMemcpyAsync, three cudaLaunchKernel calls, a DtoH cudaMemcpyAsync and a
// cudaStreamSynchronize; on the device the two copies and three kernels on three streams; on host
// thread 1 a verification. Durations are mixed: API calls of a few microseconds, kernels spread
// log-normally around 15 us, copies sized 64 KiB..4 MiB, and now and then a kernel of tens of
// milliseconds and a host checkpoint of 100+ ms. A run of 250,000 events spans about 3 s, so at
// full zoom on 1920 pixels nearly every event is narrower than a pixel.
trace::Trace makeSyntheticTrace(const SyntheticOptions& options);

} // namespace slicescope::bench
