#include "fuzzchecks.h"

#include "device/devicejson.h" // engine-internal: the mapping both presets and traces use
#include "slicescope/device/devicespec.h"
#include "slicescope/problem/problem.h"
#include "slicescope/trace/exporters.h"
#include "slicescope/trace/traceimport.h"
#include "slicescope/trace/tracejson.h"
#include "slicescope/trace/tracelimits.h"

#include <nlohmann/json.hpp>
#include <sstream>

namespace slicescope::fuzz {

namespace {

// nlohmann::json's verdict on text, as the id of the exception it would raise (0: valid JSON).
class JsonVerdict : public nlohmann::json_sax<nlohmann::json> {
  public:
    static int of(std::string_view text) {
        JsonVerdict verdict;
        const bool valid = nlohmann::json::sax_parse(text, &verdict);
        return valid ? 0 : verdict.id_;
    }
    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t&) override { return true; }
    bool string(string_t&) override { return true; }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override { return true; }
    bool key(string_t&) override { return true; }
    bool end_object() override { return true; }
    bool start_array(std::size_t) override { return true; }
    bool end_array() override { return true; }
    bool parse_error(std::size_t, const std::string&, const nlohmann::json::exception& e) override {
        id_ = e.id;
        return false;
    }

  private:
    int id_ = -1;
};

// out_of_range.406: a number beyond a double. JSON's grammar allows it (RFC 8259 leaves the
// range to implementations) and the reader skips it in an unknown field, so it is no disagreement.
constexpr int kNumberOverflow = 406;

// A Parse error that says where: "byte N" in JSON, "line N" in an Nsight Compute CSV.
bool isParseErrorSayingWhere(const Error& error, trace::TraceFormat format) {
    const char* where = format == trace::TraceFormat::NcuCsv ? "line " : "byte ";
    return error.code == Error::Code::Parse && error.message.rfind(where, 0) == 0;
}

std::string checkExports(const trace::Trace& trace) {
    std::ostringstream csv;
    trace::writeCsv(trace, csv);
    std::ostringstream chrome;
    trace::writeChromeTrace(trace, chrome);
    if (!nlohmann::json::accept(chrome.str())) {
        return "the Chrome trace export is not valid JSON";
    }
    for (const auto& run : trace.runs) {
        std::ostringstream table;
        trace::printGpuTrace(run, table);
    }
    return {};
}

} // namespace

std::string checkTraceInput(std::string_view data) {
    double lastFraction = -1;
    bool progressInRange = true;
    trace::ReadOptions options;
    options.progress = [&](double fraction) {
        progressInRange = progressInRange && fraction >= lastFraction && fraction <= 1.0;
        lastFraction = fraction;
    };
    const auto trace = trace::parseTrace(data, options);
    const trace::TraceFormat format = trace::detectFormat(data);
    if (!trace) {
        if (!isParseErrorSayingWhere(trace.error(), format)) {
            return "a rejected trace is not a Parse error saying where: " +
                   std::string(toString(trace.error().code)) + ": " + trace.error().message;
        }
        return {};
    }
    // Differential: what the hand-written reader accepts must be JSON to nlohmann::json too.
    if (const int verdict = JsonVerdict::of(data);
        format != trace::TraceFormat::NcuCsv && verdict != 0 && verdict != kNumberOverflow) {
        return "the reader accepted text that nlohmann::json rejects (exception id " +
               std::to_string(verdict) + ")";
    }
    if (!progressInRange || lastFraction != 1.0) {
        return "progress went backwards, past 1, or did not end at 1";
    }
    for (const auto& run : trace->runs) {
        for (const auto& activity : run.activities) {
            if (activity.nameId >= run.strings.size() || activity.endNs < activity.startNs) {
                return "an accepted activity has a name id out of range or ends before it starts";
            }
        }
    }
    const std::string text = trace::toJson(*trace);
    if (!nlohmann::json::accept(text)) {
        return "the writer's text for an accepted trace is not valid JSON";
    }
    const auto again = trace::parseTrace(text);
    if (!again) {
        return "the reader rejects what the writer wrote for an accepted trace: " +
               again.error().message;
    }
    if (trace::toJson(*again) != text) {
        return "a write-read-write round trip changed the text";
    }
    return checkExports(*trace);
}

namespace {

// An import of data as `format`: rejected as a Parse error saying where, or a trace within every
// limit of the format, in time order, that writes out and reads back to the same text.
std::string checkImport(std::string_view data, trace::TraceFormat format) {
    double lastFraction = -1;
    bool progressInRange = true;
    trace::ReadOptions options;
    options.progress = [&](double fraction) {
        progressInRange = progressInRange && fraction >= lastFraction && fraction <= 1.0;
        lastFraction = fraction;
    };
    const auto trace = trace::importTrace(data, format, options);
    if (!trace) {
        return isParseErrorSayingWhere(trace.error(), format)
                   ? std::string()
                   : "a rejected import is not a Parse error saying where: " +
                         trace.error().message;
    }
    if (format == trace::TraceFormat::Kineto) {
        if (const int verdict = JsonVerdict::of(data); verdict != 0 && verdict != kNumberOverflow) {
            return "the import accepted text that nlohmann::json rejects (exception id " +
                   std::to_string(verdict) + ")";
        }
    }
    if (!progressInRange || lastFraction != 1.0) {
        return "progress went backwards, past 1, or did not end at 1";
    }
    for (const auto& run : trace->runs) {
        if (run.mode != trace::RunMode::Imported || !run.source) {
            return "an imported run is not marked imported with its source";
        }
        if (const auto refusal = trace::runLimitError(run)) {
            return "an imported run breaks a limit of the format: " + *refusal;
        }
        for (std::size_t i = 0; i < run.activities.size(); ++i) {
            const auto& a = run.activities[i];
            if (a.nameId >= run.strings.size() ||
                (i > 0 && a.startNs < run.activities[i - 1].startNs)) {
                return "an imported activity has a name id out of range or is out of order";
            }
        }
    }
    const std::string text = trace::toJson(*trace);
    const auto again = trace::parseTrace(text);
    if (!again) {
        return "the reader rejects the import written out: " + again.error().message;
    }
    if (trace::toJson(*again) != text) {
        return "an import's write-read-write round trip changed the text";
    }
    return checkExports(*trace);
}

} // namespace

std::string checkKinetoInput(std::string_view data) {
    return checkImport(data, trace::TraceFormat::Kineto);
}

std::string checkNcuInput(std::string_view data) {
    return checkImport(data, trace::TraceFormat::NcuCsv);
}

std::string checkDeviceInput(std::string_view data) {
    // The presets file parser (device::parsePresets) must reject or accept, never crash.
    if (const auto presets = device::parsePresets(data); presets) {
        for (const auto& preset : *presets) {
            if (!nlohmann::json::accept(device::toJson(preset, true))) {
                return "a parsed preset does not write out as valid JSON";
            }
        }
    }
    const auto object = nlohmann::json::parse(data, nullptr, false);
    if (object.is_discarded()) {
        return {};
    }
    const auto spec = device::deviceFromJson(object);
    if (!spec) {
        return spec.error().code == Error::Code::Parse
                   ? std::string()
                   : "deviceFromJson failed with a code other than Parse: " + spec.error().message;
    }
    const nlohmann::json written = device::deviceToJson(*spec, true);
    // Every figure the input gave is kept as given: a value the field cannot hold is an error,
    // not silently changed. (compute_capability is normalised, "09.0" to "9.0"; sources are
    // checked by the round trip below.)
    for (const auto& [key, value] : written.items()) {
        if (key == "compute_capability" || key == "sources") {
            continue;
        }
        const auto given = object.find(key);
        if (given != object.end() && *given != value) {
            return "device field \"" + key + "\" was given as " + given->dump() + " but reads as " +
                   value.dump();
        }
    }
    const auto again = device::deviceFromJson(written);
    if (!again) {
        return "deviceFromJson rejects what deviceToJson wrote: " + again.error().message;
    }
    if (device::deviceToJson(*again, true) != written) {
        return "a device write-read-write round trip changed it";
    }
    return {};
}

std::string checkShapeInput(std::string_view data) {
    (void)problem::parseDtype(data);
    const auto shape = problem::parseShape(data);
    if (!shape) {
        const auto code = shape.error().code;
        return code == Error::Code::InvalidArgument || code == Error::Code::Overflow
                   ? std::string()
                   : "parseShape failed with an unexpected code: " + shape.error().message;
    }
    if (shape->r == 0 || shape->c == 0 || shape->n == 0) {
        return "parseShape accepted a zero dimension";
    }
    const std::string text =
        std::to_string(shape->r) + "x" + std::to_string(shape->c) + "x" + std::to_string(shape->n);
    const auto again = problem::parseShape(text);
    if (!again || *again != *shape) {
        return "parseShape does not read back " + text;
    }
    for (const auto dtype : {problem::Dtype::F64, problem::Dtype::F32}) {
        const auto made = problem::makeProblem(*shape, dtype, 1);
        if (made) {
            (void)made->arrayBytes();
            (void)made->multByBytes();
            (void)made->arithmeticIntensity();
            (void)made->describe();
        }
    }
    return {};
}

} // namespace slicescope::fuzz
