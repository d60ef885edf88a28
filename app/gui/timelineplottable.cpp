#include "gui/timelineplottable.h"

#include "gui/runheader.h"
#include "gui/theme.h"
#include "models/gputracemodel.h"
#include "models/runnaming.h"
#include "slicescope/trace/traceimport.h"

#include <QRegularExpression>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace slicescope::gui {

using models::LaneKind;
using models::LaneRow;

namespace {

constexpr double kHeaderHeight = 0.8;
constexpr double kLaneHeight = 1.0;
constexpr double kExtraSubRowHeight = 0.45;
constexpr double kMinTextWidthPx = 36;

std::int64_t floorToInt64(double v) {
    if (v <= double(std::numeric_limits<std::int64_t>::min() / 2)) {
        return std::numeric_limits<std::int64_t>::min() / 2;
    }
    if (v >= double(std::numeric_limits<std::int64_t>::max() / 2)) {
        return std::numeric_limits<std::int64_t>::max() / 2;
    }
    return std::int64_t(std::floor(v));
}

// The whole pixels a shape covers: at least one pixel wide and high, edges rounded.
QRect pixelRect(const QRectF& rect) {
    const int left = int(std::floor(rect.left()));
    const int right = std::max(left + 1, int(std::lround(rect.right())));
    const int top = int(std::lround(rect.top()));
    const int bottom = std::max(top + 1, int(std::lround(rect.bottom())));
    return QRect(left, top, right - left, bottom - top);
}

} // namespace

TimelinePlottable::TimelinePlottable(QCPAxis* keyAxis, QCPAxis* valueAxis)
    : QCPAbstractPlottable(keyAxis, valueAxis) {
    setSelectable(QCP::stNone);
    setAntialiasedFill(false);
}

void TimelinePlottable::setRuns(std::vector<models::ConstRunEntryPtr> runs,
                                models::Alignment alignment) {
    runs_ = std::move(runs);
    origins_.clear();
    shownLanes_.clear();
    alignmentNote_.clear();
    // Absolute time belongs to runs that have a clock: measured and recorded ones. A modelled run
    // starts at 0; it goes where the measured runs of its batch (models::batchOf: one request, one
    // file, kept across a restore) begin, or, with none, at the start of the axis.
    std::int64_t absoluteBegin = 0;
    bool anyAbsolute = false;
    std::map<QString, std::int64_t> batchBegin;
    for (const auto& e : runs_) {
        if (e->isModelled() || e->lanes->eventCount == 0) {
            continue;
        }
        absoluteBegin =
            anyAbsolute ? std::min(absoluteBegin, e->lanes->workBeginNs) : e->lanes->workBeginNs;
        anyAbsolute = true;
        const QString batch = models::batchOf(*e);
        if (batch.isEmpty()) {
            continue;
        }
        auto [it, added] = batchBegin.emplace(batch, e->lanes->workBeginNs);
        if (!added) {
            it->second = std::min(it->second, e->lanes->workBeginNs);
        }
    }
    bool modelledAlone = false;
    bool anyModelled = false;
    for (const auto& e : runs_) {
        const auto& lanes = *e->lanes;
        std::int64_t origin = lanes.workBeginNs;
        if (alignment == models::Alignment::Absolute) {
            if (!e->isModelled()) {
                origin = absoluteBegin;
            } else {
                anyModelled = true;
                const QString key = models::batchOf(*e);
                const auto batch = key.isEmpty() ? batchBegin.end() : batchBegin.find(key);
                if (batch != batchBegin.end()) {
                    origin = lanes.workBeginNs - (batch->second - absoluteBegin);
                } else {
                    modelledAlone = true;
                }
            }
        }
        origins_.push_back(origin);
    }
    if (alignment == models::Alignment::Absolute && anyModelled) {
        if (!anyAbsolute) {
            alignmentNote_ =
                tr("modelled runs have no absolute time: each shown from its own start");
        } else if (modelledAlone) {
            alignmentNote_ = tr("modelled runs have no absolute time: shown from their own start");
        }
    }
    minKeyNs_ = maxKeyNs_ = minExtentNs_ = maxExtentNs_ = 0;
    bool anyKey = false;
    for (std::size_t i = 0; i < runs_.size(); ++i) {
        const auto& lanes = *runs_[i]->lanes;
        if (lanes.eventCount == 0) {
            continue;
        }
        const std::int64_t o = origins_[i];
        minKeyNs_ = anyKey ? std::min(minKeyNs_, lanes.workBeginNs - o) : lanes.workBeginNs - o;
        maxKeyNs_ = anyKey ? std::max(maxKeyNs_, lanes.workEndNs - o) : lanes.workEndNs - o;
        minExtentNs_ = anyKey ? std::min(minExtentNs_, lanes.beginNs - o) : lanes.beginNs - o;
        maxExtentNs_ = anyKey ? std::max(maxExtentNs_, lanes.endNs - o) : lanes.endNs - o;
        anyKey = true;
    }
    if (!anyKey || maxKeyNs_ <= minKeyNs_) {
        maxKeyNs_ = minKeyNs_ + 1;
    }
    maxExtentNs_ = std::max(maxExtentNs_, maxKeyNs_);
    minExtentNs_ = std::min(minExtentNs_, minKeyNs_);
    selectedRun_ = -1;
    selectedActivity_ = -1;
    selectedRunIndex_ = -1;
    relayout();
}

bool TimelinePlottable::laneShown(int run, int lane) const {
    const models::Lane& l = runs_[std::size_t(run)]->lanes->lanes[std::size_t(lane)];
    const models::LaneGroup group = models::laneGroupOf(l);
    return group == models::LaneGroup::Work || isPinned(group) ||
           shownLanes_.count({run, lane}) > 0;
}

void TimelinePlottable::relayout() {
    rows_.clear();
    runRows_.clear();
    double top = 0;
    for (std::size_t i = 0; i < runs_.size(); ++i) {
        const auto& lanes = *runs_[i]->lanes;
        const double runTop = top;
        rows_.push_back(Row{Row::Type::Header, int(i), -1, top, kHeaderHeight});
        top += kHeaderHeight;
        bool anyLane = false;
        if (isExpanded(runs_[i]->id)) {
            for (std::size_t l = 0; l < lanes.lanes.size(); ++l) {
                if (!laneShown(int(i), int(l))) {
                    continue;
                }
                const double h =
                    kLaneHeight +
                    kExtraSubRowHeight *
                        double(std::max<std::size_t>(1, lanes.lanes[l].rows.size()) - 1);
                rows_.push_back(Row{Row::Type::Lane, int(i), int(l), top, h});
                top += h;
                anyLane = true;
            }
        }
        if (!anyLane) {
            rows_.push_back(Row{Row::Type::Overview, int(i), -1, top, kLaneHeight});
            top += kLaneHeight;
        }
        runRows_.emplace_back(runTop, top);
    }
    contentHeight_ = top;
    ++layoutGeneration_;
    cacheKey_.reset();
}

void TimelinePlottable::setExpanded(const QString& runId, bool expanded) {
    if (expanded == isExpanded(runId)) {
        return;
    }
    if (expanded) {
        expanded_.insert(runId);
    } else {
        expanded_.remove(runId);
    }
    relayout();
}

void TimelinePlottable::setAllExpanded(bool expanded) {
    for (const auto& e : runs_) {
        if (expanded) {
            expanded_.insert(e->id);
        } else {
            expanded_.remove(e->id);
        }
    }
    relayout();
}

void TimelinePlottable::setPinned(models::LaneGroup group, bool pinned) {
    if (pinned == isPinned(group)) {
        return;
    }
    if (pinned) {
        pinned_.insert(group);
    } else {
        pinned_.erase(group);
    }
    relayout();
}

void TimelinePlottable::showLane(int run, int lane) {
    if (run < 0 || run >= int(runs_.size()) || lane < 0 ||
        lane >= int(runs_[std::size_t(run)]->lanes->lanes.size())) {
        return;
    }
    const bool wasShown = isExpanded(runs_[std::size_t(run)]->id) && laneShown(run, lane);
    expanded_.insert(runs_[std::size_t(run)]->id);
    shownLanes_.insert({run, lane});
    if (!wasShown) {
        relayout();
    }
}

int TimelinePlottable::runIndex(const QString& runId) const {
    for (std::size_t i = 0; i < runs_.size(); ++i) {
        if (runs_[i]->id == runId) {
            return int(i);
        }
    }
    return -1;
}

QCPRange TimelinePlottable::runValueRange(int run) const {
    if (run < 0 || run >= int(runRows_.size())) {
        return QCPRange(0, 0);
    }
    return QCPRange(runRows_[std::size_t(run)].first, runRows_[std::size_t(run)].second);
}

QCPRange TimelinePlottable::workKeyRange(int run) const {
    const auto& lanes = *runs_.at(std::size_t(run))->lanes;
    const std::int64_t o = origins_.at(std::size_t(run));
    return QCPRange(double(lanes.workBeginNs - o),
                    double(std::max(lanes.workEndNs, lanes.workBeginNs + 1) - o));
}

int TimelinePlottable::rowOfActivity(int run, int activity) const {
    if (run < 0 || run >= int(runs_.size())) {
        return -1;
    }
    const models::RunEntry& e = *runs_[std::size_t(run)];
    if (activity < 0 || std::size_t(activity) >= e.run->activities.size()) {
        return -1;
    }
    const trace::Activity& a = e.run->activities[std::size_t(activity)];
    const auto [kind, key] = models::laneOf(a);
    for (std::size_t r = 0; r < rows_.size(); ++r) {
        const Row& row = rows_[r];
        if (row.run != run) {
            continue;
        }
        if (row.type == Row::Type::Lane) {
            const models::Lane& lane = e.lanes->lanes[std::size_t(row.lane)];
            if (models::laneHolds(lane, a)) {
                return int(r);
            }
        } else if (row.type == Row::Type::Overview) {
            const bool device = trace::isDeviceActivity(a.kind);
            const bool mainHost = kind == models::LaneKind::Host && key == 0;
            if (device || mainHost) {
                return int(r);
            }
        }
    }
    return -1;
}

int TimelinePlottable::rowAtPixel(double y) const {
    const double value = mValueAxis->pixelToCoord(y);
    auto it = std::upper_bound(rows_.begin(), rows_.end(), value,
                               [](double v, const Row& row) { return v < row.top; });
    if (it == rows_.begin()) {
        return -1;
    }
    --it;
    return value < it->top + it->height ? int(it - rows_.begin()) : -1;
}

void TimelinePlottable::setSelectedRun(int run) {
    selectedRunIndex_ = run;
}

QCPRange TimelinePlottable::fullKeyRange() const {
    return QCPRange(double(minKeyNs_), double(maxKeyNs_));
}

QCPRange TimelinePlottable::extentKeyRange() const {
    return QCPRange(double(minExtentNs_), double(maxExtentNs_));
}

void TimelinePlottable::setSelectedActivity(int run, int activity) {
    selectedRun_ = run;
    selectedActivity_ = activity;
}

double TimelinePlottable::selectTest(const QPointF&, bool, QVariant*) const {
    return -1;
}

QCPRange TimelinePlottable::getKeyRange(bool& foundRange, QCP::SignDomain) const {
    foundRange = !runs_.empty();
    return fullKeyRange();
}

QCPRange TimelinePlottable::getValueRange(bool& foundRange, QCP::SignDomain,
                                          const QCPRange&) const {
    foundRange = !rows_.empty();
    return QCPRange(0, std::max(1.0, contentHeight_));
}

void TimelinePlottable::drawLegendIcon(QCPPainter*, const QRectF&) const {}

TimelinePlottable::CacheKey TimelinePlottable::currentKey() const {
    CacheKey key;
    key.keyLower = mKeyAxis->range().lower;
    key.keyUpper = mKeyAxis->range().upper;
    key.valueLower = mValueAxis->range().lower;
    key.valueUpper = mValueAxis->range().upper;
    key.axisRect = mKeyAxis->axisRect()->rect();
    key.layout = layoutGeneration_;
    return key;
}

QRectF TimelinePlottable::rowPixels(const Row& row, double inset) const {
    const double y0 = mValueAxis->coordToPixel(row.top + inset);
    const double y1 = mValueAxis->coordToPixel(row.top + row.height - inset);
    const QRect area = mKeyAxis->axisRect()->rect();
    return QRectF(QPointF(area.left(), std::min(y0, y1)),
                  QPointF(area.right() + 1, std::max(y0, y1)));
}

void TimelinePlottable::rebuildGeometry() {
    shapes_.clear();
    stats_.clear();
    rowShapes_.assign(rows_.size(), {0, 0});
    const QRect area = mKeyAxis->axisRect()->rect();
    const models::TimeMapping mapping(mKeyAxis->range().lower, mKeyAxis->range().upper, area.left(),
                                      area.width());
    if (!mapping.isValid()) {
        return;
    }
    for (std::size_t r = 0; r < rows_.size(); ++r) {
        rowShapes_[r].first = shapes_.size();
        const Row& row = rows_[r];
        const QRectF band = rowPixels(row, 0.12);
        const bool inView = band.bottom() >= area.top() && band.top() <= area.bottom();
        if (inView && row.type == Row::Type::Lane) {
            const auto& lanes = *runs_[std::size_t(row.run)]->lanes;
            layoutLane(int(r), lanes.lanes[std::size_t(row.lane)], row.lane, true, false, mapping,
                       band.top(), band.bottom());
        } else if (inView && row.type == Row::Type::Overview) {
            // The run's story on one row: set-up and checks first (muted), then its work on top,
            // every lane merged the same way as in its own row.
            const auto& lanes = *runs_[std::size_t(row.run)]->lanes;
            layoutLane(int(r), lanes.hostOther, kHostOtherLane, false, true, mapping, band.top(),
                       band.bottom());
            layoutLane(int(r), lanes.hostCompute, kHostComputeLane, false, false, mapping,
                       band.top(), band.bottom());
            // Overlapping work (a pipelined run) gets thin strips, one per kind, so a copy
            // running under a kernel stays in sight.
            const double strip = band.height() / models::kOverviewStrips;
            for (std::size_t l = 0; l < lanes.lanes.size(); ++l) {
                const auto& lane = lanes.lanes[l];
                if (!models::isOverviewLane(lane)) {
                    continue;
                }
                if (lanes.overviewOverlaps) {
                    const double top = band.top() + strip * models::overviewStrip(lane.kind);
                    layoutLane(int(r), lane, int(l), false, false, mapping, top, top + strip);
                } else {
                    layoutLane(int(r), lane, int(l), false, false, mapping, band.top(),
                               band.bottom());
                }
            }
        }
        rowShapes_[r].second = shapes_.size();
    }
}

// `stacked`: each of the lane's rows gets its own strip of the band (a lane row); otherwise all
// share the whole band (an overview row, where lanes of one run rarely overlap in time).
void TimelinePlottable::layoutLane(int rowIndex, const models::Lane& lane, int laneIndex,
                                   bool stacked, bool muted, const models::TimeMapping& mapping,
                                   double yTop, double yBottom) {
    const Row& row = rows_[std::size_t(rowIndex)];
    const models::RunEntry& entry = *runs_[std::size_t(row.run)];
    const std::int64_t origin = origins_[std::size_t(row.run)];
    const bool modelled = entry.isPredicted(); // drawn hatched
    const double left = mapping.leftPx();
    const double right = left + mapping.widthPx();
    const double scale = 1.0 / mapping.nsPerPixel(); // pixels per ns
    const double keyLower = mapping.startNs();
    auto toX = [&](std::int64_t ns) { return left + (double(ns - origin) - keyLower) * scale; };
    auto toNs = [&](double px) { return origin + floorToInt64(keyLower + (px - left) / scale); };
    const std::int64_t fromNs = origin + floorToInt64(mapping.startNs());
    const std::int64_t toNsVisible = origin + floorToInt64(mapping.endNs()) + 1;

    if (lane.eventCount == 0) {
        return;
    }
    LaneStats stats;
    stats.run = row.run;
    stats.lane = laneIndex;
    stats.rowType = row.type;
    const std::size_t subRows = stacked ? std::max<std::size_t>(1, lane.rows.size()) : 1;
    const double subHeight = (yBottom - yTop) / double(subRows);
    const double gap = subRows > 1 ? std::min(1.5, subHeight * 0.1) : 0.0;

    for (std::size_t k = 0; k < lane.rows.size(); ++k) {
        const LaneRow& laneRow = lane.rows[k];
        const double top = yTop + double(stacked ? k : 0) * subHeight + gap;
        const double height = std::max(1.0, subHeight - 2 * gap);
        const auto [first, last] = laneRow.visibleRange(fromNs, toNsVisible);

        bool pending = false;
        bool pendingWarmup = false; // warm-up events merge only with warm-up events
        double pendingX0 = 0, pendingX1 = 0;
        std::uint32_t pendingCount = 0;
        int pendingActivity = 0;
        auto flush = [&] {
            if (!pending) {
                return;
            }
            Shape s;
            s.rect = QRectF(QPointF(pendingX0, top),
                            QPointF(std::max(pendingX1, pendingX0 + 1.0), top + height));
            s.run = row.run;
            s.activity = pendingActivity;
            s.events = pendingCount;
            s.kind = lane.kind;
            s.modelled = modelled;
            s.muted = muted;
            s.warmup = pendingWarmup;
            s.row = rowIndex;
            shapes_.push_back(s);
            stats.eventsCovered += pendingCount;
            if (pendingCount > 1) {
                ++stats.mergedShapes;
            } else {
                ++stats.individualShapes;
            }
            pending = false;
        };

        std::size_t i = first;
        while (i < last) {
            const models::LaneEvent& e = laneRow.events[i];
            if (e.endNs < fromNs) { // only in rows with overlap: ended before the window
                ++i;
                continue;
            }
            const double x0 = std::max(toX(e.startNs), left - 2);
            const double x1 = std::min(toX(e.endNs), right + 2);
            if (x1 - x0 < 1.0) {
                if (pending && x0 <= pendingX1 + 1.0 && pendingWarmup == e.warmup) {
                    pendingX1 = std::max(pendingX1, x1);
                    ++pendingCount;
                } else {
                    flush();
                    pending = true;
                    pendingWarmup = e.warmup;
                    pendingX0 = x0;
                    pendingX1 = std::max(x1, x0 + 1.0);
                    pendingCount = 1;
                    pendingActivity = int(e.activity);
                }
                if (laneRow.disjoint && i + 2 < last) {
                    // Events that start before the block's next pixel all merge into it; in a
                    // row without overlap their ends are sorted, so skip them in one search and
                    // look only at the last, which may be long. The skip stops before the first
                    // event of the other kind (warm-up or measured): the two never merge, and
                    // that event starts a block of its own as it would one event at a time.
                    const std::size_t j =
                        std::min({last, laneRow.firstStartingAt(toNs(pendingX1 + 1.0), i + 1),
                                  laneRow.nextWarmupChange(i) + 1});
                    if (j >= i + 3) {
                        const std::size_t skipped = j - 2 - i; // events i+1 .. j-2
                        pendingCount += std::uint32_t(skipped);
                        stats.eventsSkipped += skipped;
                        pendingX1 = std::max(pendingX1,
                                             std::min(toX(laneRow.events[j - 2].endNs), right + 2));
                        i = j - 1;
                        continue;
                    }
                }
                ++i;
                continue;
            }
            flush();
            Shape s;
            s.rect = QRectF(QPointF(x0, top), QPointF(x1, top + height));
            s.run = row.run;
            s.activity = int(e.activity);
            s.kind = lane.kind;
            s.modelled = modelled;
            s.muted = muted;
            s.warmup = e.warmup;
            s.layoutPass = lane.kind == models::LaneKind::Host &&
                           models::isHostLayoutPass(*entry.run, entry.run->activities[e.activity]);
            s.row = rowIndex;
            shapes_.push_back(s);
            ++stats.eventsCovered;
            ++stats.individualShapes;
            ++i;
        }
        flush();
    }
    stats_.push_back(stats);
}

void TimelinePlottable::draw(QCPPainter* painter) {
    const QRect area = mKeyAxis->axisRect()->rect();
    if (runs_.empty()) {
        if (!emptyText_.isEmpty()) {
            painter->setPen(QColor(0x55, 0x55, 0x55));
            painter->setFont(theme::plotFont(12));
            painter->drawText(area.adjusted(40, 40, -40, -40), Qt::AlignCenter | Qt::TextWordWrap,
                              emptyText_);
        }
        return;
    }
    const CacheKey key = currentKey();
    if (!cacheKey_ || !(*cacheKey_ == key)) {
        rebuildGeometry();
        cacheKey_ = key;
    }
    drawHeaders(painter);
    drawShapes(painter);
    drawOutsideWork(painter);
    drawSelection(painter);
}

void TimelinePlottable::drawHeaders(QCPPainter* painter) const {
    const QRect area = mKeyAxis->axisRect()->rect();
    // A header half scrolled out is cut at the plot's edge, never drawn over the axis below.
    painter->save();
    painter->setClipRect(area, Qt::IntersectClip);
    painter->setFont(theme::plotFont(9.5, true));
    const QFontMetricsF metrics(painter->font());
    for (std::size_t r = 0; r < rows_.size(); ++r) {
        const Row& row = rows_[r];
        if (row.type != Row::Type::Header) {
            continue;
        }
        const QRectF band = rowPixels(row, 0.0);
        if (band.bottom() < area.top() || band.top() > area.bottom()) {
            continue;
        }
        const models::RunEntry& e = *runs_[std::size_t(row.run)];
        const bool selected = row.run == selectedRunIndex_;
        // The selected run: the pale yellow the occupancy chart marks it with, and a dark edge.
        painter->fillRect(band, selected ? QColor(0xff, 0xf3, 0xc4) : theme::headerBandColor());
        if (e.isPredicted()) {
            QBrush hatch(QColor(0x9a, 0xa5, 0xb5), Qt::BDiagPattern);
            painter->fillRect(QRectF(band.left(), band.top(), 10, band.height()), hatch);
        }
        painter->setPen(QPen(QColor(0x8a, 0x94, 0xa6), 1));
        painter->drawLine(QPointF(band.left(), band.top()), QPointF(band.right(), band.top()));
        if (selected) {
            painter->fillRect(QRectF(band.left(), band.top(), 4, band.height()),
                              theme::selectionColor());
        }
        painter->setPen(e.isPredicted() ? QColor(0x6a, 0x3d, 0x9a) : QColor(0x1a, 0x1a, 0x1a));
        // A triangle says the header opens and closes the run's lanes (click, or +/- on the
        // selected run).
        const QString marker =
            isExpanded(e.id) ? QStringLiteral("\u25be ") : QStringLiteral("\u25b8 ");
        const QRectF textRect = band.adjusted(16, 0, -8, 0);
        // A collapsed run's one row is labelled with its name beside the plot.
        const bool rowNamesRun = r + 1 < rows_.size() && rows_[r + 1].type == Row::Type::Overview;
        painter->drawText(textRect, Qt::AlignLeft | Qt::AlignVCenter,
                          fitRunHeader(e, metrics, textRect.width(), marker, rowNamesRun));
    }
    painter->restore();
}

// Set-up before a run's measured part and the checks after it stay visible, washed out, so a
// glance tells the measured work from the rest.
void TimelinePlottable::drawOutsideWork(QCPPainter* painter) const {
    const QRect area = mKeyAxis->axisRect()->rect();
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing, false);
    const QColor wash(0xf2, 0xf2, 0xf2, 190);
    const QPen edge(QColor(0x99, 0x99, 0x99), 1, Qt::DashLine);
    for (std::size_t i = 0; i < runs_.size(); ++i) {
        const auto& lanes = *runs_[i]->lanes;
        if (!lanes.hasWork || lanes.eventCount == 0) {
            continue;
        }
        // The run's rows below its header.
        const double y0 = mValueAxis->coordToPixel(runRows_[i].first + kHeaderHeight);
        const double y1 = mValueAxis->coordToPixel(runRows_[i].second);
        const double top = std::max(double(area.top()), std::min(y0, y1));
        const double bottom = std::min(double(area.bottom() + 1), std::max(y0, y1));
        if (bottom <= top) {
            continue;
        }
        const QCPRange work = workKeyRange(int(i));
        const double xBegin = std::clamp(mKeyAxis->coordToPixel(work.lower), double(area.left()),
                                         double(area.right() + 1));
        const double xEnd = std::clamp(mKeyAxis->coordToPixel(work.upper), double(area.left()),
                                       double(area.right() + 1));
        // Only where the run has set-up or checks: from its first event and to its last.
        const std::int64_t o = origins_[i];
        const double xFirst = std::clamp(mKeyAxis->coordToPixel(double(lanes.beginNs - o)),
                                         double(area.left()), double(area.right() + 1));
        const double xLast = std::clamp(mKeyAxis->coordToPixel(double(lanes.endNs - o)),
                                        double(area.left()), double(area.right() + 1));
        painter->setPen(Qt::NoPen);
        const QRectF before(QPointF(xFirst, top), QPointF(xBegin, bottom));
        const QRectF after(QPointF(xEnd, top), QPointF(xLast, bottom));
        if (before.width() > 0) {
            painter->fillRect(before, wash);
        }
        if (after.width() > 0) {
            painter->fillRect(after, wash);
        }
        painter->setPen(edge);
        if (xBegin > area.left() && xBegin <= area.right()) {
            painter->drawLine(QPointF(xBegin, top), QPointF(xBegin, bottom));
        }
        if (xEnd > area.left() && xEnd <= area.right()) {
            painter->drawLine(QPointF(xEnd, top), QPointF(xEnd, bottom));
        }
    }
    painter->restore();
}

void TimelinePlottable::drawShapes(QCPPainter* painter) const {
    // Shapes are filled on whole pixels without antialiasing: a merged block or a one-pixel event
    // gains nothing from blended edges, and the raster engine fills aligned rectangles several
    // times faster (at 1920x1080 with ten thousand shapes this is most of a replot).
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing, false);
    painter->setPen(Qt::NoPen);
    const QFont font = theme::plotFont(8.5);
    const QFontMetricsF metrics(font);
    const QRectF clip = QRectF(clipRect());
    for (const Shape& s : shapes_) {
        const QColor hue = s.layoutPass ? theme::hostLayoutColor() : theme::laneColor(s.kind);
        const QColor color = s.muted    ? QColor(0xc4, 0xc4, 0xc4)
                             : s.warmup ? theme::warmupColor(hue)
                                        : hue;
        const QRect pixels = pixelRect(s.rect);
        if (s.muted) {
            painter->fillRect(pixels, color);
        } else if (s.warmup) {
            painter->fillRect(pixels, color);
            painter->fillRect(pixels, theme::warmupBrush());
        } else if (s.modelled) {
            painter->fillRect(pixels, color.lighter(150));
            painter->fillRect(pixels, theme::modelledBrush(hue));
        } else {
            painter->fillRect(pixels, color);
        }
        if (pixels.width() >= 6 && s.events == 1) {
            painter->setPen(QPen(color.darker(150), 0));
            painter->setBrush(Qt::NoBrush);
            painter->drawRect(pixels.adjusted(0, 0, -1, -1));
            painter->setPen(Qt::NoPen);
        }
        if (s.events == 1 && s.rect.width() >= kMinTextWidthPx &&
            s.rect.height() >= metrics.height() * 0.9) {
            const auto& run = *runs_[std::size_t(s.run)]->run;
            QString name = models::activityName(run, run.activities[std::size_t(s.activity)]);
            // Inside the bar and the plot: a label is drawn whole or not at all, never across
            // the plot's edge (the bar may run past it).
            QRectF textRect = s.rect.adjusted(4, 0, -4, 0);
            textRect.setLeft(std::max(textRect.left(), clip.left() + 2));
            textRect.setRight(std::min(textRect.right(), clip.right() - 2));
            const double lineTop = textRect.center().y() - metrics.height() / 2;
            if (textRect.width() < kMinTextWidthPx - 8 || lineTop < clip.top() ||
                lineTop + metrics.height() > clip.bottom()) {
                continue;
            }
            // Cut before the layout: eliding lays the whole text out, and a name of millions of
            // characters brought QTextEngine down. No character that shows is under a pixel wide.
            qsizetype fits = qsizetype(std::min(textRect.width(), 1e6)) + 1;
            if (name.size() > fits) {
                fits -= name.at(fits - 1).isHighSurrogate() ? 1 : 0;
                name.truncate(fits);
                name += QChar(0x2026);
            }
            const QString elided = metrics.elidedText(name, Qt::ElideRight, textRect.width());
            if (!elided.isEmpty() && elided != QStringLiteral("\u2026")) {
                painter->setFont(font);
                painter->setPen(s.modelled || s.muted || s.warmup || s.layoutPass
                                    ? QColor(Qt::black)
                                    : theme::laneTextColor(s.kind));
                painter->drawText(textRect, Qt::AlignLeft | Qt::AlignVCenter, elided);
                painter->setPen(Qt::NoPen);
            }
        }
    }
    painter->restore();
}

void TimelinePlottable::drawSelection(QCPPainter* painter) const {
    const auto rect = activityRect(selectedRun_, selectedActivity_);
    if (!rect) {
        return;
    }
    painter->setBrush(Qt::NoBrush);
    painter->setPen(QPen(theme::selectionColor(), 2.5));
    painter->drawRect(rect->adjusted(-2, -2, 2, 2));
    painter->setPen(QPen(Qt::white, 1));
    painter->drawRect(rect->adjusted(-0.5, -0.5, 0.5, 0.5));
}

std::optional<QRectF> TimelinePlottable::activityRect(int run, int activity) const {
    const int rowIndex = rowOfActivity(run, activity);
    if (rowIndex < 0) {
        return std::nullopt;
    }
    const Row& row = rows_[std::size_t(rowIndex)];
    const models::RunEntry& e = *runs_[std::size_t(run)];
    const trace::Activity& a = e.run->activities[std::size_t(activity)];
    const QRectF band = rowPixels(row, 0.12);
    std::size_t subRow = 0;
    std::size_t subRows = 1;
    if (row.type == Row::Type::Lane) {
        // Which sub-row holds it: binary search by start in each.
        const models::Lane& lane = e.lanes->lanes[std::size_t(row.lane)];
        subRows = std::max<std::size_t>(1, lane.rows.size());
        for (std::size_t k = 0; k < lane.rows.size(); ++k) {
            const auto& events = lane.rows[k].events;
            auto it = std::lower_bound(
                events.begin(), events.end(), a.startNs,
                [](const models::LaneEvent& ev, std::int64_t t) { return ev.startNs < t; });
            for (; it != events.end() && it->startNs == a.startNs; ++it) {
                if (it->activity == std::uint32_t(activity)) {
                    subRow = k;
                    k = lane.rows.size();
                    break;
                }
            }
        }
    }
    const double subHeight = band.height() / double(subRows);
    const std::int64_t origin = origins_[std::size_t(run)];
    double x0 = mKeyAxis->coordToPixel(double(a.startNs - origin));
    double x1 = mKeyAxis->coordToPixel(double(std::max(a.endNs, a.startNs) - origin));
    if (x1 - x0 < 3) {
        const double mid = (x0 + x1) / 2;
        x0 = mid - 1.5;
        x1 = mid + 1.5;
    }
    const double top = band.top() + double(subRow) * subHeight;
    return QRectF(QPointF(x0, top), QPointF(x1, top + subHeight));
}

std::optional<TimelinePlottable::Hit> TimelinePlottable::hitTest(const QPointF& pixel,
                                                                 double tolerancePx) const {
    if (!cacheKey_ || !(*cacheKey_ == currentKey())) {
        return std::nullopt; // nothing drawn at this zoom yet
    }
    std::optional<Hit> best;
    double bestDistance = tolerancePx + 1;
    for (std::size_t r = 0; r < rows_.size(); ++r) {
        const QRectF band = rowPixels(rows_[r], 0.0);
        if (pixel.y() < band.top() || pixel.y() > band.bottom()) {
            continue;
        }
        const auto [begin, end] = rowShapes_[r];
        for (std::size_t i = begin; i < end; ++i) {
            const Shape& s = shapes_[i];
            if (pixel.y() < s.rect.top() - 1 || pixel.y() > s.rect.bottom() + 1) {
                continue;
            }
            const double dx = pixel.x() < s.rect.left()    ? s.rect.left() - pixel.x()
                              : pixel.x() > s.rect.right() ? pixel.x() - s.rect.right()
                                                           : 0.0;
            // In an overview row work is drawn over set-up: on a tie the later (upper) shape wins.
            if (dx <= tolerancePx && (dx < bestDistance || (dx == bestDistance && !s.muted))) {
                bestDistance = dx;
                best = Hit{s.run, s.activity, s.events, s.row, s.rect, s.warmup};
            }
        }
    }
    return best;
}

} // namespace slicescope::gui
