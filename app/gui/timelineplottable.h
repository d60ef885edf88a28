#pragma once

#include "gui/qcp.h"
#include "models/runentry.h"
#include "models/timemapping.h"
#include "models/viewstate.h"

#include <QFontMetricsF>
#include <QSet>
#include <QStringList>
#include <optional>
#include <set>
#include <vector>

namespace slicescope::gui {

// Draws every run on one time axis (key: ns from the timeline's origin; value: rows). A run is a
// header and, collapsed (the default), one overview row with its copies, kernels and host compute
// in their lane colours; expanded, its lanes. API, sync, profiler, memset and per-thread host
// lanes stay hidden in an expanded run unless their group is pinned open. Each run's measured part
// (models::RunLanes::workBeginNs .. workEndNs) is what the default zoom shows; its set-up and
// checks are drawn washed out around it. Built for millions of events: per lane only the visible
// events are visited (binary search on the sorted starts and the running maximum of ends), events
// narrower than a pixel are merged into one drawn block, and in lanes without overlap runs of
// sub-pixel events are skipped by binary search too, so drawing costs about the number of pixels,
// not events. The geometry of the last zoom is cached; hover and selection reuse it.
class TimelinePlottable : public QCPAbstractPlottable {
    Q_OBJECT
  public:
    struct Row {
        enum class Type { Header, Overview, Lane };
        Type type = Type::Lane;
        int run = 0;       // index into runs()
        int lane = -1;     // index into the run's lanes (Lane rows)
        double top = 0;    // value coordinate of the row's top
        double height = 1; // value units
    };

    // What the pointer is on: one event, or a block of merged ones.
    struct Hit {
        int run = -1;
        int activity = -1;      // the first event of the block
        std::size_t events = 0; // 1, or how many were merged into the block
        int row = -1;
        QRectF rect;
        bool warmup = false; // of a warm-up iteration (drawn greyed)
    };

    // Per lane, what the last draw did: events covered, shapes drawn (individual and merged).
    // Overview rows report one entry per lane they draw; the main thread's host spans there are
    // lane kHostComputeLane and kHostOtherLane.
    static constexpr int kHostComputeLane = -1;
    static constexpr int kHostOtherLane = -2;
    struct LaneStats {
        int run = 0;
        int lane = 0;
        Row::Type rowType = Row::Type::Lane;
        std::size_t eventsCovered = 0;
        std::size_t individualShapes = 0;
        std::size_t mergedShapes = 0;
        // Of eventsCovered, those merged into a block by one search (dense rows without
        // overlap) rather than looked at one by one.
        std::size_t eventsSkipped = 0;
    };

    TimelinePlottable(QCPAxis* keyAxis, QCPAxis* valueAxis);

    void setRuns(std::vector<models::ConstRunEntryPtr> runs, models::Alignment alignment);
    const std::vector<models::ConstRunEntryPtr>& runs() const { return runs_; }
    const std::vector<Row>& rows() const { return rows_; }
    double contentHeight() const { return contentHeight_; }
    // Subtracted from a run's activity times to place them on the key axis.
    std::int64_t originNs(int run) const { return origins_.at(std::size_t(run)); }
    // Key range of every run's measured part: what the default zoom shows (0 .. 1 when empty).
    QCPRange fullKeyRange() const;
    // Key range of every event, set-up and checks included.
    QCPRange extentKeyRange() const;
    // A run's measured part on the key axis.
    QCPRange workKeyRange(int run) const;
    // Why some runs are not where the alignment would put them ("" when all are).
    const QString& alignmentNote() const { return alignmentNote_; }
    int runIndex(const QString& runId) const; // -1 when not drawn

    // Rows: expanded runs (by id) and lane groups pinned open. Each change lays the rows out again.
    bool isExpanded(const QString& runId) const { return expanded_.contains(runId); }
    void setExpanded(const QString& runId, bool expanded);
    void setAllExpanded(bool expanded);
    bool isPinned(models::LaneGroup group) const { return pinned_.count(group) > 0; }
    void setPinned(models::LaneGroup group, bool pinned);
    // Shows one lane of a run whatever its group (an event in it was selected), until setRuns.
    void showLane(int run, int lane);
    // The (run, lane) pairs showLane opened, until the runs change.
    const std::set<std::pair<int, int>>& shownLanes() const { return shownLanes_; }
    // [first, last] value coordinates of a run's header and rows.
    QCPRange runValueRange(int run) const;
    // The row an activity is drawn in (its lane, or the overview), -1 when it is in no shown row.
    int rowOfActivity(int run, int activity) const;
    int rowAtPixel(double y) const; // -1 when none
    void setSelectedRun(int run);

    void setSelectedActivity(int run, int activity);
    std::optional<Hit> hitTest(const QPointF& pixel, double tolerancePx = 3) const;
    const std::vector<LaneStats>& lastDrawStats() const { return stats_; }
    // The pixel rectangle an activity would take now (for tests and "zoom to event").
    std::optional<QRectF> activityRect(int run, int activity) const;

    // A hint drawn when there are no runs.
    void setEmptyText(const QString& text) { emptyText_ = text; }

    double selectTest(const QPointF& pos, bool onlySelectable,
                      QVariant* details = nullptr) const override;
    QCPRange getKeyRange(bool& foundRange,
                         QCP::SignDomain inSignDomain = QCP::sdBoth) const override;
    QCPRange getValueRange(bool& foundRange, QCP::SignDomain inSignDomain = QCP::sdBoth,
                           const QCPRange& inKeyRange = QCPRange()) const override;

  protected:
    void draw(QCPPainter* painter) override;
    void drawLegendIcon(QCPPainter* painter, const QRectF& rect) const override;

  private:
    struct Shape {
        QRectF rect;
        int run = 0;
        int activity = 0;
        std::uint32_t events = 1;
        models::LaneKind kind = models::LaneKind::Host;
        bool modelled = false;
        bool muted = false;      // set-up and checks in an overview row
        bool warmup = false;     // warm-up iterations, greyed (theme::warmupColor)
        bool layoutPass = false; // one host layout pass (theme::hostLayoutColor)
        int row = 0;
    };
    struct CacheKey {
        double keyLower = 0, keyUpper = 0, valueLower = 0, valueUpper = 0;
        QRect axisRect;
        quint64 layout = 0;
        bool operator==(const CacheKey&) const = default;
    };

    CacheKey currentKey() const;
    void relayout();
    void rebuildGeometry();
    void layoutLane(int rowIndex, const models::Lane& lane, int laneIndex, bool stacked, bool muted,
                    const models::TimeMapping& mapping, double yTop, double yBottom);
    bool laneShown(int run, int lane) const;
    void drawHeaders(QCPPainter* painter) const;
    void drawShapes(QCPPainter* painter) const;
    void drawOutsideWork(QCPPainter* painter) const;
    void drawSelection(QCPPainter* painter) const;
    QRectF rowPixels(const Row& row, double inset) const;

    std::vector<models::ConstRunEntryPtr> runs_;
    std::vector<std::int64_t> origins_;
    std::vector<Row> rows_;
    std::vector<std::pair<double, double>>
        runRows_; // per run: value top of its header, bottom of its last row
    double contentHeight_ = 0;
    quint64 layoutGeneration_ = 0;
    std::int64_t minKeyNs_ = 0, maxKeyNs_ = 1;       // measured parts
    std::int64_t minExtentNs_ = 0, maxExtentNs_ = 1; // everything
    QString alignmentNote_;
    QSet<QString> expanded_;
    std::set<models::LaneGroup> pinned_;
    std::set<std::pair<int, int>> shownLanes_; // (run, lane)
    int selectedRunIndex_ = -1;

    std::optional<CacheKey> cacheKey_;
    std::vector<Shape> shapes_; // in row order, each row's shapes by x
    std::vector<std::pair<std::size_t, std::size_t>>
        rowShapes_; // [begin, end) into shapes_ per row
    std::vector<LaneStats> stats_;

    int selectedRun_ = -1;
    int selectedActivity_ = -1;
    QString emptyText_;
};

} // namespace slicescope::gui
