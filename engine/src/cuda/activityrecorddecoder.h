#pragma once

// Turns CUPTI activity records into trace activities, after CUPTI has handed a buffer back (never
// inside a CUPTI callback). Everything a record points to is copied out, so nothing here refers
// into CUPTI's buffers once decode() returns. Kinds it does not know are counted, not fatal.
//
// The seam for tests: decode() takes one record, so a test can build CUPTI records by hand and
// check what comes out with no GPU and no CUPTI session; API names come from a resolver the test
// can replace.

#include "slicescope/trace/trace.h"

#include <cstdint>
#include <cupti_activity.h>
#include <cupti_callbacks.h>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace slicescope::cuda {

struct DecodedActivity {
    trace::Activity activity;   // nameId indexes ActivityRecordDecoder::names()
    std::uint32_t deviceId = 0; // copies, kernels, memsets
    std::uint32_t contextId = 0;
    std::int64_t gridId = 0;       // kernels: unique per launch
    std::uint32_t returnValue = 0; // api and sync records: the call's result code
    bool timed = true;             // false when CUPTI could not time it (start = end = 0)
};

struct DecodeCounts {
    std::uint64_t decoded = 0;
    std::uint64_t unknown = 0; // records of kinds this decoder does not know
    std::uint64_t untimed = 0; // decoded records with no timestamps
};

// The name CUPTI gives a callback id, e.g. "cudaLaunchKernel" (version suffix removed).
std::string cuptiCallbackName(CUpti_CallbackDomain domain, CUpti_CallbackId id);

class ActivityRecordDecoder {
  public:
    using NameResolver = std::function<std::string(CUpti_CallbackDomain, CUpti_CallbackId)>;

    explicit ActivityRecordDecoder(NameResolver resolver = cuptiCallbackName);

    // One record: the activity, or nothing for a kind this decoder does not know (counted).
    // Frees what CUPTI asks its client to free (an overhead record's overheadData).
    std::optional<DecodedActivity> decode(const CUpti_Activity& record);

    // Names by id; [0] is the empty name.
    const std::vector<std::string>& names() const { return names_; }
    std::string_view name(std::uint32_t id) const;
    const DecodeCounts& counts() const { return counts_; }

  private:
    std::uint32_t intern(std::string_view text);
    std::uint32_t apiName(CUpti_CallbackDomain domain, CUpti_CallbackId id);
    std::uint32_t kernelName(const char* mangled);

    NameResolver resolver_;
    std::vector<std::string> names_{std::string()};
    std::unordered_map<std::string, std::uint32_t> ids_;
    std::unordered_map<std::uint64_t, std::uint32_t> apiNames_;
    std::unordered_map<std::string, std::uint32_t> kernelNames_; // mangled -> demangled name id
    DecodeCounts counts_;
};

// The memory kind of a copy's source or destination, reduced to the trace's kinds.
trace::MemoryKind toMemoryKind(std::uint32_t cuptiMemoryKind);

} // namespace slicescope::cuda
