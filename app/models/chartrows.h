#pragma once

// Charts of one row per run (the breakdown, the occupancy bars) compare tens of runs; laid out
// for 100,000 they held the GUI thread for seconds. They show at most kMaxChartRows rows.

#include <QString>
#include <QVector>
#include <algorithm>
#include <cstddef>
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

// What keepChartRows keeps of the rows of every run, built only for the runs it keeps: the newest
// runs that give kMaxChartRows rows, and the selected one. runs: entries in session order (each
// with an id); rowsOf(entry): that run's rows, in order; rowCount(entry): how many it has, without
// building them (rowsOf(entry).size()). total gets how many rows every run has. At 100,000 runs
// the charts built every run's rows (text shaping included) to keep 200, twice per change.
template <typename Entries, typename RowsOf, typename RowCount>
auto chartRowsOf(const Entries& runs, const QString& selectedRun, RowsOf rowsOf, RowCount rowCount,
                 qsizetype& total) {
    using Rows = decltype(rowsOf(*runs.front()));
    total = 0;
    for (const auto& entry : runs) {
        total += rowCount(*entry);
    }
    std::size_t first = runs.size(); // the oldest run with a row kept
    for (qsizetype rows = 0; first > 0 && rows < kMaxChartRows;) {
        --first;
        rows += rowCount(*runs[first]);
    }
    Rows rows;
    for (std::size_t i = first; i < runs.size(); ++i) {
        rows += rowsOf(*runs[i]);
    }
    if (rows.size() > kMaxChartRows) {
        rows.remove(0, rows.size() - kMaxChartRows);
    }
    const auto isSelected = [&selectedRun](const auto& row) { return row.runId == selectedRun; };
    if (total > kMaxChartRows && !selectedRun.isEmpty() &&
        std::none_of(rows.begin(), rows.end(), isSelected)) {
        for (std::size_t i = 0; i < first; ++i) {
            if (runs[i]->id == selectedRun) {
                const Rows own = rowsOf(*runs[i]);
                if (!own.isEmpty()) {
                    rows.front() = own.front();
                }
                break;
            }
        }
    }
    return rows;
}

// What a chart's title adds when rows were cut, " (the newest 200 of 100000)"; empty when none
// were.
inline QString chartRowsNote(qsizetype shown, qsizetype total) {
    return shown >= total ? QString()
                          : QStringLiteral(" (the newest %1 of %2)").arg(shown).arg(total);
}

} // namespace slicescope::models
