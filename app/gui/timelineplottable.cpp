#include "gui/timelineplottable.h"

#include "gui/theme.h"
#include "models/gputracemodel.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace slicescope::gui {

using models::LaneKind;
using models::LaneRow;

namespace {

constexpr double kHeaderHeight = 0.9;
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

QString headerText(const models::RunEntry& e) {
    const trace::Run& run = *e.run;
    QString where;
    switch (run.mode) {
    case trace::RunMode::MeasuredGpu:
        where = QStringLiteral("measured on ") + models::toQString(run.device.name);
        break;
    case trace::RunMode::MeasuredCpu:
        where = QStringLiteral("measured on the CPU");
        break;
    case trace::RunMode::Modelled:
        where = QStringLiteral("MODELLED for ") + models::toQString(run.device.name) +
                QStringLiteral(" (not measured)");
        break;
    case trace::RunMode::Recorded:
        where = QStringLiteral("recorded");
        break;
    }
    QString text = e.id + QStringLiteral("  \u00b7  ") + where;
    if (run.problem) {
        text += QStringLiteral("  \u00b7  ") + models::toQString(run.problem->describe());
    }
    const QString what = e.summary.hasDeviceWork()     ? QStringLiteral("copies + kernels ")
                         : e.summary.hostComputeNs > 0 ? QStringLiteral("compute ")
                                                       : QString();
    text += QStringLiteral("  \u00b7  ") + what +
            models::toQString(trace::formatDurationNs(e.summary.perRepetitionNs())) +
            (e.summary.repeat > 1 ? QStringLiteral(" per repetition") : QString());
    return text;
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
    rows_.clear();
    origins_.clear();
    std::int64_t globalBegin = 0;
    bool any = false;
    for (const auto& e : runs_) {
        if (e->lanes->eventCount > 0) {
            globalBegin = any ? std::min(globalBegin, e->lanes->beginNs) : e->lanes->beginNs;
            any = true;
        }
    }
    double top = 0;
    minKeyNs_ = 0;
    maxKeyNs_ = 0;
    bool anyKey = false;
    for (std::size_t i = 0; i < runs_.size(); ++i) {
        const auto& lanes = *runs_[i]->lanes;
        const std::int64_t origin =
            alignment == models::Alignment::RunStart ? lanes.beginNs : globalBegin;
        origins_.push_back(origin);
        if (lanes.eventCount > 0) {
            minKeyNs_ =
                anyKey ? std::min(minKeyNs_, lanes.beginNs - origin) : lanes.beginNs - origin;
            maxKeyNs_ = anyKey ? std::max(maxKeyNs_, lanes.endNs - origin) : lanes.endNs - origin;
            anyKey = true;
        }
        rows_.push_back(Row{Row::Type::Header, int(i), -1, top, kHeaderHeight});
        top += kHeaderHeight;
        for (std::size_t l = 0; l < lanes.lanes.size(); ++l) {
            const double h =
                kLaneHeight + kExtraSubRowHeight *
                                  double(std::max<std::size_t>(1, lanes.lanes[l].rows.size()) - 1);
            rows_.push_back(Row{Row::Type::Lane, int(i), int(l), top, h});
            top += h;
        }
    }
    if (!anyKey || maxKeyNs_ <= minKeyNs_) {
        maxKeyNs_ = minKeyNs_ + 1;
    }
    contentHeight_ = top;
    ++layoutGeneration_;
    cacheKey_.reset();
    selectedRun_ = -1;
    selectedActivity_ = -1;
}

QCPRange TimelinePlottable::fullKeyRange() const {
    return QCPRange(double(minKeyNs_), double(maxKeyNs_));
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
        if (row.type == Row::Type::Lane) {
            const QRectF band = rowPixels(row, 0.12);
            if (band.bottom() >= area.top() && band.top() <= area.bottom()) {
                layoutLane(int(r), mapping, band.top(), band.bottom());
            }
        }
        rowShapes_[r].second = shapes_.size();
    }
}

void TimelinePlottable::layoutLane(int rowIndex, const models::TimeMapping& mapping, double yTop,
                                   double yBottom) {
    const Row& row = rows_[std::size_t(rowIndex)];
    const models::RunEntry& entry = *runs_[std::size_t(row.run)];
    const models::Lane& lane = entry.lanes->lanes[std::size_t(row.lane)];
    const std::int64_t origin = origins_[std::size_t(row.run)];
    const bool modelled = entry.isModelled();
    const double left = mapping.leftPx();
    const double right = left + mapping.widthPx();
    const double scale = 1.0 / mapping.nsPerPixel(); // pixels per ns
    const double keyLower = mapping.startNs();
    auto toX = [&](std::int64_t ns) { return left + (double(ns - origin) - keyLower) * scale; };
    auto toNs = [&](double px) { return origin + floorToInt64(keyLower + (px - left) / scale); };
    const std::int64_t fromNs = origin + floorToInt64(mapping.startNs());
    const std::int64_t toNsVisible = origin + floorToInt64(mapping.endNs()) + 1;

    LaneStats stats;
    stats.run = row.run;
    stats.lane = row.lane;
    const std::size_t subRows = std::max<std::size_t>(1, lane.rows.size());
    const double subHeight = (yBottom - yTop) / double(subRows);
    const double gap = subRows > 1 ? std::min(1.5, subHeight * 0.1) : 0.0;

    for (std::size_t k = 0; k < lane.rows.size(); ++k) {
        const LaneRow& laneRow = lane.rows[k];
        const double top = yTop + double(k) * subHeight + gap;
        const double height = std::max(1.0, subHeight - 2 * gap);
        const auto [first, last] = laneRow.visibleRange(fromNs, toNsVisible);

        bool pending = false;
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
                if (pending && x0 <= pendingX1 + 1.0) {
                    pendingX1 = std::max(pendingX1, x1);
                    ++pendingCount;
                } else {
                    flush();
                    pending = true;
                    pendingX0 = x0;
                    pendingX1 = std::max(x1, x0 + 1.0);
                    pendingCount = 1;
                    pendingActivity = int(e.activity);
                }
                if (laneRow.disjoint && i + 2 < last) {
                    // Events that start before the block's next pixel all merge into it; in a
                    // row without overlap their ends are sorted, so skip them in one search and
                    // look only at the last, which may be long.
                    const std::size_t j =
                        std::min(last, laneRow.firstStartingAt(toNs(pendingX1 + 1.0), i + 1));
                    if (j >= i + 3) {
                        const std::size_t skipped = j - 2 - i; // events i+1 .. j-2
                        pendingCount += std::uint32_t(skipped);
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
    drawSelection(painter);
}

void TimelinePlottable::drawHeaders(QCPPainter* painter) const {
    const QRect area = mKeyAxis->axisRect()->rect();
    painter->setFont(theme::plotFont(9.5, true));
    const QFontMetricsF metrics(painter->font());
    for (const Row& row : rows_) {
        if (row.type != Row::Type::Header) {
            continue;
        }
        const QRectF band = rowPixels(row, 0.0);
        if (band.bottom() < area.top() || band.top() > area.bottom()) {
            continue;
        }
        const models::RunEntry& e = *runs_[std::size_t(row.run)];
        painter->fillRect(band, theme::headerBandColor());
        if (e.isModelled()) {
            QBrush hatch(QColor(0x9a, 0xa5, 0xb5), Qt::BDiagPattern);
            painter->fillRect(QRectF(band.left(), band.top(), 10, band.height()), hatch);
        }
        painter->setPen(QPen(QColor(0x8a, 0x94, 0xa6), 1));
        painter->drawLine(QPointF(band.left(), band.top()), QPointF(band.right(), band.top()));
        painter->setPen(e.isModelled() ? QColor(0x6a, 0x3d, 0x9a) : QColor(0x1a, 0x1a, 0x1a));
        const QRectF textRect = band.adjusted(16, 0, -8, 0);
        painter->drawText(textRect, Qt::AlignLeft | Qt::AlignVCenter,
                          metrics.elidedText(headerText(e), Qt::ElideRight, textRect.width()));
    }
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
    for (const Shape& s : shapes_) {
        const QColor color = theme::laneColor(s.kind);
        const QRect pixels = pixelRect(s.rect);
        if (s.modelled) {
            painter->fillRect(pixels, color.lighter(150));
            painter->fillRect(pixels, theme::modelledBrush(s.kind));
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
            const QRectF textRect = s.rect.adjusted(4, 0, -4, 0);
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
                painter->setPen(s.modelled ? QColor(Qt::black) : theme::laneTextColor(s.kind));
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
    if (run < 0 || run >= int(runs_.size())) {
        return std::nullopt;
    }
    const models::RunEntry& e = *runs_[std::size_t(run)];
    if (activity < 0 || std::size_t(activity) >= e.run->activities.size()) {
        return std::nullopt;
    }
    const trace::Activity& a = e.run->activities[std::size_t(activity)];
    const auto [kind, key] = models::laneOf(a);
    for (const Row& row : rows_) {
        if (row.type != Row::Type::Lane || row.run != run) {
            continue;
        }
        const models::Lane& lane = e.lanes->lanes[std::size_t(row.lane)];
        if (lane.kind != kind || lane.key != key) {
            continue;
        }
        // Which sub-row holds it: binary search by start in each.
        std::size_t subRow = 0;
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
        const QRectF band = rowPixels(row, 0.12);
        const double subHeight = band.height() / double(std::max<std::size_t>(1, lane.rows.size()));
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
    return std::nullopt;
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
            if (dx <= tolerancePx && dx < bestDistance) {
                bestDistance = dx;
                best = Hit{s.run, s.activity, s.events, s.row, s.rect};
            }
        }
    }
    return best;
}

} // namespace slicescope::gui
