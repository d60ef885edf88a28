#include "models/traceloader.h"

#include <QFile>
#include <QFutureWatcher>
#include <QPromise>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <exception>
#include <new>

namespace slicescope::models {

TraceLoader::TraceLoader(QObject* parent) : QObject(parent) {
    qRegisterMetaType<LoadResult>();
}

TraceLoader::~TraceLoader() {
    for (auto& flag : cancelFlags_) {
        flag->store(true);
    }
}

LoadResult TraceLoader::loadNow(const QString& path, RunOrigin origin,
                                const trace::ReadOptions& options) {
    LoadResult result;
    result.path = path;
    result.origin = origin;
    // Progress: reading and parsing the text is most of the work (0 .. 0.8); building each run's
    // lanes and summary the rest, so the bar does not sit at the end while lanes are sorted.
    constexpr double kParseShare = 0.8;
    trace::ReadOptions parseOptions = options;
    if (options.progress) {
        parseOptions.progress = [&options](double fraction) {
            options.progress(kParseShare * fraction);
        };
    }
    Result<trace::Trace> trace = fail(Error::Code::Internal, "not read");
    if (path.startsWith(QLatin1Char(':'))) {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly)) {
            result.error = QStringLiteral("cannot open %1: %2").arg(path, file.errorString());
            return result;
        }
        const QByteArray bytes = file.readAll();
        trace = trace::parseTrace(std::string_view(bytes.constData(), std::size_t(bytes.size())),
                                  parseOptions);
    } else {
        trace = trace::readTrace(path.toStdString(), parseOptions);
    }
    if (!trace) {
        result.cancelled = trace.error().code == Error::Code::Cancelled;
        result.error = toQString(trace.error().message);
        return result;
    }
    const std::size_t count = trace->runs.size();
    for (std::size_t i = 0; i < count; ++i) {
        if (options.cancel && options.cancel->load()) {
            result.cancelled = true;
            result.runs.clear();
            return result;
        }
        result.runs.push_back(makeRunEntry(std::move(trace->runs[i]), origin, path));
        if (options.progress) {
            options.progress(kParseShare + (1 - kParseShare) * double(i + 1) / double(count));
        }
    }
    if (options.progress && count == 0) {
        options.progress(1.0);
    }
    return result;
}

quint64 TraceLoader::load(const QString& path, RunOrigin origin) {
    const quint64 request = nextRequest_++;
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    cancelFlags_.push_back(cancel);
    const quint64 generation = generation_;
    auto* watcher = new QFutureWatcher<LoadResult>(this);
    connect(
        watcher, &QFutureWatcherBase::progressValueChanged, this, [this, watcher, path](int value) {
            const int range = std::max(1, watcher->progressMaximum() - watcher->progressMinimum());
            emit progress(double(value - watcher->progressMinimum()) / range, path);
        });
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, cancel, generation] {
        watcher->deleteLater();
        cancelFlags_.erase(std::remove(cancelFlags_.begin(), cancelFlags_.end(), cancel),
                           cancelFlags_.end());
        --inFlight_;
        if (inFlight_ == 0) {
            emit busyChanged(false);
        }
        if (generation != generation_ || watcher->future().resultCount() == 0) {
            return; // stale: the session moved on while this was loading
        }
        emit loaded(watcher->future().result());
    });
    ++inFlight_;
    if (inFlight_ == 1) {
        emit busyChanged(true);
    }
    watcher->setFuture(QtConcurrent::run(
        [path, origin, cancel, request, reader = reader_](QPromise<LoadResult>& promise) {
            promise.setProgressRange(0, 1000);
            trace::ReadOptions options;
            options.cancel = cancel.get();
            options.progress = [&promise](double fraction) {
                promise.setProgressValue(int(std::clamp(fraction, 0.0, 1.0) * 1000));
            };
            // A throw would end the future with no result: the load would never report, and
            // every later one would wait behind it in the session's order.
            LoadResult result;
            try {
                result = reader(path, origin, options);
            } catch (const std::bad_alloc&) {
                result = LoadResult{};
                result.error = QStringLiteral("not enough memory to read it");
            } catch (const std::exception& error) {
                result = LoadResult{};
                result.error = QString::fromLocal8Bit(error.what());
            }
            result.path = path;
            result.origin = origin;
            result.request = request;
            promise.addResult(std::move(result));
        }));
    return request;
}

void TraceLoader::cancelAll() {
    ++generation_;
    for (auto& flag : cancelFlags_) {
        flag->store(true);
    }
}

} // namespace slicescope::models
