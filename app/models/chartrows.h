#pragma once

// Charts of one row per run (the breakdown, the occupancy bars) compare tens of runs; laid out
// for 100,000 they held the GUI thread for seconds. They show at most kMaxChartRows rows.

#include <QString>
#include <QVector>
#include <algorithm>
#include <optional>

namespace slicescope::models {

inline constexpr qsizetype kMaxChartRows = 200;

// Cuts rows (in session order, each with a runId) to the newest kMaxChartRows; the selected run's
// first row, when it would be left out, takes the place of the oldest one kept. Returns how many
// rows there were.
template <typename Row> qsizetype keepChartRows(QVector<Row>& rows, const QString& selectedRun) {
    const qsizetype total = rows.size();
    if (total <= kMaxChartRows) {
        return total;
    }
    const qsizetype cut = total - kMaxChartRows;
    const auto isSelected = [&selectedRun](const Row& row) { return row.runId == selectedRun; };
    std::optional<Row> selected;
    if (!selectedRun.isEmpty() && std::none_of(rows.begin() + cut, rows.end(), isSelected)) {
        const auto found = std::find_if(rows.begin(), rows.begin() + cut, isSelected);
        if (found != rows.begin() + cut) {
            selected = *found;
        }
    }
    rows.remove(0, cut);
    if (selected) {
        rows.front() = *selected;
    }
    return total;
}

// What a chart's title adds when rows were cut, " (the newest 200 of 100000)"; empty when none
// were.
inline QString chartRowsNote(qsizetype shown, qsizetype total) {
    return shown >= total ? QString()
                          : QStringLiteral(" (the newest %1 of %2)").arg(shown).arg(total);
}

} // namespace slicescope::models
