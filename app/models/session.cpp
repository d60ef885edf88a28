#include "models/session.h"

#include <QFutureWatcher>
#include <QHash>
#include <QSet>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>

namespace slicescope::models {

Session::Session(QObject* parent) : QObject(parent) {}

int Session::indexOf(const QString& id) const {
    for (std::size_t i = 0; i < runs_.size(); ++i) {
        if (runs_[i]->id == id) {
            return int(i);
        }
    }
    return -1;
}

RunEntryPtr Session::find(const QString& id) const {
    const int index = indexOf(id);
    return index < 0 ? nullptr : runs_[std::size_t(index)];
}

int Session::userRunCount() const {
    return int(std::count_if(runs_.begin(), runs_.end(),
                             [](const RunEntryPtr& e) { return e->origin != RunOrigin::Sample; }));
}

void Session::addRuns(std::vector<RunEntryPtr> entries) {
    entries.erase(std::remove(entries.begin(), entries.end(), nullptr), entries.end());
    if (entries.empty()) {
        return;
    }
    const int first = count();
    const int last = first + int(entries.size()) - 1;
    emit aboutToAddRuns(first, last);
    QList<RunNameRequest> requests;
    for (const auto& entry : entries) {
        requests << nameRequest(*entry->run, entry->id);
    }
    const QStringList names = naming_.nameBatch(requests);
    for (std::size_t i = 0; i < entries.size(); ++i) {
        entries[i]->id = names[qsizetype(i)];
        runs_.push_back(std::move(entries[i]));
    }
    updateVerdicts();
    emit runsAdded(first, last);
    if (first > 0) {
        emit runsUpdated(0, first - 1);
    }
    emit changed();
}

void Session::removeRun(int index) {
    if (index < 0 || index >= count()) {
        return;
    }
    emit aboutToRemoveRun(index);
    runs_.erase(runs_.begin() + index);
    updateVerdicts();
    emit runRemoved(index);
    if (!runs_.empty()) {
        emit runsUpdated(0, count() - 1);
    }
    emit changed();
}

void Session::clear() {
    emit aboutToReset();
    runs_.clear();
    naming_.reset();
    emit reset();
    emit changed();
}

void Session::setVisible(int index, bool visible) {
    if (index < 0 || index >= count() || runs_[std::size_t(index)]->visible == visible) {
        return;
    }
    runs_[std::size_t(index)]->visible = visible;
    emit runsUpdated(index, index);
    emit changed();
}

trace::Trace Session::toTrace(bool includeSamples) const {
    trace::Trace t;
    t.generator = "slicescope 0.1.0";
    for (const auto& entry : runs_) {
        if (!includeSamples && entry->origin == RunOrigin::Sample) {
            continue;
        }
        trace::Run run = *entry->run;
        run.id = entry->id.toStdString();
        run.batch = batchOf(*entry).toStdString(); // a restore compares and places as here
        run.hidden = !entry->visible;
        t.runs.push_back(std::move(run));
    }
    return t;
}

void Session::updateVerdicts() {
    // Inputs for trace::verdicts (O(runs log runs)), copied here: the runs themselves are
    // immutable and shared, so a worker may read them while the session changes.
    struct Inputs {
        std::vector<std::shared_ptr<const trace::Run>> runs; // kept alive for `all`
        std::vector<trace::SummarizedRun> all;
    };
    auto inputs = std::make_shared<Inputs>();
    inputs->runs.reserve(runs_.size());
    inputs->all.reserve(runs_.size());
    for (const auto& entry : runs_) {
        inputs->runs.push_back(entry->run);
        inputs->all.push_back({entry->run.get(), entry->summary, batchOf(*entry).toStdString(),
                               entry->id.toStdString()});
    }
    const auto compute = [inputs] {
        const std::vector<std::string> texts = trace::verdicts(inputs->all);
        QStringList out;
        out.reserve(qsizetype(texts.size()));
        for (const auto& text : texts) {
            out << toQString(text);
        }
        return out;
    };
    const quint64 generation = ++verdictGeneration_;
    if (runs_.size() <= kVerdictsAtOnce) {
        applyVerdicts(compute());
        appliedGeneration_ = generation;
        return;
    }
    // Longer than a frame: on a worker. Until it is done the runs keep the verdicts they had (new
    // ones none); a change meanwhile starts another computation and this one's result is dropped.
    auto* watcher = new QFutureWatcher<QStringList>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation] {
        watcher->deleteLater();
        if (generation != verdictGeneration_ || watcher->future().resultCount() != 1) {
            return; // stale: the runs changed since
        }
        appliedGeneration_ = generation;
        const QStringList verdicts = watcher->future().result();
        if (verdicts.size() == count() && count() > 0) { // not cleared since
            applyVerdicts(verdicts);
            emit runsUpdated(0, count() - 1);
        }
    });
    watcher->setFuture(QtConcurrent::run(compute));
}

void Session::applyVerdicts(const QStringList& verdicts) {
    for (std::size_t i = 0; i < runs_.size(); ++i) {
        runs_[i]->verdict = verdicts[qsizetype(i)];
    }
}

} // namespace slicescope::models
