#include "gui/elideapart.h"

#include <algorithm>

namespace slicescope::gui {

namespace {

// How many leading characters text shares with the text of group most like it at the start.
qsizetype sharedStart(const QString& text, const QStringList& group) {
    qsizetype most = 0;
    for (const auto& other : group) {
        if (other == text) {
            continue;
        }
        qsizetype i = 0;
        while (i < text.size() && i < other.size() && text[i] == other[i]) {
            ++i;
        }
        most = std::max(most, i);
    }
    return most;
}

bool allDiffer(const QStringList& texts) {
    QStringList sorted = texts;
    sorted.sort();
    return std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
}

// The group cut in the first way that keeps its labels apart; cut in the middle if none does.
QStringList cutApart(const QStringList& group, const QFontMetricsF& fm, double width) {
    const auto cutEach = [&](auto cut) {
        QStringList out;
        out.reserve(group.size());
        for (const auto& text : group) {
            out << cut(text);
        }
        return out;
    };
    const QChar ellipsis(0x2026);
    const QList<QStringList> candidates = {
        cutEach([&](const QString& t) { return fm.elidedText(t, Qt::ElideRight, width); }),
        cutEach([&](const QString& t) { return fm.elidedText(t, Qt::ElideLeft, width); }),
        // "…dle-strided (400x…": from a few letters before where the label parts from the
        // one most like it.
        cutEach([&](const QString& t) {
            const qsizetype from = std::max<qsizetype>(0, sharedStart(t, group) - 3);
            return from == 0 ? fm.elidedText(t, Qt::ElideRight, width)
                             : fm.elidedText(ellipsis + t.mid(from), Qt::ElideRight, width);
        }),
    };
    for (const auto& cut : candidates) {
        if (allDiffer(cut)) {
            return cut;
        }
    }
    return cutEach([&](const QString& t) { return fm.elidedText(t, Qt::ElideMiddle, width); });
}

} // namespace

ElideApart::ElideApart(QStringList labels, const QFontMetricsF& metrics)
    : labels_(std::move(labels)), metrics_(metrics) {
    labels_.removeDuplicates();
}

QString ElideApart::elided(const QString& label, double width) {
    auto found = byWidth_.find(width);
    if (found == byWidth_.end()) {
        found = byWidth_.insert(width, elideAll(width));
    }
    const auto cut = found->constFind(label);
    return cut != found->constEnd() ? *cut : metrics_.elidedText(label, Qt::ElideMiddle, width);
}

QHash<QString, QString> ElideApart::elideAll(double width) const {
    QHash<QString, QStringList> byCut; // a cut and the labels it stands for
    for (const auto& label : labels_) {
        byCut[metrics_.elidedText(label, Qt::ElideMiddle, width)] << label;
    }
    QHash<QString, QString> out;
    out.reserve(labels_.size());
    for (auto it = byCut.cbegin(); it != byCut.cend(); ++it) {
        const QStringList& group = it.value();
        if (group.size() == 1) {
            out.insert(group.front(), it.key());
            continue;
        }
        const QStringList cuts = cutApart(group, metrics_, width);
        for (qsizetype i = 0; i < group.size(); ++i) {
            out.insert(group[i], cuts[i]);
        }
    }
    return out;
}

} // namespace slicescope::gui
