#include "models/traceloader.h"

#include <QFile>
#include <QFutureWatcher>
#include <QPromise>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <exception>
#include <iterator>
#include <new>

namespace slicescope::models {

QString reasonWithoutPath(const QString& path, const QString& error) {
    for (const QString& prefix :
         {QStringLiteral("cannot read %1: ").arg(path),
          QStringLiteral("cannot open %1: ").arg(path), QStringLiteral("%1: ").arg(path)}) {
        if (error.startsWith(prefix)) {
            return error.mid(prefix.size());
        }
    }
    return error;
}

TraceLoader::TraceLoader(QObject* parent) : QObject(parent) {
    qRegisterMetaType<LoadResult>();
}

TraceLoader::~TraceLoader() {
    for (auto& flag : cancelFlags_) {
        flag->store(true);
    }
}

namespace {

// Builds the entries of a trace's runs while the reader parses the rest: every kBatch runs read
// go to the thread pool as one task, so a second core makes entries while this one parses; when
// the pool has not started the last task given, the reader builds the batch itself (building
// an entry costs more than reading its run), and it builds the last, partial batch. finish()
// gives them in the file's order. Waiting for a task that has not started runs it on the waiting
// thread, so a pool busy with other loads never leaves this one waiting.
class EntryPipeline {
  public:
    static constexpr std::size_t kBatch = 512;

    EntryPipeline(RunOrigin origin, QString source) : origin_(origin), source_(std::move(source)) {}
    EntryPipeline(const EntryPipeline&) = delete;
    EntryPipeline& operator=(const EntryPipeline&) = delete;
    ~EntryPipeline() { // a failed or cancelled read: no task outlives the load
        for (auto& task : tasks_) {
            try {
                task.waitForFinished();
            } catch (...) { // its result is dropped with the load
            }
        }
    }

    void add(trace::Run&& run) {
        batch_.push_back(std::move(run));
        ++count_;
        if (batch_.size() == kBatch) {
            if (waiting_->load() > 0) {
                tasks_.push_back(
                    QtFuture::makeReadyFuture(build(std::move(batch_), origin_, source_)));
            } else {
                waiting_->fetch_add(1);
                tasks_.push_back(
                    QtConcurrent::run([batch = std::move(batch_), origin = origin_,
                                       source = source_, waiting = waiting_]() mutable {
                        waiting->fetch_sub(1);
                        return build(std::move(batch), origin, source);
                    }));
            }
            batch_ = {};
            batch_.reserve(kBatch);
        }
    }

    // Every entry, in the order the runs were added.
    std::vector<RunEntryPtr> finish() {
        std::vector<RunEntryPtr> last = build(std::move(batch_), origin_, source_);
        std::vector<RunEntryPtr> entries;
        entries.reserve(count_);
        for (auto& task : tasks_) {
            for (auto& entry : task.takeResult()) {
                entries.push_back(std::move(entry));
            }
        }
        tasks_.clear();
        std::move(last.begin(), last.end(), std::back_inserter(entries));
        return entries;
    }

  private:
    static std::vector<RunEntryPtr> build(std::vector<trace::Run> runs, RunOrigin origin,
                                          const QString& source) {
        std::vector<RunEntryPtr> entries;
        entries.reserve(runs.size());
        for (auto& run : runs) {
            entries.push_back(makeRunEntry(std::move(run), origin, source));
        }
        return entries;
    }

    RunOrigin origin_;
    QString source_;
    std::vector<trace::Run> batch_;
    std::size_t count_ = 0;
    std::vector<QFuture<std::vector<RunEntryPtr>>> tasks_;
    // Tasks given to the pool that have not started yet (each task counts itself out).
    std::shared_ptr<std::atomic<int>> waiting_ = std::make_shared<std::atomic<int>>(0);
};

} // namespace

LoadResult TraceLoader::loadNow(const QString& path, RunOrigin origin,
                                const trace::ReadOptions& options) {
    LoadResult result;
    result.path = path;
    result.origin = origin;
    // Each run's lanes and summary are built as it is read (EntryPipeline): reading is the whole
    // bar but its end, which waits for the last entries.
    constexpr double kReadShare = 0.95;
    trace::ReadOptions parseOptions = options;
    if (options.progress) {
        parseOptions.progress = [&options](double fraction) {
            options.progress(kReadShare * fraction);
        };
    }
    EntryPipeline pipeline(origin, path);
    parseOptions.takeRun = [&pipeline](trace::Run&& run) { pipeline.add(std::move(run)); };
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
    result.runs = pipeline.finish();
    if (options.cancel && options.cancel->load()) {
        result.cancelled = true;
        result.runs.clear();
        return result;
    }
    if (options.progress) {
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
