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
    requests.reserve(qsizetype(entries.size()));
    for (const auto& entry : entries) {
        requests << nameRequest(*entry);
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

std::unique_ptr<Session> Session::copyShowing(const QSet<QString>& shown) const {
    auto copy = std::make_unique<Session>();
    copy->runs_.reserve(runs_.size());
    for (const auto& entry : runs_) {
        auto own = std::make_shared<RunEntry>(*entry);
        own->visible = shown.contains(own->id);
        copy->runs_.push_back(std::move(own));
    }
    copy->naming_ = naming_;
    return copy;
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
    // What trace::verdicts (O(runs log runs)) needs, taken here as it is now: the runs and their
    // entries are shared (an entry's run and summary never change once made), ids and batches
    // are shared texts. The worker makes the UTF-8 copies and summaries it reads: at 100,000
    // runs, making them here held the GUI thread for a fifth of a second.
    struct Input {
        RunEntryPtr entry;
        QString batch;
        QString id;
    };
    auto inputs = std::make_shared<std::vector<Input>>();
    inputs->reserve(runs_.size());
    for (const auto& entry : runs_) {
        inputs->push_back({entry, batchOf(*entry), entry->id});
    }
    const auto compute = [inputs] {
        std::vector<trace::SummarizedRun> all;
        all.reserve(inputs->size());
        for (const Input& input : *inputs) {
            all.push_back({input.entry->run.get(), input.entry->summary, input.batch.toStdString(),
                           input.id.toStdString()});
        }
        const std::vector<std::string> texts = trace::verdicts(all);
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
