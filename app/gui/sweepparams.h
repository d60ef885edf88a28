#pragma once

// The sweep parameters in words, for the Sweep panel's choices and the sweep chart's axis: one
// definition, so the two cannot name a parameter differently.

#include <QString>
#include <span>

namespace slicescope::gui {

// A parameter `slicescope-cli sweep --param` takes, its words and the values offered first.
struct SweepParam {
    const char* id;     // as the CLI spells it: "block"
    const char* words;  // untranslated, as a choice: "Threads per block"
    const char* values; // offered when it is chosen: "32:1024:x2"
};

// Every parameter, in the panel's order.
std::span<const SweepParam> sweepParams();

// The parameter's words, translated, as a choice ("Threads per block"); the id itself for a
// parameter not listed.
QString sweepParamWords(const QString& id);
// The same words as an axis title ("threads per block").
QString sweepParamAxisWords(const QString& id);

} // namespace slicescope::gui
