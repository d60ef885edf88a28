// slicescope-bench-model: the model beside measurement. Reads measured traces (slicescope-cli run,
// e.g. those scripts/model-validate.sh writes), models each measured GPU run for its own problem,
// strategy, block option, memory mode and repeat count on the preset named like the run's device,
// and prints a markdown table: measured and modelled kernel time per repetition, their ratio, and
// whether the model is within 1.5x (docs/model.md, "Validation"). Exit status 1 when any run is
// outside 1.5x or cannot be compared, 2 on a usage error.
// With --fit SAMPLE it fits the model's kernel constants to the calibration sample instead
// (docs/model.md, "Calibration") and prints them beside the ones in the code; exit status 1 when
// they differ.
#include "slicescope/backend/modelbackend.h"
#include "slicescope/backend/modelfit.h"
#include "slicescope/trace/tracejson.h"

#include <cmath>
#include <cstdio>
#include <string>

using namespace slicescope;

namespace {

std::string formatNs(double ns) {
    char text[32];
    if (ns >= 1e6) {
        std::snprintf(text, sizeof text, "%.3g ms", ns / 1e6);
    } else {
        std::snprintf(text, sizeof text, "%.3g us", ns / 1e3);
    }
    return text;
}

int fit(const char* path) {
    auto sample = trace::readTrace(path);
    if (!sample) {
        std::fprintf(stderr, "slicescope-bench-model: %s: %s\n", path,
                     sample.error().message.c_str());
        return 2;
    }
    auto fitted = backend::fitModelConstants(*sample);
    if (!fitted) {
        std::fprintf(stderr, "slicescope-bench-model: %s: %s\n", path,
                     fitted.error().message.c_str());
        return 2;
    }
    const backend::ModelParameters code;
    const auto& m = fitted->parameters;
    std::printf("| constant | fitted to %s | in the code |\n|---|---|---|\n", path);
    std::printf("| l2MissCycles | %.0f | %.0f |\n", m.l2MissCycles, code.l2MissCycles);
    std::printf("| lineMissCycles | %.0f | %.0f |\n", m.lineMissCycles, code.lineMissCycles);
    std::printf("| blockLaunchCycles | %.0f | %.0f |\n\n", m.blockLaunchCycles,
                code.blockLaunchCycles);
    std::printf("| fitted strategy | measured per launch | modelled with the fit | modelled / "
                "measured |\n|---|---|---|---|\n");
    for (const auto& r : fitted->residuals) {
        std::printf("| %s | %s | %s | %.3f |\n", r.strategy.c_str(),
                    formatNs(r.measuredKernelNs).c_str(), formatNs(r.modelledKernelNs).c_str(),
                    r.modelledKernelNs / r.measuredKernelNs);
    }
    const bool same = m.l2MissCycles == code.l2MissCycles &&
                      m.lineMissCycles == code.lineMissCycles &&
                      m.blockLaunchCycles == code.blockLaunchCycles;
    std::printf("\n%s\n", same ? "the code's constants are this sample's fit"
                               : "the code's constants differ from this sample's fit");
    return same ? 0 : 1;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
        std::fprintf(stderr, "usage: slicescope-bench-model TRACE.json...\n"
                             "       slicescope-bench-model --fit SAMPLE.json\n"
                             "Compares each measured GPU run with the model on the matching "
                             "preset; prints a markdown table. With --fit, fits the model's "
                             "kernel constants to the calibration sample.\n");
        return argc < 2 ? 2 : 0;
    }
    if (std::string(argv[1]) == "--fit") {
        if (argc != 3) {
            std::fprintf(stderr, "usage: slicescope-bench-model --fit SAMPLE.json\n");
            return 2;
        }
        return fit(argv[2]);
    }
    constexpr double kTarget = 1.5;
    int outside = 0;
    int failed = 0;
    std::printf("| strategy | setting | preset | measured per rep | modelled | modelled / measured "
                "| within %.1fx |\n",
                kTarget);
    std::printf("|---|---|---|---|---|---|---|\n");
    for (int i = 1; i < argc; ++i) {
        auto trace = trace::readTrace(argv[i]);
        if (!trace) {
            std::fprintf(stderr, "slicescope-bench-model: %s: %s\n", argv[i],
                         trace.error().message.c_str());
            ++failed;
            continue;
        }
        for (const auto& run : trace->runs) {
            if (run.mode != trace::RunMode::MeasuredGpu) {
                continue;
            }
            auto c = backend::compareWithModel(run);
            if (!c) {
                std::fprintf(stderr, "slicescope-bench-model: %s: %s: %s\n", argv[i],
                             run.id.c_str(), c.error().message.c_str());
                ++failed;
                continue;
            }
            const double ratio = c->ratio();
            const bool within = ratio <= kTarget && ratio >= 1 / kTarget;
            outside += within ? 0 : 1;
            std::printf("| %s | %s | %s | %s | %s | %.3f | %s |\n", run.strategy.c_str(),
                        c->setting.c_str(), c->presetId.c_str(),
                        formatNs(c->measuredKernelNs).c_str(),
                        formatNs(c->modelledKernelNs).c_str(), ratio, within ? "yes" : "no");
        }
    }
    std::printf("\n%d outside %.1fx, %d not compared\n", outside, kTarget, failed);
    return outside + failed > 0 ? 1 : 0;
}
