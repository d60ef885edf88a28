#include "gui/theme.h"

#include <QApplication>

namespace slicescope::gui::theme {

namespace {
double gPresentationScale = 1.0;
}

using models::LaneKind;

QColor laneColor(LaneKind kind) {
    switch (kind) {
    case LaneKind::Api:
        return QColor(0x99, 0x99, 0x99); // grey
    case LaneKind::HtoD:
        return QColor(0x00, 0x9e, 0x73); // bluish green
    case LaneKind::Kernel:
        return QColor(0x00, 0x72, 0xb2); // blue
    case LaneKind::Memset:
        return QColor(0x56, 0xb4, 0xe9); // sky blue
    case LaneKind::DtoD:
        return QColor(0xf0, 0xe4, 0x42); // yellow
    case LaneKind::HtoH:
        return QColor(0xf0, 0xe4, 0x42);
    case LaneKind::DtoH:
        return QColor(0xd5, 0x5e, 0x00); // vermillion
    case LaneKind::Host:
        return QColor(0xcc, 0x79, 0xa7); // reddish purple
    case LaneKind::Sync:
        return QColor(0xe6, 0x9f, 0x00); // orange
    case LaneKind::Overhead:
        return QColor(0xbb, 0xbb, 0xbb);
    }
    return Qt::gray;
}

QColor laneTextColor(LaneKind kind) {
    switch (kind) {
    case LaneKind::DtoD:
    case LaneKind::HtoH:
    case LaneKind::Memset:
    case LaneKind::Sync:
    case LaneKind::Overhead:
    case LaneKind::Api:
        return Qt::black;
    default:
        return Qt::white;
    }
}

QString laneDescription(LaneKind kind) {
    switch (kind) {
    case LaneKind::Api:
        return QStringLiteral("CUDA API calls on a host thread");
    case LaneKind::HtoD:
        return QStringLiteral("copies host to device");
    case LaneKind::Kernel:
        return QStringLiteral("kernels running on the GPU");
    case LaneKind::Memset:
        return QStringLiteral("device memsets");
    case LaneKind::DtoD:
        return QStringLiteral("copies device to device");
    case LaneKind::HtoH:
        return QStringLiteral("copies host to host");
    case LaneKind::DtoH:
        return QStringLiteral("copies device to host");
    case LaneKind::Host:
        return QStringLiteral("host work on a CPU thread");
    case LaneKind::Sync:
        return QStringLiteral("waiting for the GPU");
    case LaneKind::Overhead:
        return QStringLiteral("profiler overhead");
    }
    return {};
}

QBrush modelledBrush(LaneKind kind) {
    return modelledBrush(laneColor(kind));
}

QBrush modelledBrush(const QColor& color) {
    return QBrush(color.darker(130), Qt::BDiagPattern);
}

QColor warmupColor(LaneKind kind) {
    return warmupColor(laneColor(kind));
}

QColor hostLayoutColor() {
    return QColor(0xe6, 0x9f, 0x00); // orange
}

QColor warmupColor(const QColor& lane) {
    const QColor grey(0xdc, 0xdc, 0xdc);
    const auto mix = [](int a, int b) { return (a * 3 + b * 7) / 10; };
    return QColor(mix(lane.red(), grey.red()), mix(lane.green(), grey.green()),
                  mix(lane.blue(), grey.blue()));
}

QBrush warmupBrush() {
    return QBrush(QColor(0x90, 0x90, 0x90), Qt::FDiagPattern);
}

QColor launchColor() {
    return QColor(0x56, 0xb4, 0xe9);
}
QColor theoreticalColor() {
    return QColor(0x00, 0x72, 0xb2);
}
QColor achievedColor() {
    return QColor(0x00, 0x9e, 0x73);
}
QColor slotsBusyColor() {
    return QColor(0xd5, 0x5e, 0x00);
}
QColor busyWarpColor() {
    return QColor(0x00, 0x72, 0xb2);
}
QColor idleWarpColor() {
    return QColor(0xa6, 0xc8, 0xe6);
}
QColor freeSlotColor() {
    return QColor(0xf2, 0xf2, 0xf2);
}
QColor headerBandColor() {
    return QColor(0xec, 0xef, 0xf4);
}
QColor selectionColor() {
    return QColor(0x11, 0x11, 0x11);
}

QFont plotFont(double pointSize, bool bold) {
    QFont font = QApplication::font();
    font.setPointSizeF(pointSize * gPresentationScale);
    font.setBold(bold);
    return font;
}

double presentationScale() {
    return gPresentationScale;
}
void setPresentationScale(double scale) {
    gPresentationScale = scale;
}

} // namespace slicescope::gui::theme
