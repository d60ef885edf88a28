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

namespace {

// A trace's runs lent one at a time, with its sweeps: what the writer and its check walk.
RunsToWrite lent(const Trace& trace) {
    return {trace.generator, trace.runs.size(),
            [&trace](std::size_t index) -> const Run& { return trace.runs[index]; }};
}

void writeText(const RunsToWrite& runs, const std::vector<Sweep>& sweeps, std::string& out,
               const std::function<bool(std::string&)>& drain) {
    schema::WriteContext context{out, &drain};
    out += "{\n  \"format\": ";
    appendJsonString(out, kFormatName);
    out += ",\n  \"version\": ";
    appendInteger(out, kFormatVersion);
    out += ",\n  \"generator\": ";
    appendJsonString(out, runs.generator);
    out += ",\n  \"runs\": [";
    for (std::size_t i = 0; i < runs.count && !context.stopped; ++i) {
        out += i == 0 ? "\n" : ",\n";
        schema::writeObject<schema::RunSchema, schema::Layout::Lines>(context, runs.run(i));
    }
    out += runs.count == 0 ? "]" : "\n  ]";
    if (!sweeps.empty()) {
        out += ",\n  \"sweeps\": ";
        out += sweepsToJson(sweeps).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
    out += "\n}\n";
    if (drain && !context.stopped) {
        drain(out);
    }
}

Status checkText(const RunsToWrite& runs, const std::vector<Sweep>& sweeps) {
    if (runs.generator.size() > kMaxLongTextBytes) {
        return fail(Error::Code::InvalidArgument, "\"generator\" is longer than " +
                                                      std::to_string(kMaxLongTextBytes) +
                                                      " bytes (the file could not be read back)");
    }
    if (!sweeps.empty()) {
        if (auto read = sweepsFromJson(sweepsToJson(sweeps)); !read) {
            return fail(Error::Code::InvalidArgument,
                        "invalid \"sweeps\": " + read.error().message +
                            " (the file could not be read back)");
        }
    }
    // The ids themselves: a lent run may be refilled before the next is checked.
    std::unordered_set<std::string> ids;
    ids.reserve(runs.count);
    for (std::size_t i = 0; i < runs.count; ++i) {
        const Run& run = runs.run(i);
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

Status writeLimited(const RunsToWrite& runs, const std::vector<Sweep>& sweeps,
                    const std::filesystem::path& path, std::uint64_t maxBytes) {
    if (auto readable = checkText(runs, sweeps); !readable) {
        return fail(readable.error().code,
                    "cannot write " + path.string() + ": " + readable.error().message);
    }
    bool tooLarge = false;
    auto written = writeFileAtomically(path, [&](std::ostream& stream) {
        std::string buffer;
        buffer.reserve((std::size_t(1) << 20) + 65536);
        std::uint64_t total = 0;
        writeText(runs, sweeps, buffer, [&](std::string& text) {
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

} // namespace

void writeTraceText(const Trace& trace, std::string& out,
                    const std::function<bool(std::string&)>& drain) {
    writeText(lent(trace), trace.sweeps, out, drain);
}

void writeTraceText(const RunsToWrite& runs, std::string& out,
                    const std::function<bool(std::string&)>& drain) {
    writeText(runs, {}, out, drain);
}

Status checkReadsBack(const Trace& trace) {
    return checkText(lent(trace), trace.sweeps);
}

Status checkReadsBack(const RunsToWrite& runs) {
    return checkText(runs, {});
}

Status writeTraceLimited(const Trace& trace, const std::filesystem::path& path,
                         std::uint64_t maxBytes) {
    return writeLimited(lent(trace), trace.sweeps, path, maxBytes);
}

Status writeTraceLimited(const RunsToWrite& runs, const std::filesystem::path& path,
                         std::uint64_t maxBytes) {
    return writeLimited(runs, {}, path, maxBytes);
}

} // namespace slicescope::trace
