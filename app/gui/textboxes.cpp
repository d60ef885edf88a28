#include "gui/textboxes.h"

#include "gui/qcp.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPaintEngine>
#include <cmath>

namespace slicescope::gui {

namespace {

// A paint device that draws nothing and keeps every text item: where it lies (after the
// painter's transform and clip) and in what font. QCustomPlot draws its labels as text when
// label caching is off (QCPPainter::pmNoCaching).
class TextBoxEngine : public QPaintEngine {
  public:
    TextBoxEngine() : QPaintEngine(QPaintEngine::AllFeatures) {}
    bool begin(QPaintDevice*) override { return true; }
    bool end() override { return true; }
    void updateState(const QPaintEngineState&) override {}
    void drawPixmap(const QRectF&, const QPixmap&, const QRectF&) override {}
    void drawImage(const QRectF&, const QImage&, const QRectF&, Qt::ImageConversionFlags) override {
    }
    void drawTiledPixmap(const QRectF&, const QPixmap&, const QPointF&) override {}
    void drawPath(const QPainterPath&) override {}
    void drawPolygon(const QPointF*, int, PolygonDrawMode) override {}
    void drawPolygon(const QPoint*, int, PolygonDrawMode) override {}
    void drawRects(const QRectF*, int) override {}
    void drawRects(const QRect*, int) override {}
    void drawLines(const QLineF*, int) override {}
    void drawLines(const QLine*, int) override {}
    void drawEllipse(const QRectF&) override {}
    void drawPoints(const QPointF*, int) override {}
    void drawTextItem(const QPointF& p, const QTextItem& item) override {
        const QString text = item.text();
        if (text.trimmed().isEmpty()) {
            return;
        }
        const QTransform transform = painter()->combinedTransform();
        const QRectF whole = transform.mapRect(
            QRectF(p.x(), p.y() - item.ascent(), item.width(), item.ascent() + item.descent()));
        QRectF box = whole;
        if (painter()->hasClipping()) {
            box &= transform.mapRect(painter()->clipBoundingRect());
        }
        if (box.width() <= 0.01 || box.height() <= 0.01) {
            return; // clipped away: not visible
        }
        // Half a pixel of slack: a clip rectangle rounded to whole pixels is no cut label.
        const bool cut = box.width() < whole.width() - 0.5 || box.height() < whole.height() - 0.5;
        boxes.push_back({text, box, item.font().pointSizeF(), cut});
    }
    Type type() const override { return QPaintEngine::User; }

    QVector<TextBox> boxes;
};

class TextBoxDevice : public QPaintDevice {
  public:
    explicit TextBoxDevice(const QSize& size) : size_(size) {}
    QPaintEngine* paintEngine() const override { return &engine_; }
    TextBoxEngine& engine() const { return engine_; }

  protected:
    int metric(PaintDeviceMetric metric) const override {
        switch (metric) {
        case PdmWidth:
            return size_.width();
        case PdmHeight:
            return size_.height();
        case PdmWidthMM:
            return int(size_.width() * 25.4 / 96);
        case PdmHeightMM:
            return int(size_.height() * 25.4 / 96);
        case PdmNumColors:
            return 0x7fffffff;
        case PdmDepth:
            return 32;
        case PdmDpiX:
        case PdmDpiY:
        case PdmPhysicalDpiX:
        case PdmPhysicalDpiY:
            return 96; // as a QImage: fonts resolve to the same pixels
        case PdmDevicePixelRatio:
            return 1;
        case PdmDevicePixelRatioScaled:
            return int(QPaintDevice::devicePixelRatioFScale());
        default:
            return 0;
        }
    }

  private:
    QSize size_;
    mutable TextBoxEngine engine_;
};

} // namespace

QByteArray textBoxesJson(const QVector<TextBox>& boxes) {
    QJsonArray array;
    for (const auto& box : boxes) {
        QJsonObject o;
        o.insert(QStringLiteral("text"), box.text);
        o.insert(QStringLiteral("x"), std::round(box.rect.x() * 100) / 100);
        o.insert(QStringLiteral("y"), std::round(box.rect.y() * 100) / 100);
        o.insert(QStringLiteral("w"), std::round(box.rect.width() * 100) / 100);
        o.insert(QStringLiteral("h"), std::round(box.rect.height() * 100) / 100);
        if (box.cut) {
            o.insert(QStringLiteral("cut"), true);
        }
        array.append(o);
    }
    return QJsonDocument(array).toJson(QJsonDocument::Indented);
}

QVector<TextBox> recordTextBoxes(const QSize& sizePx,
                                 const std::function<void(QCPPainter& painter)>& paint) {
    TextBoxDevice device(sizePx);
    {
        QCPPainter painter(&device);
        painter.setMode(QCPPainter::pmNoCaching); // labels as text, not cached pixmaps
        paint(painter);
    }
    return device.engine().boxes;
}

} // namespace slicescope::gui
