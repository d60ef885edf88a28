#pragma once

#include "gui/qcp.h"
#include "models/runentry.h"
#include "models/viewstate.h"

#include <QFontMetricsF>
#include <QMap>
#include <QStringList>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace slicescope::models {
class Session;
}

namespace slicescope::gui {

class TimelinePlottable;

// What a timeline draws, without the widget: the runs, how they align, the time range and which
// runs and lanes are open. The window's TimelineView hands its own (TimelineView::content); a
// headless export takes the session's (timelineContent).
struct TimelineContent {
    std::vector<models::ConstRunEntryPtr> runs; // the visible runs, in the session's order
    models::Alignment alignment = models::Alignment::RunStart;
    std::optional<QCPRange> timeRange; // none: every run's measured part (fittedTimeRange)
    QStringList expandedRuns;
    std::set<models::LaneGroup> pinnedGroups;
    std::set<std::pair<int, int>> shownLanes; // (run, lane) opened by a selection
    QString selectedRun;
    models::ActivityRef selectedActivity;
};
// The session's visible runs with the state's alignment and selection, at the full time range.
TimelineContent timelineContent(const models::Session& session, const models::ViewState& state);

// The timeline's look on a plot, shared by the window and the export: the time and lane axes
// (right margin: room for the window's scroll bar, kept in an export so both lay out alike), the
// fonts, and a TimelinePlottable on them, owned by the plot.
TimelinePlottable* setUpTimelinePlot(QCustomPlot& plot,
                                     const QSharedPointer<QCPAxisTickerText>& laneTicker,
                                     int rightMarginPx);
// The axis fonts at the theme's presentation scale.
void applyTimelineFonts(QCustomPlot& plot);
// The timeline's axis title as it fits in room: whole, else without its parenthesis and notes,
// else only "time"; never cut mid-word. The window and the export both fit theirs by it.
QString fittingAxisTitle(const QString& title, const QFontMetricsF& metrics, double room);
// The time axis's title and ticks, and the lane names, for what the plottable holds now.
void labelTimelineAxes(QCustomPlot& plot, const TimelinePlottable& plottable,
                       QCPAxisTickerText& laneTicker, models::Alignment alignment);
// Every run's measured part with a margin of 2% either side: what the timeline shows at first.
QCPRange fittedTimeRange(const TimelinePlottable& plottable);
// The width the window's vertical scroll bar takes beside the rows.
int timelineScrollBarWidth();

// A timeline drawn offscreen from a TimelineContent, laid out as the window lays it out; no
// TimelineView, so an export neither needs nor changes the window's.
class OffscreenTimeline {
  public:
    explicit OffscreenTimeline(const TimelineContent& content);
    OffscreenTimeline(const OffscreenTimeline&) = delete;
    OffscreenTimeline& operator=(const OffscreenTimeline&) = delete;

    QCustomPlot& plot() { return plot_; }
    const TimelinePlottable& plottable() const { return *plottable_; }
    // Every run expanded to its lanes (true) or one row each (false), labels following.
    void setAllRunsExpanded(bool expanded);

  private:
    QCustomPlot plot_;
    QSharedPointer<QCPAxisTickerText> laneTicker_;
    TimelinePlottable* plottable_;
    models::Alignment alignment_;
};

} // namespace slicescope::gui
