// An Nsight Compute CSV (`ncu --csv`) as SliceScope runs (docs/import.md): one kernel activity per
// profiled kernel, one run per process.
//
// ncu writes two layouts. Its details page (the default) has one row per metric: the kernel's
// columns ("ID", "Process ID", "Kernel Name", "Block Size", "Grid Size", ...) then "Section
// Name", "Metric Name", "Metric Unit", "Metric Value", with the metric under its display name
// ("Achieved Occupancy"). `--page raw` has one row per kernel, a column per metric under its
// metric name (sm__warps_active.avg.pct_of_peak_sustained_active), and a row of units under the
// header. Numbers carry thousands separators ("3,179,378,531.07"). Before the table come ncu's
// own lines (==PROF==, ==WARNING==) and whatever the program printed: skipped.
#include "csvreader.h"
#include "importers.h"
#include "jsontext.h"
#include "slicescope/device/devicecompletion.h"
#include "slicescope/trace/tracelimits.h"

#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <unordered_map>

namespace slicescope::trace::importers {

namespace {

constexpr std::size_t kCheckEvery = 4096; // records between looks at the cancel flag
// Kernels a file may hold: ncu replays each one alone, so a real CSV holds thousands; a hostile
// one of tiny rows must not make millions of them (each costs a few hundred bytes here).
constexpr std::size_t kMaxKernels = std::size_t(1) << 20;

// The figures of a kernel the import reads, each under its details-page name and its metric name.
enum class Metric : std::uint8_t {
    Duration,
    Registers,
    StaticShared,
    DynamicShared,
    Theoretical,
    Achieved,
    LimitWarps,
    LimitBlocks,
    LimitRegisters,
    LimitShared,
    GridX,
    GridY,
    GridZ,
    BlockX,
    BlockY,
    BlockZ,
    Stream,
    SmCount,
    Count
};
enum class Unit : std::uint8_t { Plain, Time, Bytes, Percent };

struct MetricRow {
    Metric metric;
    Unit unit;
    std::string_view page; // the details page's "Metric Name"; empty: none there
    std::string_view raw;  // the metric's own name
};

constexpr std::array<MetricRow, std::size_t(Metric::Count)> kMetrics{{
    {Metric::Duration, Unit::Time, "Duration", "gpu__time_duration.sum"},
    {Metric::Registers, Unit::Plain, "Registers Per Thread", "launch__registers_per_thread"},
    {Metric::StaticShared, Unit::Bytes, "Static Shared Memory Per Block",
     "launch__shared_mem_per_block_static"},
    {Metric::DynamicShared, Unit::Bytes, "Dynamic Shared Memory Per Block",
     "launch__shared_mem_per_block_dynamic"},
    {Metric::Theoretical, Unit::Percent, "Theoretical Occupancy",
     "sm__maximum_warps_per_active_cycle_pct"},
    {Metric::Achieved, Unit::Percent, "Achieved Occupancy",
     "sm__warps_active.avg.pct_of_peak_sustained_active"},
    {Metric::LimitWarps, Unit::Plain, "Block Limit Warps", "launch__occupancy_limit_warps"},
    {Metric::LimitBlocks, Unit::Plain, "Block Limit SM", "launch__occupancy_limit_blocks"},
    {Metric::LimitRegisters, Unit::Plain, "Block Limit Registers",
     "launch__occupancy_limit_registers"},
    {Metric::LimitShared, Unit::Plain, "Block Limit Shared Mem",
     "launch__occupancy_limit_shared_mem"},
    {Metric::GridX, Unit::Plain, "", "launch__grid_dim_x"},
    {Metric::GridY, Unit::Plain, "", "launch__grid_dim_y"},
    {Metric::GridZ, Unit::Plain, "", "launch__grid_dim_z"},
    {Metric::BlockX, Unit::Plain, "", "launch__block_dim_x"},
    {Metric::BlockY, Unit::Plain, "", "launch__block_dim_y"},
    {Metric::BlockZ, Unit::Plain, "", "launch__block_dim_z"},
    {Metric::Stream, Unit::Plain, "", "launch__stream_id"},
    {Metric::SmCount, Unit::Plain, "# SMs", "launch__sm_count"},
}};

// The device's attributes, which the raw page (or --metrics) gives as device__attribute_*.
constexpr std::array<Word<DeviceFigure>, 17> kAttributes{{
    {"device__attribute_compute_capability_major", DeviceFigure::ComputeMajor},
    {"device__attribute_compute_capability_minor", DeviceFigure::ComputeMinor},
    {"device__attribute_multiprocessor_count", DeviceFigure::SmCount},
    {"device__attribute_warp_size", DeviceFigure::WarpSize},
    {"device__attribute_max_threads_per_multiprocessor", DeviceFigure::ThreadsPerSm},
    {"device__attribute_max_warps_per_multiprocessor", DeviceFigure::WarpsPerSm},
    {"device__attribute_max_blocks_per_multiprocessor", DeviceFigure::BlocksPerSm},
    {"device__attribute_max_threads_per_block", DeviceFigure::ThreadsPerBlock},
    {"device__attribute_max_registers_per_multiprocessor", DeviceFigure::RegistersPerSm},
    {"device__attribute_max_registers_per_block", DeviceFigure::RegistersPerBlock},
    {"device__attribute_max_registers_per_thread", DeviceFigure::RegistersPerThread},
    {"device__attribute_max_shared_memory_per_multiprocessor", DeviceFigure::SharedPerSm},
    {"device__attribute_max_shared_memory_per_block", DeviceFigure::SharedPerBlock},
    {"device__attribute_max_shared_memory_per_block_optin", DeviceFigure::SharedPerBlockOptin},
    {"device__attribute_reserved_shared_memory_per_block", DeviceFigure::ReservedSharedPerBlock},
    {"device__attribute_clock_rate", DeviceFigure::ClockKHz},
    {"device__attribute_total_memory", DeviceFigure::GlobalMemory},
}};
constexpr std::string_view kDeviceName = "device__attribute_display_name";

// How many of the unit's base unit one of `unit` is (ns, bytes, percent); 0: a unit not read.
double scaleOf(Unit unit, std::string_view text) {
    struct Scale {
        std::string_view unit;
        double factor;
    };
    static constexpr std::array<Scale, 8> kTimes{{{"ns", 1},
                                                  {"nsecond", 1},
                                                  {"us", 1e3},
                                                  {"usecond", 1e3},
                                                  {"ms", 1e6},
                                                  {"msecond", 1e6},
                                                  {"s", 1e9},
                                                  {"second", 1e9}}};
    switch (unit) {
    case Unit::Plain:
        return 1;
    case Unit::Percent:
        return text.empty() || text == "%" ? 1 : 0;
    case Unit::Bytes:
        // ncu's scaled byte units are left alone: its CSV gives base units by default.
        return text.empty() || text == "byte" || text == "byte/block" ? 1 : 0;
    case Unit::Time:
        for (const auto& s : kTimes) {
            if (s.unit == text) {
                return s.factor;
            }
        }
        return 0;
    }
    return 0;
}

// A number as ncu writes it ("3,179,378,531.07"); nothing for "n/a" and other text.
std::optional<double> numberOf(std::string_view text) {
    char digits[64] = {};
    std::size_t n = 0;
    for (const char c : text) {
        if (c == ',') {
            continue;
        }
        if (n == sizeof digits) {
            return std::nullopt;
        }
        digits[n++] = c;
    }
    double value = 0;
    if (n == 0) {
        return std::nullopt;
    }
    const auto [end, ec] = std::from_chars(digits, digits + n, value);
    if (ec != std::errc() || end != digits + n || !std::isfinite(value)) {
        return std::nullopt;
    }
    return value;
}

// "(8, 8, 1)" as a Dim3.
std::optional<Dim3> dim3Of(std::string_view text) {
    if (!text.starts_with('(') || !text.ends_with(')')) {
        return std::nullopt;
    }
    text = text.substr(1, text.size() - 2);
    std::uint32_t parts[3];
    for (int i = 0; i < 3; ++i) {
        const std::size_t comma = i < 2 ? text.find(',') : text.size();
        if (comma == std::string_view::npos) {
            return std::nullopt;
        }
        std::string_view part = text.substr(0, comma);
        while (part.starts_with(' ')) {
            part.remove_prefix(1);
        }
        const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), parts[i]);
        if (ec != std::errc() || end != part.data() + part.size()) {
            return std::nullopt;
        }
        text = i < 2 ? text.substr(comma + 1) : std::string_view();
    }
    return Dim3{parts[0], parts[1], parts[2]};
}

// One profiled kernel as the file gives it.
struct NcuKernel {
    std::string process; // "python3.12"
    std::string pid;
    std::string name;
    std::string device; // the "Device" column: CUDA's ordinal
    std::string cc;     // "9.0"
    std::optional<Dim3> grid, block;
    std::optional<std::uint32_t> stream;
    std::array<double, std::size_t(Metric::Count)> metrics;
    std::vector<std::pair<std::size_t, std::uint64_t>> attributes; // kAttributes row, value
    std::string deviceName;
    NcuKernel() { metrics.fill(std::numeric_limits<double>::quiet_NaN()); }
    bool has(Metric m) const { return !std::isnan(metrics[std::size_t(m)]); }
    double get(Metric m) const { return metrics[std::size_t(m)]; }
};

// The columns of the kernel's own facts, by header name; npos where the file has none.
struct Columns {
    static constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
    std::size_t id = kNone, pid = kNone, process = kNone, name = kNone, stream = kNone,
                block = kNone, grid = kNone, device = kNone, cc = kNone;
    std::size_t metricName = kNone, metricUnit = kNone, metricValue = kNone; // details page
    // Raw page: the column of each metric and attribute, and their units (the row below).
    std::array<std::size_t, std::size_t(Metric::Count)> metrics;
    std::array<std::size_t, kAttributes.size()> attributes;
    std::size_t deviceName = kNone;
    std::vector<std::string> units;
    Columns() {
        metrics.fill(kNone);
        attributes.fill(kNone);
    }
    bool detailsPage() const { return metricName != kNone && metricValue != kNone; }
};

class NcuReader {
  public:
    NcuReader(std::string_view text, const ReadOptions& options)
        : text_(text), csv_(text), options_(options) {}
    Result<Trace> read();

  private:
    bool readHeader();
    bool readRecords();
    bool take(const std::vector<std::string_view>& fields);
    void setValue(NcuKernel& k, std::string_view name, std::string_view unit,
                  std::string_view value);
    bool failAt(std::size_t line, const std::string& message);
    Run makeRun(const std::vector<std::size_t>& group, std::size_t groups);
    std::map<std::uint32_t, device::DeviceSpec>
    devicesOf(Run& run, const std::vector<std::size_t>& group,
              std::vector<std::uint32_t>& deviceOfKernel);

    std::string_view text_;
    CsvReader csv_;
    const ReadOptions& options_;
    std::optional<Error> error_;
    Columns columns_;
    std::size_t headerFields_ = 0;
    std::vector<NcuKernel> kernels_;
    std::unordered_map<std::string, std::size_t> byKey_; // process id and kernel id
    std::vector<std::string> droppedUnits_;              // units of values not read
    std::size_t otherLines_ = 0; // lines not part of the table (ncu's, the program's)
};

bool NcuReader::failAt(std::size_t line, const std::string& message) {
    if (!error_) {
        error_ = Error{Error::Code::Parse, "line " + std::to_string(line) + ": " + message};
    }
    return false;
}

Result<Trace> NcuReader::read() {
    if (!readHeader() || !readRecords()) {
        return tl::unexpected(error_ ? *error_ : *csv_.error());
    }
    // One run per process, in the order the file first names them.
    std::vector<std::string> order;
    std::map<std::string, std::vector<std::size_t>> groups;
    for (std::size_t i = 0; i < kernels_.size(); ++i) {
        auto& group = groups[kernels_[i].pid];
        if (group.empty()) {
            order.push_back(kernels_[i].pid);
        }
        group.push_back(i);
    }
    Trace trace;
    trace.generator = "slicescope import of an Nsight Compute CSV";
    for (const auto& pid : order) {
        trace.runs.push_back(makeRun(groups[pid], order.size()));
    }
    if (options_.progress) {
        options_.progress(1.0);
    }
    return trace;
}

bool NcuReader::readHeader() {
    constexpr std::string_view kHeader = "\"ID\",\"Process ID\",";
    std::size_t at = text_.starts_with(kHeader) ? 0 : text_.find("\n" + std::string(kHeader));
    if (at == std::string_view::npos) {
        return failAt(1, "no table of ncu --csv (a header line starting \"ID\",\"Process ID\")");
    }
    csv_.skipTo(at == 0 ? 0 : at + 1);
    otherLines_ = csv_.line() - 1;
    const std::size_t headerLine = csv_.line();
    std::vector<std::string_view> header;
    if (!csv_.next(header)) {
        return false;
    }
    headerFields_ = header.size();
    Columns& c = columns_;
    const std::pair<std::string_view, std::size_t*> own[] = {{"ID", &c.id},
                                                             {"Process ID", &c.pid},
                                                             {"Process Name", &c.process},
                                                             {"Kernel Name", &c.name},
                                                             {"Stream", &c.stream},
                                                             {"Block Size", &c.block},
                                                             {"Grid Size", &c.grid},
                                                             {"Device", &c.device},
                                                             {"CC", &c.cc},
                                                             {"Metric Name", &c.metricName},
                                                             {"Metric Unit", &c.metricUnit},
                                                             {"Metric Value", &c.metricValue}};
    for (std::size_t i = 0; i < header.size(); ++i) {
        for (const auto& [name, column] : own) {
            if (header[i] == name && *column == Columns::kNone) {
                *column = i;
            }
        }
        for (std::size_t m = 0; m < kMetrics.size(); ++m) {
            if (header[i] == kMetrics[m].raw) {
                c.metrics[m] = i;
            }
        }
        for (std::size_t a = 0; a < kAttributes.size(); ++a) {
            if (header[i] == kAttributes[a].word) {
                c.attributes[a] = i;
            }
        }
        if (header[i] == kDeviceName) {
            c.deviceName = i;
        }
    }
    if (c.id == Columns::kNone || c.name == Columns::kNone) {
        return failAt(headerLine, "the table has no \"ID\" or no \"Kernel Name\" column");
    }
    return true;
}

bool NcuReader::readRecords() {
    std::vector<std::string_view> fields;
    for (std::size_t records = 0; !csv_.atEnd(); ++records) {
        if (records % kCheckEvery == 0 && records > 0) {
            if (options_.cancel != nullptr && options_.cancel->load(std::memory_order_relaxed)) {
                error_ = Error{Error::Code::Cancelled, "reading the trace was cancelled"};
                return false;
            }
            if (options_.progress) {
                options_.progress(0.9 * csv_.fraction());
            }
        }
        // The table's rows are quoted; ncu's own lines (==PROF==) and blank ones are not.
        if (!csv_.peekLine().starts_with('"')) {
            otherLines_ += csv_.peekLine().empty() ? 0 : 1;
            csv_.skipLine();
            continue;
        }
        const std::size_t line = csv_.line();
        if (!csv_.next(fields)) {
            return false;
        }
        // ncu leaves out the trailing rule columns of a metric no rule speaks of.
        if (fields.size() > headerFields_) {
            return failAt(line, std::to_string(fields.size()) + " fields where the header has " +
                                    std::to_string(headerFields_));
        }
        fields.resize(headerFields_);
        if (!take(fields)) {
            return false;
        }
    }
    return !csv_.error();
}

bool NcuReader::take(const std::vector<std::string_view>& f) {
    const Columns& c = columns_;
    const auto at = [&f](std::size_t column) {
        return column == Columns::kNone ? std::string_view() : f[column];
    };
    if (f[c.id].empty()) {
        // The raw page's row of units, under the header.
        if (!c.detailsPage() && columns_.units.empty() && kernels_.empty()) {
            columns_.units.assign(f.begin(), f.end());
        }
        return true;
    }
    std::string key = std::string(at(c.pid)) + '\x1f' + std::string(f[c.id]);
    auto [it, added] = byKey_.try_emplace(std::move(key), kernels_.size());
    if (added && kernels_.size() == kMaxKernels) {
        return failAt(csv_.line() - 1, "more than " + std::to_string(kMaxKernels) +
                                           " kernels, more than an ncu CSV holds");
    }
    if (added) {
        NcuKernel& k = kernels_.emplace_back();
        k.pid = validUtf8(at(c.pid).substr(0, 64));
        k.process = validUtf8(at(c.process).substr(0, 256));
        k.name = cutName(validUtf8(f[c.name]));
        k.device = validUtf8(at(c.device).substr(0, 16));
        k.cc = validUtf8(at(c.cc).substr(0, 16));
        k.grid = dim3Of(at(c.grid));
        k.block = dim3Of(at(c.block));
        if (const auto stream = numberOf(at(c.stream)); stream && *stream >= 0 && *stream <= 4e9) {
            k.stream = std::uint32_t(*stream);
        }
    }
    NcuKernel& k = kernels_[it->second];
    if (c.detailsPage()) {
        setValue(k, f[c.metricName], at(c.metricUnit), f[c.metricValue]);
        return true;
    }
    for (std::size_t m = 0; m < kMetrics.size(); ++m) {
        if (c.metrics[m] != Columns::kNone) {
            setValue(k, kMetrics[m].raw,
                     c.metrics[m] < columns_.units.size()
                         ? std::string_view(columns_.units[c.metrics[m]])
                         : std::string_view(),
                     f[c.metrics[m]]);
        }
    }
    for (std::size_t a = 0; a < kAttributes.size(); ++a) {
        if (c.attributes[a] != Columns::kNone) {
            setValue(k, kAttributes[a].word, {}, f[c.attributes[a]]);
        }
    }
    if (c.deviceName != Columns::kNone) {
        setValue(k, kDeviceName, {}, f[c.deviceName]);
    }
    return true;
}

void NcuReader::setValue(NcuKernel& k, std::string_view name, std::string_view unit,
                         std::string_view value) {
    if (name == kDeviceName) {
        k.deviceName = validUtf8(value.substr(0, 200));
        return;
    }
    for (std::size_t a = 0; a < kAttributes.size(); ++a) {
        if (kAttributes[a].word == name) {
            if (const auto number = numberOf(value); number && *number >= 0 && *number < 1e15) {
                k.attributes.emplace_back(a, std::uint64_t(*number));
            }
            return;
        }
    }
    for (const auto& row : kMetrics) {
        if ((!row.page.empty() && row.page == name) || row.raw == name) {
            const auto number = numberOf(value);
            if (!number) {
                return;
            }
            const double scale = scaleOf(row.unit, unit);
            if (scale == 0) {
                if (droppedUnits_.size() < 16 &&
                    std::find(droppedUnits_.begin(), droppedUnits_.end(), unit) ==
                        droppedUnits_.end()) {
                    droppedUnits_.push_back(validUtf8(unit.substr(0, 32)));
                }
                return;
            }
            k.metrics[std::size_t(row.metric)] = *number * scale;
            return;
        }
    }
}

// The limiter of ncu's block limits (the least; ties in the calculator's order), if it gave all.
OccupancyLimiter limiterOf(const NcuKernel& k) {
    const std::pair<OccupancyLimiter, Metric> limits[] = {
        {OccupancyLimiter::Warps, Metric::LimitWarps},
        {OccupancyLimiter::Blocks, Metric::LimitBlocks},
        {OccupancyLimiter::Registers, Metric::LimitRegisters},
        {OccupancyLimiter::SharedMemory, Metric::LimitShared}};
    OccupancyLimiter limiter = OccupancyLimiter::Unknown;
    double least = std::numeric_limits<double>::infinity();
    for (const auto& [which, metric] : limits) {
        if (!k.has(metric)) {
            return OccupancyLimiter::Unknown;
        }
        if (k.get(metric) < least) {
            least = k.get(metric);
            limiter = which;
        }
    }
    return limiter;
}

// A percentage of the file as a fraction 0..1, or NaN.
float fractionOf(const NcuKernel& k, Metric metric) {
    return k.has(metric) ? float(std::clamp(k.get(metric) / 100, 0.0, 1.0)) : kNoValue;
}

// A launch figure of the file that fits its field, or nothing.
template <typename T> std::optional<T> figureOf(const NcuKernel& k, Metric metric, double max) {
    if (!k.has(metric)) {
        return T{};
    }
    const double value = k.get(metric);
    if (value < 0 || value > max || value != std::floor(value)) {
        return std::nullopt;
    }
    return T(value);
}

// The kernel's activity, without its place in time; kind Overhead when its launch is beyond
// CUDA's limits (left out).
Activity kernelActivity(const NcuKernel& k, NameTable& names) {
    Activity a;
    a.kind = ActivityKind::Overhead;
    auto grid = k.grid;
    auto block = k.block;
    if (!grid && k.has(Metric::GridX)) {
        grid = Dim3{std::uint32_t(std::min(k.get(Metric::GridX), 4e9)),
                    std::uint32_t(std::min(k.has(Metric::GridY) ? k.get(Metric::GridY) : 1, 4e9)),
                    std::uint32_t(std::min(k.has(Metric::GridZ) ? k.get(Metric::GridZ) : 1, 4e9))};
    }
    if (!block && k.has(Metric::BlockX)) {
        block =
            Dim3{std::uint32_t(std::min(k.get(Metric::BlockX), 4e9)),
                 std::uint32_t(std::min(k.has(Metric::BlockY) ? k.get(Metric::BlockY) : 1, 4e9)),
                 std::uint32_t(std::min(k.has(Metric::BlockZ) ? k.get(Metric::BlockZ) : 1, 4e9))};
    }
    const auto registers = figureOf<std::uint16_t>(k, Metric::Registers, kMaxRegistersPerThread);
    const auto staticShared =
        figureOf<std::uint32_t>(k, Metric::StaticShared, double(kMaxSharedMemoryBytes));
    const auto dynamicShared =
        figureOf<std::uint32_t>(k, Metric::DynamicShared, double(kMaxSharedMemoryBytes));
    if (!grid || !block || dim3LimitError(*grid, false) || dim3LimitError(*block, true) ||
        !registers || !staticShared || !dynamicShared) {
        return a;
    }
    a.kind = ActivityKind::Kernel;
    a.nameId = names.intern(k.name);
    a.grid = *grid;
    a.block = *block;
    a.registersPerThread = *registers;
    a.staticSharedBytes = *staticShared;
    a.dynamicSharedBytes = *dynamicShared;
    a.stream =
        k.stream ? *k.stream
                 : std::uint32_t(k.has(Metric::Stream) ? std::clamp(k.get(Metric::Stream), 0.0, 4e9)
                                                       : 0);
    a.theoreticalOccupancy = fractionOf(k, Metric::Theoretical);
    a.achievedOccupancy = fractionOf(k, Metric::Achieved);
    a.limiter = limiterOf(k);
    return a;
}

// The device a kernel's attributes describe (the raw page), or nothing.
std::optional<device::DeviceSpec> deviceOfAttributes(const NcuKernel& k) {
    if (k.attributes.empty()) {
        return std::nullopt;
    }
    device::DeviceSpec d;
    d.warpSize = 0;
    d.maxThreadsPerBlock = 0;
    d.maxRegistersPerThread = 0;
    for (const auto& [row, value] : k.attributes) {
        setFigure(d, kAttributes[row].value, value);
    }
    d.name = k.deviceName.empty() ? "CUDA device " + k.device : k.deviceName;
    if (d.maxWarpsPerSm == 0 && d.warpSize > 0) {
        d.maxWarpsPerSm = d.maxThreadsPerSm / d.warpSize;
    }
    return d;
}

// The compute capability of the "CC" column ("9.0"), or 0.0.
std::pair<int, int> computeCapabilityOf(std::string_view cc) {
    const std::size_t dot = cc.find('.');
    int major = 0, minor = 0;
    if (dot == std::string_view::npos ||
        std::from_chars(cc.data(), cc.data() + dot, major).ec != std::errc() ||
        std::from_chars(cc.data() + dot + 1, cc.data() + cc.size(), minor).ec != std::errc() ||
        major < 0 || major > 99 || minor < 0 || minor > 9) {
        return {0, 0};
    }
    return {major, minor};
}

} // namespace

std::map<std::uint32_t, device::DeviceSpec>
NcuReader::devicesOf(Run& run, const std::vector<std::size_t>& group,
                     std::vector<std::uint32_t>& deviceOfKernel) {
    std::map<std::uint32_t, device::DeviceSpec> devices;
    std::vector<std::string> ordinals; // the "Device" column's values, in order
    for (const std::size_t i : group) {
        const NcuKernel& k = kernels_[i];
        auto found = std::find(ordinals.begin(), ordinals.end(), k.device);
        const auto index = std::uint32_t(found - ordinals.begin());
        deviceOfKernel.push_back(index);
        if (found != ordinals.end()) {
            continue;
        }
        ordinals.push_back(k.device);
        const auto [major, minor] = computeCapabilityOf(k.cc);
        const std::uint32_t sms = k.has(Metric::SmCount)
                                      ? std::uint32_t(std::clamp(k.get(Metric::SmCount), 0.0, 1e6))
                                      : 0;
        std::string where;
        device::DeviceSpec spec;
        if (auto described = deviceOfAttributes(k)) {
            spec = std::move(*described);
            where = "figures from Nsight Compute's device attributes";
            if (spec.maxBlocksPerSm == 0 || spec.sharedMemoryPerBlockOptinBytes == 0) {
                where = device::completeDeviceSpec(spec, device::presets(),
                                                   "Nsight Compute's device attributes");
            }
        } else if (options_.importDevice) {
            spec = *options_.importDevice;
            where = "the chosen device (the CSV's details page names none)";
            if ((major > 0 && (spec.computeMajor != major || spec.computeMinor != minor)) ||
                (sms > 0 && spec.smCount != sms)) {
                where += "; the CSV says compute capability " + std::to_string(major) + "." +
                         std::to_string(minor) + " and " + std::to_string(sms) +
                         " SMs: the chosen device differs";
            }
        } else {
            spec.name = "GPU of compute capability " + std::to_string(major) + "." +
                        std::to_string(minor) + " with " + std::to_string(sms) + " SMs";
            spec.computeMajor = major;
            spec.computeMinor = minor;
            spec.smCount = sms;
            spec.maxThreadsPerBlock = 0;
            where =
                "only its compute capability and SM count are in the CSV's details page (choose "
                "the device with slicescope-cli import --device PRESET, or export ncu's "
                "--page raw, which lists its attributes)";
        }
        if (auto problem = deviceLimitError(spec)) {
            addNote(run, "device " + k.device + " is left out: its figures are beyond any GPU (" +
                             *problem + ")");
            continue;
        }
        addNote(run, "device " + k.device + ": " + spec.name + ", " + where);
        devices.emplace(index, std::move(spec));
    }
    return devices;
}

Run NcuReader::makeRun(const std::vector<std::size_t>& group, std::size_t groups) {
    const NcuKernel& first = kernels_[group.front()];
    Run run =
        importedRun(TraceFormat::NcuCsv, options_,
                    groups > 1 ? "-" + (first.pid.empty() ? std::string("process") : first.pid)
                               : std::string());
    run.command = first.process;
    std::vector<std::uint32_t> deviceOfKernel;
    const auto devices = devicesOf(run, group, deviceOfKernel);
    NameTable names(run);
    std::vector<KernelOnDevice> onDevice;
    std::uint64_t invalid = 0, untimed = 0;
    std::int64_t clock = 0; // the kernels one after another, from 0
    for (std::size_t n = 0; n < group.size(); ++n) {
        const NcuKernel& k = kernels_[group[n]];
        Activity a = kernelActivity(k, names);
        if (a.kind != ActivityKind::Kernel) {
            ++invalid;
            continue;
        }
        const bool timed = k.has(Metric::Duration) && k.get(Metric::Duration) >= 0 &&
                           k.get(Metric::Duration) <= double(kMaxDurationNs) &&
                           clock <= std::numeric_limits<std::int64_t>::max() - kMaxDurationNs;
        untimed += timed ? 0 : 1;
        a.startNs = clock;
        a.endNs = clock + (timed ? std::llround(k.get(Metric::Duration)) : 0);
        clock = a.endNs;
        onDevice.push_back({run.activities.size(), deviceOfKernel[n]});
        run.activities.push_back(a);
    }
    const OccupancyTally occupancy = applyOccupancy(run, onDevice, devices);
    chooseRunDevice(run, onDevice, devices);
    if (run.device.name.empty()) {
        run.device.name = "unknown CUDA device";
    }
    addNote(run, "imported from an Nsight Compute CSV" +
                     (run.source->file.empty() ? std::string() : " (" + run.source->file + ")") +
                     (columns_.detailsPage() ? ", details page" : ", raw page") + ": " +
                     counted(run.activities.size(), "kernel", "kernels") + " of " +
                     (first.process.empty() ? std::string("process") : first.process) +
                     (first.pid.empty() ? std::string() : " (process " + first.pid + ")") +
                     ", each profiled alone by Nsight Compute (kernel replay), not by SliceScope");
    addNote(run, "the CSV has no host timeline and no timestamps: its kernels are laid out one "
                 "after another in profiling order, each as long as its measured duration "
                 "(gpu__time_duration.sum); gaps, overlaps, copies and host work of the real run "
                 "are not in the file");
    if (std::any_of(run.activities.begin(), run.activities.end(),
                    [](const Activity& a) { return !std::isnan(a.achievedOccupancy); })) {
        addNote(run, "achieved occupancy: Nsight Compute's measurement "
                     "(sm__warps_active.avg.pct_of_peak_sustained_active); theoretical occupancy: "
                     "its sm__maximum_warps_per_active_cycle_pct where the CSV has it, otherwise "
                     "SliceScope's occupancy calculator");
    }
    if (occupancy.failed > 0) {
        addNote(run, "theoretical occupancy is missing for " +
                         counted(occupancy.failed, "kernel", "kernels") + ": " +
                         occupancy.firstFailure);
    }
    if (invalid > 0) {
        addNote(run, counted(invalid, "kernel was", "kernels were") +
                         " left out: no grid or block, or a launch beyond CUDA's limits");
    }
    if (untimed > 0) {
        addNote(run, counted(untimed, "kernel has", "kernels have") +
                         " no duration in the CSV (no gpu__time_duration): drawn with none");
    }
    if (!droppedUnits_.empty()) {
        std::string units;
        for (const auto& u : droppedUnits_) {
            units += (units.empty() ? "\"" : ", \"") + u + "\"";
        }
        addNote(run, "values in " + units + " were not read (run ncu with --print-units base)");
    }
    if (otherLines_ > 0) {
        addNote(run, "lines outside the table (ncu's messages, the program's output) skipped: " +
                         counted(otherLines_, "line", "lines"));
    }
    if (run.activities.capacity() > run.activities.size() + run.activities.size() / 8) {
        run.activities.shrink_to_fit();
    }
    return run;
}

Result<Trace> importNcuCsv(std::string_view text, const ReadOptions& options) {
    return NcuReader(text, options).read();
}

} // namespace slicescope::trace::importers
