#include "gui/wheelguard.h"

#include "gui/qcp.h"

#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QWheelEvent>

namespace slicescope::gui {

namespace {

bool takesWheelOnlyWhenFocused(const QObject* object) {
    return qobject_cast<const QAbstractSpinBox*>(object) || qobject_cast<const QComboBox*>(object);
}

bool neverTakesWheel(const QObject* object) {
    const auto* plot = qobject_cast<const QCustomPlot*>(object);
    return plot && !plot->interactions().testFlag(QCP::iRangeZoom);
}

// Offers the wheel to the widget's parents, nearest first, until one takes it (the scroll area
// around the panel); each sees it at its own coordinates.
void passToParents(QWidget* widget, const QWheelEvent& event) {
    QPointF at = event.position();
    for (QWidget* child = widget; child->parentWidget() && !child->isWindow();
         child = child->parentWidget()) {
        at = child->mapToParent(at);
        QWheelEvent offer(at, event.globalPosition(), event.pixelDelta(), event.angleDelta(),
                          event.buttons(), event.modifiers(), event.phase(), event.inverted(),
                          event.source());
        QCoreApplication::sendEvent(child->parentWidget(), &offer);
        if (offer.isAccepted()) {
            return;
        }
    }
}

} // namespace

void WheelGuard::installOnApplication() {
    qApp->installEventFilter(new WheelGuard(qApp));
}

bool WheelGuard::eventFilter(QObject* watched, QEvent* event) {
    const bool whenFocused = takesWheelOnlyWhenFocused(watched);
    if (!whenFocused && !neverTakesWheel(watched)) {
        return false;
    }
    auto* widget = static_cast<QWidget*>(watched);
    if (event->type() == QEvent::Polish && whenFocused && widget->focusPolicy() == Qt::WheelFocus) {
        widget->setFocusPolicy(Qt::StrongFocus); // the wheel no longer gives it focus
    } else if (event->type() == QEvent::Wheel && !(whenFocused && widget->hasFocus())) {
        passToParents(widget, *static_cast<QWheelEvent*>(event));
        return true;
    }
    return false;
}

} // namespace slicescope::gui
