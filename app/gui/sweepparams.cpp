#include "gui/sweepparams.h"

#include <QCoreApplication>

namespace slicescope::gui {

namespace {

constexpr SweepParam kParams[] = {
    {"block", QT_TRANSLATE_NOOP("SweepParam", "Threads per block"), "32:1024:x2"},
    {"work", QT_TRANSLATE_NOOP("SweepParam", "Work per element"), "1:4096:x4"},
    {"rows", QT_TRANSLATE_NOOP("SweepParam", "Rows (R)"), "100:100000:x10"},
    {"columns", QT_TRANSLATE_NOOP("SweepParam", "Columns (C)"), "1000:16000:x2"},
    {"n", QT_TRANSLATE_NOOP("SweepParam", "Inner size (N)"), "1:64:x2"},
    {"dtype", QT_TRANSLATE_NOOP("SweepParam", "Element type"), "f64,f32"},
    {"memory", QT_TRANSLATE_NOOP("SweepParam", "Host memory"), "pageable,pinned,managed,mapped"},
};

} // namespace

std::span<const SweepParam> sweepParams() {
    return kParams;
}

QString sweepParamWords(const QString& id) {
    for (const auto& p : kParams) {
        if (id == QLatin1String(p.id)) {
            return QCoreApplication::translate("SweepParam", p.words);
        }
    }
    return id;
}

QString sweepParamAxisWords(const QString& id) {
    QString words = sweepParamWords(id);
    if (!words.isEmpty()) {
        words[0] = words[0].toLower();
    }
    return words;
}

} // namespace slicescope::gui
