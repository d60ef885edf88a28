// A PyTorch profiler (Kineto) trace as a SliceScope run (docs/import.md): one schema-directed pass
// over "traceEvents" with the trace reader's JsonCursor, as the trace reader does (no DOM of a
// million events), then the devices of "deviceProperties" and each kernel's theoretical occupancy.
//
// What Kineto writes (its ChromeTraceLogger): complete events ("ph": "X") with "ts" and "dur" in
// microseconds with three decimals, relative to "baseTimeNanoseconds"; "cat" says what each is.
// Kernels carry their launch in "args" ("grid", "block", "registers per thread", "shared memory":
// static and dynamic together, "stream", "correlation", "est. achieved occupancy %"); copies say
// their direction and memory kinds in the name ("Memcpy HtoD (Pageable -> Device)") and their size
// in "args"; runtime calls and CPU operators sit on their host thread ("tid").
#include "importers.h"
#include "jsoncursor.h"
#include "slicescope/device/devicecompletion.h"
#include "slicescope/trace/tracelimits.h"

#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

namespace slicescope::trace::importers {

namespace {

constexpr std::size_t kCheckEvery = 8192; // events between looks at the cancel flag
constexpr std::int64_t kMaxTimeNs = std::int64_t(1) << 61; // "ts" and "baseTimeNanoseconds"

// The first `max` bytes of text, cut at a character boundary.
std::string_view prefixOf(std::string_view text, std::size_t max) {
    if (text.size() <= max) {
        return text;
    }
    while (max > 0 && (static_cast<unsigned char>(text[max]) & 0xC0) == 0x80) {
        --max;
    }
    return text.substr(0, max);
}

// What an event is, from its "cat" (older PyTorch versions wrote the capitalised names).
enum class Category : std::uint8_t { Other, Kernel, Memcpy, Memset, Runtime, CpuOp };

constexpr std::array<Word<Category>, 13> kCategories{{
    {"kernel", Category::Kernel},
    {"Kernel", Category::Kernel},
    {"gpu_memcpy", Category::Memcpy},
    {"Memcpy", Category::Memcpy},
    {"gpu_memset", Category::Memset},
    {"Memset", Category::Memset},
    {"cuda_runtime", Category::Runtime},
    {"Runtime", Category::Runtime},
    {"cuda_driver", Category::Runtime},
    {"Driver", Category::Runtime},
    {"cpu_op", Category::CpuOp},
    {"Operator", Category::CpuOp},
    {"user_annotation", Category::CpuOp},
}};

// Event categories that are no activity of a timeline: flows, metadata and markers.
constexpr std::array<std::string_view, 3> kSilentCategories{"ac2g", "fwdbwd", "Trace"};

// "Memcpy HtoD (Pageable -> Device)": the copy kinds (CUPTI's memcpyKindString) and the memory
// kinds (memoryKindString) Kineto names.
constexpr std::array<Word<ActivityKind>, 10> kCopyKinds{{
    {"HtoD", ActivityKind::HtoD},
    {"DtoH", ActivityKind::DtoH},
    {"DtoD", ActivityKind::DtoD},
    {"HtoH", ActivityKind::HtoH},
    {"PtoP", ActivityKind::DtoD}, // peer to peer: device to device across GPUs
    {"HtoA", ActivityKind::HtoD},
    {"AtoH", ActivityKind::DtoH},
    {"AtoA", ActivityKind::DtoD},
    {"AtoD", ActivityKind::DtoD},
    {"DtoA", ActivityKind::DtoD},
}};
constexpr std::array<Word<MemoryKind>, 8> kMemoryKinds{{
    {"Pageable", MemoryKind::Pageable},
    {"Pinned", MemoryKind::Pinned},
    {"Device", MemoryKind::Device},
    {"Array", MemoryKind::Array},
    {"Managed", MemoryKind::Managed},
    {"Device Static", MemoryKind::Device},
    {"Managed Static", MemoryKind::Managed},
    {"Unknown", MemoryKind::Unknown},
}};

MemoryKind memoryKindOf(std::string_view word) {
    return lookUp(kMemoryKinds, word).value_or(MemoryKind::Unknown);
}

// The copy's kind and memory kinds from its name; false when the name gives no direction.
bool parseCopyName(std::string_view name, Activity& a) {
    constexpr std::string_view kPrefix = "Memcpy ";
    if (!name.starts_with(kPrefix) || name.size() < kPrefix.size() + 4) {
        return false;
    }
    const auto kind = lookUp(kCopyKinds, name.substr(kPrefix.size(), 4));
    if (!kind) {
        return false;
    }
    a.kind = *kind;
    const std::size_t open = name.find('(');
    const std::size_t arrow = name.find(" -> ");
    const std::size_t close = name.rfind(')');
    if (open != std::string_view::npos && arrow != std::string_view::npos &&
        close != std::string_view::npos && open < arrow && arrow < close) {
        a.srcKind = memoryKindOf(name.substr(open + 1, arrow - open - 1));
        a.dstKind = memoryKindOf(name.substr(arrow + 4, close - arrow - 4));
    }
    return true;
}

// The fields of one event that the import reads; the rest of it is skipped.
struct Event {
    bool complete = false; // "ph": "X"
    Category category = Category::Other;
    std::string cat; // kept for the note on what was left out
    std::string name;
    bool pidIsNumber = false;
    bool tidIsNumber = false;
    std::int64_t pid = 0;
    std::int64_t tid = 0;
    std::int64_t tsNs = 0; // relative to baseTimeNanoseconds
    std::int64_t durNs = 0;
    bool hasTs = false;
    bool hasDur = false;
    // From "args".
    std::int64_t device = -1;
    std::int64_t stream = -1;
    std::int64_t correlation = 0;
    std::int64_t registers = 0;
    std::int64_t sharedBytes = 0;
    std::int64_t bytes = 0;
    std::int64_t estimatedPercent = -1;
    Dim3 grid, block;
    bool hasGrid = false;
    bool hasBlock = false;
};

class KinetoReader {
  public:
    KinetoReader(std::string_view text, const ReadOptions& options)
        : json_(text), options_(options), run_(importedRun(TraceFormat::Kineto, options)),
          names_(run_) {
        json_.setContext([this] {
            return event_ >= 0 ? " (event " + std::to_string(event_) + ")" : std::string();
        });
    }
    Result<Trace> read();

  private:
    bool parseTop();
    bool parseEvent();
    bool parseArgs(Event& e);
    bool parseDim3(Dim3& out, bool& valid, std::string_view name);
    bool parseMicroseconds(std::int64_t& ns, std::string_view name);
    bool parseId(bool& isNumber, std::int64_t& value, std::string_view name);
    bool parseDevices();
    void keep(Event& e);
    std::uint32_t internName(const std::string& name);
    bool finish();
    void addDevices();
    void addNotes(const OccupancyTally& occupancy);
    bool checkpoint();

    JsonCursor json_;
    const ReadOptions& options_;
    Run run_;
    NameTable names_;
    long long event_ = -1;
    Event e_;
    std::int64_t baseNs_ = 0;
    nlohmann::json deviceProperties_;
    std::vector<KernelOnDevice> kernels_;
    std::map<std::uint32_t, device::DeviceSpec> devices_;
    // Tallies for the notes.
    std::uint64_t copies_ = 0, memsets_ = 0, apiCalls_ = 0, cpuOps_ = 0;
    std::uint64_t invalid_ = 0, unknownCopies_ = 0, namesCut_ = 0;
    std::vector<std::pair<std::string, std::uint64_t>> leftOut_; // category, events
};

bool KinetoReader::checkpoint() {
    if (options_.cancel != nullptr && options_.cancel->load(std::memory_order_relaxed)) {
        return json_.fail(Error{Error::Code::Cancelled, "reading the trace was cancelled"});
    }
    if (options_.progress) {
        options_.progress(0.9 * json_.fraction());
    }
    return true;
}

Result<Trace> KinetoReader::read() {
    json_.skipByteOrderMark();
    json_.skipSpace();
    if (parseTop()) {
        json_.skipSpace();
        if (!json_.atEnd()) {
            json_.failHere("unexpected text (" + json_.describeToken() +
                           ") after the end of the trace");
        }
    }
    if (!json_.error()) {
        event_ = -1;
        finish();
    }
    if (json_.error()) {
        return tl::unexpected(*json_.error());
    }
    if (options_.progress) {
        options_.progress(1.0);
    }
    Trace trace;
    trace.generator = "slicescope import of a PyTorch profiler (Kineto) trace";
    trace.runs.push_back(std::move(run_));
    return trace;
}

bool KinetoReader::parseTop() {
    static constexpr std::array<std::string_view, 3> kKeys{"traceEvents", "deviceProperties",
                                                           "baseTimeNanoseconds"};
    const char* start = json_.position();
    std::uint32_t seen = 0;
    const bool ok = json_.parseObject(kKeys, "the trace", seen, [&](std::size_t key) {
        if (key == 1) {
            return parseDevices();
        }
        if (key == 2) {
            const char* at = json_.position();
            return json_.parseSigned(baseNs_, "baseTimeNanoseconds") &&
                   (baseNs_ >= 0 || json_.failAt(at, "\"baseTimeNanoseconds\" is negative")) &&
                   (baseNs_ <= kMaxTimeNs ||
                    json_.failAt(at, "\"baseTimeNanoseconds\" is more than 2^61 ns"));
        }
        const bool read = json_.parseArray("\"traceEvents\"", [&](std::size_t index) {
            event_ = (long long)index;
            if (index % kCheckEvery == 0 && index > 0 && !checkpoint()) {
                return false;
            }
            return parseEvent();
        });
        event_ = -1;
        return read;
    });
    return ok && json_.requireKeys(kKeys, seen, 0b1, start, "the trace");
}

// "deviceProperties": a small array, read through nlohmann::json once the cursor has checked it.
bool KinetoReader::parseDevices() {
    const char* start = json_.position();
    if (!json_.skipValue(0)) {
        return false;
    }
    // A few devices take a few hundred bytes each; a document tree of more could exhaust memory.
    constexpr std::ptrdiff_t kMaxBytes = 1 << 20;
    if (json_.position() - start > kMaxBytes) {
        return json_.failAt(start, "\"deviceProperties\" is larger than 1 MiB");
    }
    deviceProperties_ = nlohmann::json::parse(start, json_.position(), nullptr, false);
    if (deviceProperties_.is_discarded() || !deviceProperties_.is_array()) {
        return json_.failAt(start, "\"deviceProperties\" must be an array of objects");
    }
    return true;
}

bool KinetoReader::parseId(bool& isNumber, std::int64_t& value, std::string_view name) {
    if (json_.peekIs('"')) {
        std::string_view text;
        isNumber = false;
        return json_.parseString(text, name);
    }
    isNumber = true;
    return json_.parseSigned(value, name);
}

// A time in microseconds with up to three decimals, as Kineto writes it, in whole nanoseconds
// (exactly: an absolute timestamp has more digits than a double holds); an exponent or more
// decimals are rounded through a double.
bool KinetoReader::parseMicroseconds(std::int64_t& ns, std::string_view name) {
    const char* start = json_.position();
    bool integral = false;
    if (json_.atEnd() || !(json_.peekIs('-') || (*start >= '0' && *start <= '9'))) {
        return json_.atEnd() ? json_.failEnd(field(name))
                             : json_.failHere(field(name) + " must be a number, not " +
                                              json_.describeToken());
    }
    if (!json_.scanNumber(integral)) {
        return false;
    }
    const std::string_view text(start, std::size_t(json_.position() - start));
    // Within 2^61 ns (73 years) either side of "baseTimeNanoseconds", itself at most 2^61: no sum
    // of the two and a duration overflows.
    constexpr std::int64_t kLimit = kMaxTimeNs;
    const std::size_t dot = text.find('.');
    const bool exponent = text.find_first_of("eE") != std::string_view::npos;
    const std::size_t digits = dot == std::string_view::npos ? 0 : text.size() - dot - 1;
    if (!exponent && digits <= 3) {
        std::int64_t whole = 0;
        const std::string_view wholeText = text.substr(0, std::min(dot, text.size()));
        const auto [end, ec] =
            std::from_chars(wholeText.data(), wholeText.data() + wholeText.size(), whole);
        if (ec == std::errc() && end == wholeText.data() + wholeText.size() &&
            std::abs(whole) < kLimit / 1000) {
            std::int64_t fraction = 0;
            for (std::size_t i = 0; i < 3; ++i) {
                fraction = fraction * 10 + (i < digits ? text[dot + 1 + i] - '0' : 0);
            }
            ns = whole * 1000 + (text.starts_with('-') ? -fraction : fraction);
            return true;
        }
    }
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || !std::isfinite(value) || std::abs(value * 1000) >= double(kLimit)) {
        return json_.failAt(start, field(name) + " is out of range: " + quoted(text));
    }
    ns = std::llround(value * 1000);
    return true;
}

bool KinetoReader::parseDim3(Dim3& out, bool& valid, std::string_view name) {
    std::uint64_t parts[3] = {0, 0, 0};
    std::size_t count = 0;
    const bool done = json_.parseArray(field(name), [&](std::size_t index) {
        std::int64_t value = 0;
        if (!json_.parseSigned(value, name)) {
            return false;
        }
        if (index < 3) {
            parts[index] = value < 0 ? ~std::uint64_t(0) : std::uint64_t(value);
        }
        ++count;
        return true;
    });
    valid = count == 3 && parts[0] <= kMaxGridX && parts[1] <= kMaxGridX && parts[2] <= kMaxGridX;
    if (valid) {
        out = Dim3{std::uint32_t(parts[0]), std::uint32_t(parts[1]), std::uint32_t(parts[2])};
    }
    return done;
}

bool KinetoReader::parseEvent() {
    static constexpr std::array<std::string_view, 11> kKeys{
        "ph", "cat", "name", "pid", "tid", "ts", "dur", "args", "id", "bp", "s"};
    Event& e = e_;
    e.complete = false;
    e.category = Category::Other;
    e.cat.clear();
    e.name.clear();
    e.pidIsNumber = e.tidIsNumber = e.hasTs = e.hasDur = e.hasGrid = e.hasBlock = false;
    e.device = e.stream = e.estimatedPercent = -1;
    e.correlation = e.registers = e.sharedBytes = e.bytes = 0;
    const char* argsAt = nullptr;
    std::uint32_t seen = 0;
    const bool ok = json_.parseObject(kKeys, "an event", seen, [&](std::size_t key) {
        std::string_view text;
        switch (key) {
        case 0:
            e.complete = json_.parseString(text, "\"ph\"") && text == "X";
            return !json_.error();
        case 1: {
            if (!json_.parseString(text, "\"cat\"")) {
                return false;
            }
            e.category = lookUp(kCategories, text).value_or(Category::Other);
            e.cat.assign(prefixOf(text, 64));
            return true;
        }
        case 2:
            if (!json_.parseString(text, "\"name\"")) {
                return false;
            }
            e.name.assign(text);
            return true;
        case 3:
            return parseId(e.pidIsNumber, e.pid, "pid");
        case 4:
            return parseId(e.tidIsNumber, e.tid, "tid");
        case 5:
            e.hasTs = true;
            return parseMicroseconds(e.tsNs, "ts");
        case 6:
            e.hasDur = true;
            return parseMicroseconds(e.durNs, "dur");
        case 7:
            if ((seen & 0b10) == 0) {
                argsAt = json_.position(); // "cat" comes later: read them once it is known
                return json_.skipValue(0);
            }
            return e.category == Category::Other || e.category == Category::CpuOp
                       ? json_.skipValue(0)
                       : parseArgs(e);
        default:
            return json_.skipValue(0);
        }
    });
    if (!ok) {
        return false;
    }
    if (argsAt != nullptr && e.category != Category::Other && e.category != Category::CpuOp) {
        const char* after = json_.position();
        json_.rewindTo(argsAt);
        if (!parseArgs(e)) {
            return false;
        }
        json_.rewindTo(after);
    }
    keep(e);
    return true;
}

bool KinetoReader::parseArgs(Event& e) {
    // Every key Kineto writes for the events read here, in its order: an unknown key costs the
    // cursor an allocation, which a million kernels would feel.
    static constexpr std::array<std::string_view, 16> kKeys{"External id",
                                                            "queued",
                                                            "device",
                                                            "context",
                                                            "stream",
                                                            "correlation",
                                                            "registers per thread",
                                                            "shared memory",
                                                            "blocks per SM",
                                                            "warps per SM",
                                                            "grid",
                                                            "block",
                                                            "est. achieved occupancy %",
                                                            "bytes",
                                                            "memory bandwidth (GB/s)",
                                                            "cbid"};
    std::uint32_t seen = 0;
    return json_.parseObject(kKeys, "\"args\"", seen, [&](std::size_t key) {
        switch (key) {
        case 2:
            return json_.parseSigned(e.device, "device");
        case 4:
            return json_.parseSigned(e.stream, "stream");
        case 5:
            return json_.parseSigned(e.correlation, "correlation");
        case 6:
            return json_.parseSigned(e.registers, "registers per thread");
        case 7:
            return json_.parseSigned(e.sharedBytes, "shared memory");
        case 10:
            return parseDim3(e.grid, e.hasGrid, "grid");
        case 11:
            return parseDim3(e.block, e.hasBlock, "block");
        case 12: {
            // Kineto writes a whole percent, -99 when its calculation failed.
            double percent = 0;
            if (!json_.parseReal(percent, "est. achieved occupancy %", true)) {
                return false;
            }
            e.estimatedPercent = percent >= 0 && percent <= 100 ? std::llround(percent) : -1;
            return true;
        }
        case 13:
            return json_.parseSigned(e.bytes, "bytes");
        default:
            return json_.skipValue(0); // not read (a bandwidth, "inf" blocks per SM, ...)
        }
    });
}

// A value of the file as a 32-bit field, or `otherwise` when it does not fit.
std::uint32_t asU32(std::int64_t value, std::uint32_t otherwise = 0) {
    return value >= 0 && value <= std::int64_t(std::numeric_limits<std::uint32_t>::max())
               ? std::uint32_t(value)
               : otherwise;
}

void KinetoReader::keep(Event& e) {
    if (!e.complete) {
        return; // metadata, flows and instant markers: nothing on a timeline
    }
    if (e.category == Category::Other) {
        if (std::find(kSilentCategories.begin(), kSilentCategories.end(), e.cat) ==
            kSilentCategories.end()) {
            auto it = std::find_if(leftOut_.begin(), leftOut_.end(),
                                   [&e](const auto& row) { return row.first == e.cat; });
            if (it != leftOut_.end()) {
                ++it->second;
            } else if (leftOut_.size() < 32) {
                leftOut_.emplace_back(e.cat, 1);
            }
        }
        return;
    }
    if (!e.hasTs || !e.hasDur || e.durNs < 0 || e.durNs > kMaxDurationNs) {
        ++invalid_;
        return;
    }
    Activity a;
    a.startNs = e.tsNs;
    a.endNs = e.tsNs + e.durNs;
    a.correlationId = asU32(e.correlation);
    const std::uint32_t stream = e.stream >= 0 ? asU32(e.stream) : asU32(e.tid);
    const std::uint32_t thread = e.tidIsNumber ? asU32(e.tid) : 0;
    switch (e.category) {
    case Category::Kernel:
        if (!e.hasGrid || !e.hasBlock || dim3LimitError(e.grid, false) ||
            dim3LimitError(e.block, true) || e.registers < 0 ||
            e.registers > std::int64_t(kMaxRegistersPerThread) || e.sharedBytes < 0 ||
            e.sharedBytes > std::int64_t(kMaxSharedMemoryBytes)) {
            ++invalid_;
            return;
        }
        a.kind = ActivityKind::Kernel;
        a.grid = e.grid;
        a.block = e.block;
        a.registersPerThread = std::uint16_t(e.registers);
        a.staticSharedBytes = std::uint32_t(e.sharedBytes); // static and dynamic together
        a.stream = stream;
        if (e.estimatedPercent >= 0 && e.estimatedPercent <= 100) {
            a.estimatedOccupancyPercent = std::uint8_t(e.estimatedPercent);
        }
        kernels_.push_back({run_.activities.size(),
                            e.device >= 0 ? asU32(e.device) : (e.pidIsNumber ? asU32(e.pid) : 0)});
        break;
    case Category::Memcpy:
        if (!parseCopyName(e.name, a)) {
            ++unknownCopies_;
            return;
        }
        a.bytes = std::uint64_t(std::max<std::int64_t>(0, e.bytes));
        a.stream = stream;
        ++copies_;
        break;
    case Category::Memset: {
        a.kind = ActivityKind::Memset;
        const std::size_t open = e.name.find('(');
        const std::size_t close = e.name.rfind(')');
        if (open != std::string::npos && close != std::string::npos && open < close) {
            a.dstKind = memoryKindOf(std::string_view(e.name).substr(open + 1, close - open - 1));
        }
        a.bytes = std::uint64_t(std::max<std::int64_t>(0, e.bytes));
        a.stream = stream;
        ++memsets_;
        break;
    }
    case Category::Runtime:
        a.kind = ActivityKind::Api;
        a.threadId = thread;
        ++apiCalls_;
        break;
    case Category::CpuOp:
        a.kind = ActivityKind::Host;
        a.threadId = thread;
        a.correlationId = 0;
        ++cpuOps_;
        break;
    case Category::Other:
        return;
    }
    a.nameId = internName(e.name);
    run_.activities.push_back(a);
}

// Names longer than kMaxNameBytes are cut as the trace reader cuts them (a note says so).
std::uint32_t KinetoReader::internName(const std::string& name) {
    if (name.size() > kMaxNameBytes) {
        ++namesCut_;
        return names_.intern(cutName(name));
    }
    return names_.intern(name);
}

// One entry of "deviceProperties" (the CUDA runtime's cudaDeviceProp names), or nothing when it
// is not an object with a numeric "id" and a "name".
constexpr std::array<Word<DeviceFigure>, 12> kProperties{{
    {"computeMajor", DeviceFigure::ComputeMajor},
    {"computeMinor", DeviceFigure::ComputeMinor},
    {"numSms", DeviceFigure::SmCount},
    {"warpSize", DeviceFigure::WarpSize},
    {"maxThreadsPerMultiprocessor", DeviceFigure::ThreadsPerSm},
    {"maxThreadsPerBlock", DeviceFigure::ThreadsPerBlock},
    {"regsPerMultiprocessor", DeviceFigure::RegistersPerSm},
    {"regsPerBlock", DeviceFigure::RegistersPerBlock},
    {"sharedMemPerMultiprocessor", DeviceFigure::SharedPerSm},
    {"sharedMemPerBlock", DeviceFigure::SharedPerBlock},
    {"sharedMemPerBlockOptin", DeviceFigure::SharedPerBlockOptin},
    {"totalGlobalMem", DeviceFigure::GlobalMemory},
}};

std::optional<std::pair<std::uint32_t, device::DeviceSpec>>
deviceFromProperties(const nlohmann::json& p) {
    if (!p.is_object() || !p.contains("id") || !p["id"].is_number_unsigned() ||
        !p.contains("name") || !p["name"].is_string()) {
        return std::nullopt;
    }
    device::DeviceSpec d;
    d.name = std::string(prefixOf(p["name"].get<std::string>(), 200));
    d.warpSize = 0;
    d.maxThreadsPerBlock = 0;
    d.maxRegistersPerThread = 255; // every architecture since compute capability 3.5
    for (const auto& row : kProperties) {
        const auto it = p.find(row.word);
        if (it != p.end() && it->is_number_unsigned()) {
            setFigure(d, row.value, it->get<std::uint64_t>());
        }
    }
    const std::uint64_t id = p["id"].get<std::uint64_t>();
    if (id > std::numeric_limits<std::uint32_t>::max()) {
        return std::nullopt;
    }
    return std::make_pair(std::uint32_t(id), std::move(d));
}

void KinetoReader::addDevices() {
    const bool described = deviceProperties_.is_array() && !deviceProperties_.empty();
    std::uint64_t unusable = 0;
    if (described) {
        for (const auto& p : deviceProperties_) {
            auto found = deviceFromProperties(p);
            if (!found) {
                ++unusable;
                continue;
            }
            // (Named, not a structured binding: clang 14 cannot capture one in a lambda.)
            const std::uint32_t id = found->first;
            device::DeviceSpec& spec = found->second;
            const std::string where =
                device::completeDeviceSpec(spec, device::presets(), "the trace's deviceProperties");
            if (auto problem = deviceLimitError(spec)) {
                addNote(run_, "device " + std::to_string(id) + " (" + spec.name +
                                  ") is left out: its deviceProperties are beyond any GPU (" +
                                  *problem + ")");
                continue;
            }
            if (devices_.emplace(id, spec).second &&
                std::any_of(kernels_.begin(), kernels_.end(),
                            [id](const KernelOnDevice& k) { return k.device == id; })) {
                addNote(run_, "device " + std::to_string(id) + ", " + where);
            }
        }
    }
    if (unusable > 0) {
        addNote(run_, "left out of deviceProperties (no numeric \"id\" and \"name\"): " +
                          counted(unusable, "entry", "entries"));
    }
    if (!described && options_.importDevice) {
        for (const auto& k : kernels_) {
            devices_.emplace(k.device, *options_.importDevice);
        }
        addNote(run_, "the trace has no deviceProperties: its kernels are taken to have run on the "
                      "chosen device, " +
                          options_.importDevice->name);
    } else if (described && options_.importDevice) {
        addNote(run_, "the chosen device (" + options_.importDevice->name +
                          ") was not used: the trace's deviceProperties describe its devices");
    } else if (!described && !kernels_.empty()) {
        addNote(run_, "the trace has no deviceProperties: its kernels have no theoretical "
                      "occupancy (choose the device: slicescope-cli import --device PRESET)");
    }
}

void KinetoReader::addNotes(const OccupancyTally& occupancy) {
    addNote(run_, "imported from a PyTorch profiler (Kineto) trace" +
                      (run_.source->file.empty() ? std::string() : " (" + run_.source->file + ")") +
                      ": " + counted(kernels_.size(), "kernel", "kernels") + ", " +
                      counted(copies_, "copy", "copies") + ", " +
                      counted(memsets_, "memset", "memsets") + ", " +
                      counted(apiCalls_, "CUDA API call", "CUDA API calls") + ", " +
                      counted(cpuOps_, "CPU operator", "CPU operators") +
                      "; times as the profiler wrote them (CUPTI's, to the nanosecond), measured "
                      "by the PyTorch profiler, not by SliceScope");
    if (occupancy.computed > 0) {
        addNote(run_, "theoretical occupancy and its limiter: SliceScope's occupancy calculator "
                      "on each kernel's block size, registers and shared memory (the profiler "
                      "writes static and dynamic shared memory as one figure, kept as static)");
    }
    if (occupancy.failed > 0) {
        addNote(run_, "theoretical occupancy is missing for " +
                          counted(occupancy.failed, "kernel", "kernels") + ": " +
                          occupancy.firstFailure);
    }
    if (!kernels_.empty()) {
        addNote(run_, "achieved occupancy is unknown (a profiler trace has no counters); the "
                      "profiler's \"est. achieved occupancy %\" is kept as an estimate "
                      "(estimated_occupancy_percent), worked out from the grid and the "
                      "theoretical limit, never measured");
    }
    if (invalid_ + unknownCopies_ > 0) {
        addNote(run_, counted(invalid_ + unknownCopies_, "event was", "events were") +
                          " left out: no time, a negative duration, a launch beyond CUDA's "
                          "limits, or a copy whose name gives no direction");
    }
    for (const auto& [cat, count] : leftOut_) {
        addNote(run_, counted(count, "\"" + cat + "\" event is", "\"" + cat + "\" events are") +
                          " not imported (no SliceScope activity holds them)");
    }
    if (namesCut_ > 0) {
        addNote(run_, "names longer than " + std::to_string(kMaxNameBytes) +
                          " bytes cut to that length: " + counted(namesCut_, "name", "names"));
    }
}

bool KinetoReader::finish() {
    // Absolute times: the events are relative to "baseTimeNanoseconds" (at most 2^61, parseTop).
    std::size_t kept = 0;
    std::size_t nextKernel = 0;
    std::vector<KernelOnDevice> keptKernels;
    keptKernels.reserve(kernels_.size());
    for (std::size_t i = 0; i < run_.activities.size(); ++i) {
        Activity a = run_.activities[i];
        a.startNs += baseNs_;
        a.endNs += baseNs_;
        const bool isKernel = nextKernel < kernels_.size() && kernels_[nextKernel].activity == i;
        const std::uint32_t device = isKernel ? kernels_[nextKernel++].device : 0;
        if (a.startNs < 0) {
            ++invalid_;
            continue;
        }
        if (isKernel) {
            keptKernels.push_back({kept, device});
        }
        run_.activities[kept++] = a;
    }
    kernels_ = std::move(keptKernels);
    run_.activities.resize(kept);
    addDevices();
    const OccupancyTally occupancy = applyOccupancy(run_, kernels_, devices_);
    chooseRunDevice(run_, kernels_, devices_);
    if (run_.device.name.empty()) {
        run_.device.name = "unknown CUDA device";
    }
    addNotes(occupancy);
    sortByStart(run_);
    run_.wallNs = std::min(run_.endNs() - run_.beginNs(), kMaxDurationNs);
    if (run_.activities.capacity() > run_.activities.size() + run_.activities.size() / 8) {
        run_.activities.shrink_to_fit();
    }
    return true;
}

} // namespace

Result<Trace> importKineto(std::string_view text, const ReadOptions& options) {
    return KinetoReader(text, options).read();
}

} // namespace slicescope::trace::importers
