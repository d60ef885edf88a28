// The slicescope-trace writer: streams the text out, one activity per line.
#include "tracewriter.h"

#include "../device/devicejson.h"
#include "jsontext.h"
#include "slicescope/trace/tracelimits.h"
#include "sweepjson.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <unordered_set>

namespace slicescope::trace {

namespace {

// Appends a trace's JSON text to out; when drain is set, hands it the text in ~1 MiB pieces so
// million-event traces stream to a file without a copy of the whole text in memory.
class TraceWriter {
  public:
    TraceWriter(std::string& out, std::function<void(std::string&)> drain)
        : out_(out), drain_(std::move(drain)) {}

    void write(const Trace& trace) {
        out_ += "{\n  \"format\": ";
        appendJsonString(out_, kFormatName);
        out_ += ",\n  \"version\": ";
        appendInteger(out_, kFormatVersion);
        out_ += ",\n  \"generator\": ";
        appendJsonString(out_, trace.generator);
        out_ += ",\n  \"runs\": [";
        for (std::size_t i = 0; i < trace.runs.size(); ++i) {
            out_ += i == 0 ? "\n" : ",\n";
            writeRun(trace.runs[i]);
        }
        out_ += trace.runs.empty() ? "]" : "\n  ]";
        if (!trace.sweeps.empty()) {
            out_ += ",\n  \"sweeps\": ";
            out_ += sweepsToJson(trace.sweeps)
                        .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        }
        out_ += "\n}\n";
        if (drain_) {
            drain_(out_);
        }
    }

  private:
    void key(std::string_view name) {
        out_ += ",\n      \"";
        out_ += name;
        out_ += "\": ";
    }
    void inlineKey(std::string_view name, bool first = false) {
        out_ += first ? "\"" : ", \"";
        out_ += name;
        out_ += "\": ";
    }
    void dim3(const Dim3& d) {
        out_ += '[';
        appendUnsigned(out_, d.x);
        out_ += ", ";
        appendUnsigned(out_, d.y);
        out_ += ", ";
        appendUnsigned(out_, d.z);
        out_ += ']';
    }
    void optionalDouble(const std::optional<double>& value) {
        if (value) {
            appendDouble(out_, *value);
        } else {
            out_ += "null";
        }
    }

    void writeRun(const Run& run) {
        out_ += "    {\n      \"id\": ";
        appendJsonString(out_, run.id);
        key("strategy");
        appendJsonString(out_, run.strategy);
        key("mode");
        appendJsonString(out_, toString(run.mode));
        key("problem");
        if (run.problem) {
            const auto& p = *run.problem;
            out_ += '{';
            inlineKey("shape", true);
            out_ += '[';
            appendUnsigned(out_, p.shape.r);
            out_ += ", ";
            appendUnsigned(out_, p.shape.c);
            out_ += ", ";
            appendUnsigned(out_, p.shape.n);
            out_ += ']';
            inlineKey("dtype");
            appendJsonString(out_, problem::toString(p.dtype));
            inlineKey("work_per_element");
            appendUnsigned(out_, p.workPerElement);
            out_ += '}';
        } else {
            out_ += "null";
        }
        key("device");
        auto deviceJson = device::deviceToJson(run.device, false);
        if (run.ceilings) {
            deviceJson["ceilings"] = ceilingsToJson(*run.ceilings);
        }
        out_ += deviceJson.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        key("launch");
        if (run.launch) {
            const auto& l = *run.launch;
            out_ += '{';
            inlineKey("grid", true);
            dim3(l.grid);
            inlineKey("block");
            dim3(l.block);
            inlineKey("workers");
            appendUnsigned(out_, l.workers);
            inlineKey("elements_per_worker");
            appendUnsigned(out_, l.elementsPerWorker);
            inlineKey("layout");
            appendJsonString(out_, l.layout);
            inlineKey("block_option");
            appendJsonString(out_, l.blockOption);
            inlineKey("grid_stride");
            out_ += l.gridStride ? "true" : "false";
            inlineKey("registers_per_thread");
            appendUnsigned(out_, l.registersPerThread);
            inlineKey("static_shared_bytes");
            appendUnsigned(out_, l.staticSharedBytes);
            inlineKey("dynamic_shared_bytes");
            appendUnsigned(out_, l.dynamicSharedBytes);
            out_ += '}';
        } else {
            out_ += "null";
        }
        key("occupancy");
        if (run.occupancy) {
            const auto& o = *run.occupancy;
            out_ += '{';
            inlineKey("theoretical", true);
            appendDouble(out_, o.theoretical);
            inlineKey("achieved");
            optionalDouble(o.achieved);
            inlineKey("thread_slots_busy");
            appendDouble(out_, o.threadSlotsBusy);
            inlineKey("limiter");
            appendJsonString(out_, o.limiter);
            inlineKey("explanation");
            appendJsonString(out_, o.explanation);
            inlineKey("active_blocks_per_sm");
            appendUnsigned(out_, o.activeBlocksPerSm);
            inlineKey("sm_busy_share");
            optionalDouble(o.smBusyShare);
            out_ += '}';
        } else {
            out_ += "null";
        }
        key("verification");
        if (run.verification) {
            out_ += '{';
            inlineKey("passed", true);
            out_ += run.verification->passed ? "true" : "false";
            inlineKey("max_abs_error");
            appendDouble(out_, run.verification->maxAbsError);
            out_ += '}';
        } else {
            out_ += "null";
        }
        key("memory_mode");
        appendJsonString(out_, run.memoryMode);
        key("repeat");
        appendUnsigned(out_, run.repeat);
        if (run.warmup != 0) {
            key("warmup");
            appendUnsigned(out_, run.warmup);
        }
        key("chunks");
        appendUnsigned(out_, run.chunks);
        key("streams");
        appendUnsigned(out_, run.streams);
        key("wall_ns");
        appendInteger(out_, run.wallNs);
        key("created_at");
        appendJsonString(out_, run.createdAt);
        if (!run.batch.empty()) { // most traces are one batch: the field is left out
            key("batch");
            appendJsonString(out_, run.batch);
        }
        key("command");
        appendJsonString(out_, run.command);
        key("exit_status");
        if (run.exitStatus) {
            appendInteger(out_, *run.exitStatus);
        } else {
            out_ += "null";
        }
        key("dropped_records");
        appendUnsigned(out_, run.droppedRecords);
        key("notes");
        out_ += '[';
        for (std::size_t i = 0; i < run.notes.size(); ++i) {
            out_ += i == 0 ? "" : ", ";
            appendJsonString(out_, run.notes[i]);
        }
        out_ += ']';
        if (run.sweep) {
            key("sweep");
            out_ += sweepPointToJson(*run.sweep)
                        .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        }
        key("occupancy_series");
        out_ += '[';
        for (std::size_t i = 0; i < run.occupancySeries.size(); ++i) {
            out_ += i == 0 ? "[" : ", [";
            appendInteger(out_, run.occupancySeries[i].timeNs);
            out_ += ", ";
            appendFloat(out_, run.occupancySeries[i].value);
            out_ += ']';
            drainIfLarge();
        }
        out_ += ']';
        key("activities");
        out_ += '[';
        for (std::size_t i = 0; i < run.activities.size(); ++i) {
            out_ += i == 0 ? "\n        " : ",\n        ";
            writeActivity(run, run.activities[i]);
            drainIfLarge();
        }
        out_ += run.activities.empty() ? "]\n    }" : "\n      ]\n    }";
    }

    void field(std::string_view name) {
        out_ += ",\"";
        out_ += name;
        out_ += "\":";
    }

    // Writes a field when it applies to the kind (so other tools find it where they expect
    // it) or holds something other than its default (so nothing is lost on a round trip).
    void writeActivity(const Run& run, const Activity& a) {
        const bool copy = isCopy(a.kind);
        const bool kernel = a.kind == ActivityKind::Kernel;
        const bool device = isDeviceActivity(a.kind);
        const bool hostSide = !device;
        out_ += "{\"kind\":\"";
        out_ += toString(a.kind);
        out_ += "\",\"start_ns\":";
        appendInteger(out_, a.startNs);
        field("end_ns");
        appendInteger(out_, a.endNs);
        if (const std::string_view name = run.name(a); !name.empty()) {
            field("name");
            appendJsonString(out_, name);
        }
        if (copy || a.kind == ActivityKind::Memset || a.bytes != 0) {
            field("bytes");
            appendUnsigned(out_, a.bytes);
        }
        if (copy || a.srcKind != MemoryKind::Unknown) {
            field("src_kind");
            appendJsonString(out_, toString(a.srcKind));
        }
        if (copy || a.kind == ActivityKind::Memset || a.dstKind != MemoryKind::Unknown) {
            field("dst_kind");
            appendJsonString(out_, toString(a.dstKind));
        }
        if (kernel || a.grid != Dim3{}) {
            field("grid");
            compactDim3(a.grid);
        }
        if (kernel || a.block != Dim3{}) {
            field("block");
            compactDim3(a.block);
        }
        if (kernel || a.registersPerThread != 0) {
            field("registers_per_thread");
            appendUnsigned(out_, a.registersPerThread);
        }
        if (kernel || a.staticSharedBytes != 0) {
            field("static_shared_bytes");
            appendUnsigned(out_, a.staticSharedBytes);
        }
        if (kernel || a.dynamicSharedBytes != 0) {
            field("dynamic_shared_bytes");
            appendUnsigned(out_, a.dynamicSharedBytes);
        }
        if (device || a.stream != 0) {
            field("stream");
            appendUnsigned(out_, a.stream);
        }
        if (device || a.kind == ActivityKind::Api || a.correlationId != 0) {
            field("correlation_id");
            appendUnsigned(out_, a.correlationId);
        }
        if (hostSide || a.threadId != 0) {
            field("thread_id");
            appendUnsigned(out_, a.threadId);
        }
        if (a.iteration != 0) {
            field("iteration");
            appendUnsigned(out_, a.iteration);
        }
        if (!std::isnan(a.theoreticalOccupancy)) {
            field("theoretical_occupancy");
            appendFloat(out_, a.theoreticalOccupancy);
        }
        if (!std::isnan(a.achievedOccupancy)) {
            field("achieved_occupancy");
            appendFloat(out_, a.achievedOccupancy);
        }
        if (!std::isnan(a.activeLaneShare)) {
            field("active_lane_share");
            appendFloat(out_, a.activeLaneShare);
        }
        if (a.warmup) {
            field("warmup");
            out_ += "true";
        }
        out_ += '}';
    }

    void compactDim3(const Dim3& d) {
        out_ += '[';
        appendUnsigned(out_, d.x);
        out_ += ',';
        appendUnsigned(out_, d.y);
        out_ += ',';
        appendUnsigned(out_, d.z);
        out_ += ']';
    }

    void drainIfLarge() {
        if (drain_ && out_.size() >= (std::size_t(1) << 20)) {
            drain_(out_);
        }
    }

    std::string& out_;
    std::function<void(std::string&)> drain_;
};

} // namespace

void writeTraceText(const Trace& trace, std::string& out,
                    const std::function<void(std::string&)>& drain) {
    TraceWriter(out, drain).write(trace);
}

Status checkReadsBack(const Trace& trace) {
    if (trace.generator.size() > kMaxLongTextBytes) {
        return fail(Error::Code::InvalidArgument, "\"generator\" is longer than " +
                                                      std::to_string(kMaxLongTextBytes) +
                                                      " bytes (the file could not be read back)");
    }
    if (!trace.sweeps.empty()) {
        if (auto sweeps = sweepsFromJson(sweepsToJson(trace.sweeps)); !sweeps) {
            return fail(Error::Code::InvalidArgument,
                        "invalid \"sweeps\": " + sweeps.error().message +
                            " (the file could not be read back)");
        }
    }
    std::unordered_set<std::string_view> ids;
    for (const auto& run : trace.runs) {
        const auto bad = [&run](const std::string& what) {
            return fail(Error::Code::InvalidArgument, "run '" + run.id.substr(0, 100) +
                                                          "': " + what +
                                                          " (the file could not be read back)");
        };
        if (!ids.insert(run.id).second) {
            return bad("another run has the same id");
        }
        if (auto problem = runLimitError(run)) {
            return bad(*problem);
        }
        if (run.problem) {
            const auto& p = *run.problem;
            if (auto made = problem::makeProblem(p.shape, p.dtype, p.workPerElement); !made) {
                return bad("invalid \"problem\": " + made.error().message);
            }
        }
        // The reader maps the device through deviceFromJson: ask it.
        if (auto device = device::deviceFromJson(device::deviceToJson(run.device, false));
            !device) {
            return bad("invalid \"device\": " + device.error().message);
        }
        if (run.sweep) {
            if (auto point = sweepPointFromJson(sweepPointToJson(*run.sweep)); !point) {
                return bad("invalid \"sweep\": " + point.error().message);
            }
        }
        if (run.ceilings) {
            if (auto ceilings = ceilingsFromJson(ceilingsToJson(*run.ceilings)); !ceilings) {
                return bad("invalid \"ceilings\": " + ceilings.error().message);
            }
        }
        for (std::size_t i = 0; i < run.occupancySeries.size(); ++i) {
            const auto& sample = run.occupancySeries[i];
            if (sample.timeNs < 0 || !std::isfinite(sample.value)) {
                return bad("\"occupancy_series\" sample " + std::to_string(i) +
                           " needs a time >= 0 and a finite value");
            }
        }
        for (std::size_t i = 0; i < run.activities.size(); ++i) {
            const Activity& a = run.activities[i];
            if (a.startNs < 0) {
                return bad("activity " + std::to_string(i) + ": \"start_ns\" (" +
                           std::to_string(a.startNs) + ") is negative");
            }
            if (a.endNs < a.startNs) {
                return bad("activity " + std::to_string(i) + ": \"end_ns\" (" +
                           std::to_string(a.endNs) + ") is before \"start_ns\" (" +
                           std::to_string(a.startNs) + ")");
            }
        }
    }
    return {};
}

} // namespace slicescope::trace
