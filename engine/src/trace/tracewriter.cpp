// The slicescope-trace writer: streams the text out, one activity per line, as the schema
// (traceschema.h) that the reader shares lays it out.
#include "tracewriter.h"

#include "jsontext.h"
#include "slicescope/trace/atomicfile.h"
#include "slicescope/trace/tracelimits.h"
#include "sweepjson.h"
#include "traceschema.h"

#include <nlohmann/json.hpp>
#include <unordered_set>

namespace slicescope::trace {

void writeTraceText(const Trace& trace, std::string& out,
                    const std::function<bool(std::string&)>& drain) {
    schema::WriteContext context{out, &drain};
    out += "{\n  \"format\": ";
    appendJsonString(out, kFormatName);
    out += ",\n  \"version\": ";
    appendInteger(out, kFormatVersion);
    out += ",\n  \"generator\": ";
    appendJsonString(out, trace.generator);
    out += ",\n  \"runs\": [";
    for (std::size_t i = 0; i < trace.runs.size() && !context.stopped; ++i) {
        out += i == 0 ? "\n" : ",\n";
        schema::writeObject<schema::RunSchema, schema::Layout::Lines>(context, trace.runs[i]);
    }
    out += trace.runs.empty() ? "]" : "\n  ]";
    if (!trace.sweeps.empty()) {
        out += ",\n  \"sweeps\": ";
        out += sweepsToJson(trace.sweeps)
                   .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
    out += "\n}\n";
    if (drain && !context.stopped) {
        drain(out);
    }
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
        if (auto refusal = schema::checkObject<schema::RunSchema>(run)) {
            return bad(*refusal);
        }
    }
    return {};
}

Status writeTraceLimited(const Trace& trace, const std::filesystem::path& path,
                         std::uint64_t maxBytes) {
    if (auto readable = checkReadsBack(trace); !readable) {
        return fail(readable.error().code,
                    "cannot write " + path.string() + ": " + readable.error().message);
    }
    bool tooLarge = false;
    auto written = writeFileAtomically(path, [&](std::ostream& stream) {
        std::string buffer;
        buffer.reserve((std::size_t(1) << 20) + 65536);
        std::uint64_t total = 0;
        writeTraceText(trace, buffer, [&](std::string& text) {
            total += text.size();
            if (total > maxBytes) {
                tooLarge = true;
                stream.setstate(std::ios::badbit); // the temporary file is removed
                return false;
            }
            stream.write(text.data(), std::streamsize(text.size()));
            text.clear();
            return true;
        });
    });
    if (tooLarge) {
        return fail(Error::Code::OutOfRange,
                    "cannot write " + path.string() + ": the trace would be more than " +
                        std::to_string(maxBytes) + " bytes, the most a trace file may have (" +
                        "docs/trace-format.md, \"Limits\"); it could not be read back, so " +
                        "nothing was written. Record fewer runs, repetitions or chunks per file");
    }
    return written;
}

} // namespace slicescope::trace
