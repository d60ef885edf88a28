// slicescope-bench-timeline: how the GUI copes with a big trace. It writes a synthetic trace of N
// activities (bench/synthetictrace.h: generated, labelled synthetic, never a measurement), loads
// it with the GUI's own TraceLoader (worker thread, progress) into a Session shown by the GUI's
// own TimelineView, renders that offscreen at 1920x1080 at several zoom levels and pans it, and
// prints what it measured. The last line is machine-readable:
//   events=N load_ms=X bytes_per_event=Y replot_median_ms=Z
// docs/reliability.md ("Million-event traces") says how each figure is measured.
#include "gui/timelineplottable.h"
#include "gui/timelineview.h"
#include "models/session.h"
#include "models/traceloader.h"
#include "models/viewstate.h"
#include "residentmemory.h"
#include "slicescope/trace/runsummary.h"
#include "slicescope/trace/tracejson.h"
#include "synthetictrace.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <malloc.h>
#include <vector>

namespace {

using namespace slicescope;

constexpr int kWidthPx = 1920;
constexpr int kHeightPx = 1080;

double median(std::vector<double> values) {
    if (values.empty()) {
        return 0;
    }
    std::sort(values.begin(), values.end());
    const std::size_t mid = values.size() / 2;
    return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

double percentile(std::vector<double> values, double p) {
    if (values.empty()) {
        return 0;
    }
    std::sort(values.begin(), values.end());
    return values[std::min(values.size() - 1, std::size_t(p * double(values.size() - 1) + 0.5))];
}

int fail(const QString& message) {
    std::fprintf(stderr, "slicescope-bench-timeline: error: %s\n",
                 message.toLocal8Bit().constData());
    return 1;
}

double msSince(const QElapsedTimer& timer) {
    return double(timer.nsecsElapsed()) / 1e6;
}

} // namespace

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
        qputenv("QT_QPA_PLATFORM", "offscreen"); // a benchmark needs no display
    }
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("slicescope-bench-timeline"));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Writes a synthetic trace of N activities (labelled synthetic: generated, not measured), "
        "loads it the "
        "way the SliceScope GUI does and renders its timeline offscreen at 1920x1080 at several "
        "zoom levels. "
        "The last line is: events=N load_ms=X bytes_per_event=Y replot_median_ms=Z"));
    parser.addHelpOption();
    const QCommandLineOption eventsOption(
        QStringLiteral("events"), QStringLiteral("Activities in the trace."), QStringLiteral("N"));
    const QCommandLineOption keepOption(
        QStringLiteral("keep"),
        QStringLiteral("Write the trace to FILE and keep it (default: a temporary "
                       "file, removed at the end)."),
        QStringLiteral("FILE"));
    const QCommandLineOption runsOption(
        QStringLiteral("runs"), QStringLiteral("Runs to spread the events over (default 4)."),
        QStringLiteral("R"), QStringLiteral("4"));
    const QCommandLineOption seedOption(QStringLiteral("seed"),
                                        QStringLiteral("Random seed (default 1)."),
                                        QStringLiteral("S"), QStringLiteral("1"));
    parser.addOptions({eventsOption, keepOption, runsOption, seedOption});
    parser.process(app);

    bool ok = false;
    const qulonglong events = parser.value(eventsOption).toULongLong(&ok);
    if (!ok || events == 0 || events > 100'000'000) {
        return fail(QStringLiteral("--events must be a whole number from 1 to 100000000"));
    }
    const int runs = parser.value(runsOption).toInt(&ok);
    if (!ok || runs < 1 || runs > 64) {
        return fail(QStringLiteral("--runs must be from 1 to 64"));
    }
    const qulonglong seed = parser.value(seedOption).toULongLong(&ok);
    if (!ok) {
        return fail(QStringLiteral("--seed must be a whole number"));
    }
    QTemporaryDir scratch;
    const QString path = parser.isSet(keepOption)
                             ? parser.value(keepOption)
                             : scratch.filePath(QStringLiteral("synthetic-trace.json"));

    // 1. The synthetic trace, written as the engine writes every trace.
    {
        QElapsedTimer timer;
        timer.start();
        bench::SyntheticOptions options;
        options.events = events;
        options.runs = runs;
        options.seed = seed;
        const trace::Trace synthetic = bench::makeSyntheticTrace(options);
        const double generatedMs = msSince(timer);
        timer.restart();
        if (const Status written = trace::writeTrace(synthetic, path.toStdString()); !written) {
            return fail(models::toQString(written.error().message));
        }
        std::printf("wrote %s: %llu synthetic activities in %d runs, %.1f MB (generated in %.0f "
                    "ms, written in %.0f ms)\n",
                    path.toLocal8Bit().constData(), events, runs,
                    double(QFileInfo(path).size()) / 1e6, generatedMs, msSince(timer));
    } // the generated trace is freed here: what follows sees only the file

    // 2. The GUI's objects, empty, at 1920x1080 and painted once: the baseline.
    models::Session session;
    models::ViewState state;
    gui::TimelineView view(&session, &state);
    view.resize(kWidthPx, kHeightPx);
    view.show();
    QCoreApplication::processEvents();
    view.replot(QCustomPlot::rpImmediateRefresh);
    ::malloc_trim(0); // freed heap the allocator still holds would hide growth: hand it back first
    const std::uint64_t baselineBytes = bench::residentBytes();

    // 3. Load as the GUI does: TraceLoader on a worker thread, progress and the result delivered to
    // this (GUI) thread by queued signals. A 5 ms timer on this thread shows whether it kept
    // turning.
    models::TraceLoader loader;
    QEventLoop loop;
    std::vector<models::RunEntryPtr> loaded;
    QString error;
    int progressReports = 0;
    QObject::connect(&loader, &models::TraceLoader::progress, &loop,
                     [&progressReports] { ++progressReports; });
    QObject::connect(&loader, &models::TraceLoader::loaded, &loop,
                     [&](const models::LoadResult& result) {
                         error = result.ok() ? QString() : result.error;
                         loaded = result.runs;
                         loop.quit();
                     });
    QElapsedTimer heartbeat;
    double maxGapMs = 0;
    QTimer ticker;
    ticker.setInterval(5);
    QObject::connect(&ticker, &QTimer::timeout, &loop, [&] {
        maxGapMs = std::max(maxGapMs, msSince(heartbeat));
        heartbeat.restart();
    });

    QElapsedTimer loadTimer;
    loadTimer.start();
    heartbeat.start();
    ticker.start();
    loader.load(path, models::RunOrigin::Opened);
    loop.exec();
    ticker.stop();
    maxGapMs = std::max(maxGapMs, msSince(heartbeat));
    const double readMs = msSince(loadTimer);
    if (!error.isEmpty()) {
        return fail(error);
    }
    // Into the session, which the timeline follows (it lays out its rows on Session::changed).
    session.addRuns(std::move(loaded));
    loaded.clear();
    const double loadMs = msSince(loadTimer);
    const std::uint64_t loadedBytes = bench::residentBytes();

    std::size_t loadedEvents = 0;
    for (const auto& entry : session.runs()) {
        loadedEvents += entry->run->activities.size();
    }
    if (loadedEvents != events) {
        return fail(QStringLiteral("loaded %1 events, expected %2").arg(loadedEvents).arg(events));
    }
    std::printf(
        "loaded %zu runs, %zu events: worker done after %.0f ms, in the session and laid out after "
        "%.0f ms; "
        "%d progress reports; the GUI thread's longest gap between 5 ms timer ticks: %.1f ms\n",
        std::size_t(session.count()), loadedEvents, readMs, loadMs, progressReports, maxGapMs);

    // 4. Replots: the whole trace, then zoomed in 8x at a time down to a few microseconds, with
    // pans at each level (as the W/S/A/D keys do). Every zoom and pan changes the visible range, so
    // each replot lays out the visible events again.
    std::vector<double> replotMs;
    std::vector<double> fullViewMs;
    auto timedReplot = [&view, &replotMs] {
        QElapsedTimer timer;
        timer.start();
        view.replot(QCustomPlot::rpImmediateRefresh);
        const double ms = msSince(timer);
        replotMs.push_back(ms);
        return ms;
    };
    // The worst case: every run expanded, every lane group pinned open, set-up and checks in view.
    view.setAllRunsExpanded(true);
    for (const models::LaneGroup group : models::kCollapsibleLaneGroups) {
        view.setLaneGroupPinned(group, true);
    }
    view.resetZoom();
    view.xAxis->setRange(view.plottable()->extentKeyRange());
    const double firstMs = timedReplot();
    std::size_t drawnAtFullZoom = 0, shapesAtFullZoom = 0;
    for (const auto& stats : view.plottable()->lastDrawStats()) {
        drawnAtFullZoom += stats.eventsCovered;
        shapesAtFullZoom += stats.individualShapes + stats.mergedShapes;
    }
    for (int i = 0; i < 4; ++i) {
        fullViewMs.push_back(timedReplot()); // same range: the cached geometry is drawn again
    }
    const QCPRange full = view.plottable()->extentKeyRange();
    for (double zoom = 1.0 / 8; full.size() * zoom >= 5'000; zoom /= 8) {
        const std::size_t levelStart = replotMs.size();
        std::size_t shapes = 0;
        for (double centre : {0.2, 0.5, 0.8}) {
            const double span = full.size() * zoom;
            const double middle = full.lower + full.size() * centre;
            view.xAxis->setRange(middle - span / 2, middle + span / 2);
            timedReplot();
            for (int pan = 0; pan < 6; ++pan) {
                view.panBy(0.1);
                timedReplot();
                for (const auto& stats : view.plottable()->lastDrawStats()) {
                    shapes += stats.individualShapes + stats.mergedShapes;
                }
            }
        }
        const std::vector<double> level(replotMs.begin() + std::ptrdiff_t(levelStart),
                                        replotMs.end());
        std::printf(
            "  zoom 1/%.0f (%s visible): median %.2f ms, max %.2f ms, %.0f shapes per view\n",
            1 / zoom, trace::formatDurationNs(std::int64_t(full.size() * zoom)).c_str(),
            median(level), percentile(level, 1.0), double(shapes) / 18.0);
    }
    view.resetZoom();
    timedReplot();

    const double replotMedianMs = median(replotMs);
    const double bytesPerEvent =
        double(std::int64_t(loadedBytes) - std::int64_t(baselineBytes)) / double(events);
    std::printf("drew %zu of %zu events at full zoom as %zu shapes; first replot %.1f ms, redraw "
                "of the same view "
                "%.1f ms (median of 4)\n",
                drawnAtFullZoom, loadedEvents, shapesAtFullZoom, firstMs, median(fullViewMs));
    std::printf("%zu replots at 1920x1080: median %.2f ms, 90th percentile %.2f ms, max %.2f ms\n",
                replotMs.size(), replotMedianMs, percentile(replotMs, 0.9),
                percentile(replotMs, 1.0));
    std::printf("resident memory: %.1f MB before loading, %.1f MB after (peak %.1f MB over the "
                "whole program)\n",
                double(baselineBytes) / 1e6, double(loadedBytes) / 1e6,
                double(bench::peakResidentBytes()) / 1e6);
    std::printf("events=%llu load_ms=%.1f bytes_per_event=%.1f replot_median_ms=%.2f\n", events,
                loadMs, bytesPerEvent, replotMedianMs);
    std::fflush(stdout);
    return 0;
}
