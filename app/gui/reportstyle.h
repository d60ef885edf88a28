#pragma once

#include "gui/theme.h"

#include <QCoreApplication>
#include <QFont>
#include <QString>

// What the parts of an export (gui/reportrenderer.cpp, gui/reportpart.cpp,
// gui/reportsweeps.cpp) share: margins, fonts and the translation context.
namespace slicescope::gui::reportstyle {

// ReportRenderer is no QObject: its strings are translated in its class's context all the same.
inline QString tr(const char* text) {
    return QCoreApplication::translate("slicescope::gui::ReportRenderer", text);
}

inline constexpr double kMargin = 10;
inline constexpr double kGap = 16;
// The smallest font an export draws.
inline constexpr double kMinExportPt = 9;

inline QFont titleFont() {
    return theme::plotFont(12, true);
}
inline QFont textFont() {
    return theme::plotFont(kMinExportPt);
}

} // namespace slicescope::gui::reportstyle
