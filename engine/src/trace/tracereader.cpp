// The slicescope-trace reader: a schema-directed single pass over the text (the schema, shared
// with the writer, is traceschema.h).
//
// Why not a DOM: a measured trace can hold millions of activities, and a DOM of them costs
// several hundred bytes and many allocations per activity. The reader instead walks the text
// once with a JsonCursor (jsoncursor.h), filling Activity structs in place and interning names
// as it goes; integers are parsed exactly (timestamps are ~1.7e18 ns, beyond a double's 53
// bits). Only the small device object goes through nlohmann::json, so that devicejson.cpp stays
// the one mapping of a DeviceSpec.
//
// The reader faces hostile files (fuzz targets run on it and on the cursor): the cursor
// bounds-checks every read and limits nesting, nothing is allocated from a size the file
// declares, and the first problem stops it with a message giving the byte offset and the
// run/activity index.
#include "tracereader.h"

#include "../core/jsontext.h"
#include "jsoncursor.h"
#include "slicescope/trace/tracelimits.h"
#include "sweepjson.h"
#include "traceschema.h"

#include <array>
#include <nlohmann/json.hpp>
#include <unordered_set>

namespace slicescope::trace {

namespace {

class TraceReader : public schema::ReadContext {
  public:
    TraceReader(std::string_view text, const ReadOptions& options)
        : ReadContext(cursor_), cursor_(text), options_(options) {
        json.setContext([this] { return context(); });
    }

    Result<Trace> read();
    bool checkpoint() override;

  private:
    std::string context() const;
    bool parseTop(Trace& trace);
    bool parseRun(Run& run);
    // A small object or array of the sweep fields (sweepjson.h), through nlohmann::json.
    template <typename T, typename FromJson>
    bool parseSmallJson(T& out, std::string_view name, FromJson&& fromJson);

    JsonCursor cursor_;
    const ReadOptions& options_;
    long long run_ = -1; // index of the run being read, for messages
};

std::string TraceReader::context() const {
    if (run_ < 0) {
        return {};
    }
    std::string where = " (run " + std::to_string(run_);
    if (activity >= 0) {
        where += ", activity " + std::to_string(activity);
    }
    return where + ")";
}

bool TraceReader::checkpoint() {
    if (options_.cancel != nullptr && options_.cancel->load(std::memory_order_relaxed)) {
        return json.fail(Error{Error::Code::Cancelled, "reading the trace was cancelled"});
    }
    if (options_.progress) {
        options_.progress(json.fraction());
    }
    return true;
}

Result<Trace> TraceReader::read() {
    Trace trace;
    json.skipByteOrderMark();
    json.skipSpace();
    if (json.atEnd()) {
        json.failHere("the file is empty (expected a slicescope-trace JSON object)");
    } else if (!json.peekIs('{')) {
        json.failHere("expected a JSON object with \"format\": \"slicescope-trace\", found " +
                      json.describeToken());
    } else if (parseTop(trace)) {
        json.skipSpace();
        if (!json.atEnd()) {
            json.failHere("unexpected text (" + json.describeToken() +
                          ") after the end of the trace");
        }
    }
    if (json.error()) {
        return tl::unexpected(*json.error());
    }
    if (options_.progress) {
        options_.progress(1.0);
    }
    return trace;
}

bool TraceReader::parseTop(Trace& trace) {
    static constexpr std::array<std::string_view, 5> kKeys{"format", "version", "generator", "runs",
                                                           "sweeps"};
    const char* start = json.position();
    std::uint32_t seen = 0;
    std::unordered_set<std::string> ids;
    const bool ok = json.parseObject(kKeys, "the trace", seen, [&](std::size_t key) {
        switch (key) {
        case 0: {
            const char* at = json.position();
            std::string_view format;
            if (!json.parseString(format, "\"format\"")) {
                return false;
            }
            if (format != kFormatName) {
                return json.failAt(at, "not a SliceScope trace: \"format\" is " + quoted(format) +
                                           ", expected \"" + std::string(kFormatName) + "\"");
            }
            return true;
        }
        case 1: {
            const char* at = json.position();
            std::int64_t version = 0;
            if (!json.parseSigned(version, "version")) {
                return false;
            }
            if (version != kFormatVersion) {
                return json.failAt(at, "unsupported trace version " + std::to_string(version) +
                                           " (this build reads version " +
                                           std::to_string(kFormatVersion) + ")");
            }
            return true;
        }
        case 2:
            return json.parseText(trace.generator, "generator", kMaxLongTextBytes);
        case 4:
            return parseSmallJson(trace.sweeps, "sweeps", sweepsFromJson);
        default: {
            Run taken; // with ReadOptions::takeRun, each run is read here and then handed over
            return json.parseArray("\"runs\"", [&](std::size_t index) {
                run_ = (long long)index;
                if (!checkpoint()) {
                    return false;
                }
                const char* runStart = json.position();
                if (options_.takeRun) {
                    taken = Run{};
                }
                Run& run = options_.takeRun ? taken : trace.runs.emplace_back();
                if (!parseRun(run)) {
                    return false;
                }
                // Runs are told apart by id (the GUI's session, the exports' Run column).
                if (!ids.insert(run.id).second) {
                    return json.failAt(runStart, "duplicate run id " + trace::quoted(run.id) +
                                                     " (ids are unique within a trace)");
                }
                if (options_.takeRun) {
                    options_.takeRun(std::move(run));
                }
                run_ = -1;
                return true;
            });
        }
        }
    });
    return ok && json.requireKeys(kKeys, seen, 0b1011, start, "the trace");
}

bool TraceReader::parseRun(Run& run) {
    namesCut = 0;
    if (!schema::readObject<schema::RunSchema>(*this, run)) {
        return false;
    }
    if (namesCut > 0) {
        std::string note = std::to_string(namesCut) + " activity name(s) longer than " +
                           std::to_string(kMaxNameBytes) +
                           " bytes were cut to that length when the trace was read";
        // A run at its limit of notes keeps the limit: this note replaces its last one.
        if (run.notes.size() >= kMaxNotes) {
            run.notes.back() = std::move(note);
        } else {
            run.notes.push_back(std::move(note));
        }
    }
    return true;
}

template <typename T, typename FromJson>
bool TraceReader::parseSmallJson(T& out, std::string_view name, FromJson&& fromJson) {
    const char* start = json.position();
    if (!json.skipValue(0)) {
        return false;
    }
    const auto object =
        parseJsonText(std::string_view(start, std::size_t(json.position() - start)));
    if (!object) {
        return json.failAt(start, object.error().code == Error::Code::OutOfRange
                                      ? "invalid " + field(name) + ": " + object.error().message
                                      : field(name) + " is not valid JSON");
    }
    auto value = fromJson(*object);
    if (!value) {
        return json.failAt(start, "invalid " + field(name) + ": " + value.error().message);
    }
    out = std::move(*value);
    return true;
}

} // namespace

Result<Trace> readTraceText(std::string_view text, const ReadOptions& options) {
    return TraceReader(text, options).read();
}

} // namespace slicescope::trace
