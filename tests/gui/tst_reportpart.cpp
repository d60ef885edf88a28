// The parts of the export views' registry (gui/reportpart.h): every row that draws something
// makes parts for it alone, each wanting a positive height, and each paints inside the rectangle
// it is given, whatever its size. ReportRenderer lays them out by these answers alone.
#include "gui/exportviews.h"
#include "gui/qcp.h"
#include "gui/reportpart.h"
#include "gui/reportrenderer.h"
#include "models/session.h"
#include "models/traceloader.h"
#include "models/viewstate.h"

#include <QImage>
#include <QTest>

using namespace slicescope;
using namespace slicescope::models;
using namespace slicescope::gui;

namespace {

// The first pixel outside inside that is not white, as "x,y"; empty when there is none.
QString inkOutside(const QImage& image, const QRect& inside) {
    const QImage rgb = image.convertToFormat(QImage::Format_RGB32);
    for (int y = 0; y < rgb.height(); ++y) {
        const auto* line = reinterpret_cast<const QRgb*>(rgb.constScanLine(y));
        for (int x = 0; x < rgb.width(); ++x) {
            if (!inside.contains(x, y) && (line[x] | 0xff000000) != 0xffffffff) {
                return QStringLiteral("%1,%2").arg(x).arg(y);
            }
        }
    }
    return {};
}

QString placementName(ReportPart::Placement placement) {
    switch (placement) {
    case ReportPart::Placement::Main:
        return QStringLiteral("main");
    case ReportPart::Placement::Side:
        return QStringLiteral("side");
    case ReportPart::Placement::Bottom:
        return QStringLiteral("bottom");
    case ReportPart::Placement::Footer:
        return QStringLiteral("footer");
    }
    return {};
}

} // namespace

class TestReportPart : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void everyRowDrawsPartsOfItsOwn_data();
    void everyRowDrawsPartsOfItsOwn();
    void partsPaintInsideTheirRect_data();
    void partsPaintInsideTheirRect();
    void oneMainPartWhateverTheViews();
    void theRegistryOrderIsThePaintOrder();

  private:
    // The parts a view's name alone makes from the session.
    ReportParts partsFor(const QString& view, ReportOptions* options) const;

    Session session_; // the seed's runs, a block sweep and a roofline
    ReportInputs inputs_;
    int plotsBuilt_ = 0;
};

void TestReportPart::initTestCase() {
    for (const char* sample : {"seed-100x4000x5-f64-pageable.json",
                               "sweep-block-32-1024-counters.json", "roofline-seed.json"}) {
        LoadResult result = TraceLoader::loadNow(
            QStringLiteral(SLICESCOPE_SAMPLES_DIR "/") + QLatin1String(sample), RunOrigin::Sample);
        QVERIFY2(result.ok(), qPrintable(result.error));
        session_.addRuns(std::move(result.runs));
    }
    ViewState state;
    state.setSelectedRun(session_.at(0)->id);
    inputs_ = reportInputs(session_, state);
}

ReportParts TestReportPart::partsFor(const QString& view, ReportOptions* options) const {
    options->views = *ReportViews::parse(view);
    return reportParts(ReportContext{session_, inputs_, *options, nullptr});
}

void TestReportPart::everyRowDrawsPartsOfItsOwn_data() {
    QTest::addColumn<QString>("view");
    for (const ExportView& view : exportViews()) {
        QTest::newRow(qPrintable(view.name)) << view.name;
    }
}

// A row's parts function makes parts for its view alone; each wants a positive height at a
// slide's, a page's and a narrow column's width, compact and at most as well.
void TestReportPart::everyRowDrawsPartsOfItsOwn() {
    QFETCH(QString, view);
    const ExportView* row = findExportView(view);
    QVERIFY(row);
    ReportOptions options;
    const ReportParts parts = partsFor(view, &options);
    QVERIFY2(!parts.empty(), "the view draws nothing");
    if (row->parts) {
        const ReportParts own = row->parts(ReportContext{session_, inputs_, options, nullptr});
        QCOMPARE(own.size(), parts.size());
    }
    QImage device(1, 1, QImage::Format_ARGB32_Premultiplied);
    for (const auto& part : parts) {
        for (const double width : {1260.0, 652.0, 300.0}) {
            const QString where =
                placementName(part->placement()) + QStringLiteral(" at %1").arg(width);
            QVERIFY2(part->preferredHeight(width, &device) > 0, qPrintable(where));
            QVERIFY2(part->compactHeight(width, &device) > 0, qPrintable(where));
            QVERIFY2(part->maximumHeight(width, &device) > 0, qPrintable(where));
        }
    }
}

void TestReportPart::partsPaintInsideTheirRect_data() {
    QTest::addColumn<QString>("view");
    QTest::addColumn<double>("width");
    QTest::addColumn<double>("heightShare"); // of the part's preferred height
    for (const ExportView& view : exportViews()) {
        for (const double width : {820.0, 360.0}) {
            for (const double share : {1.0, 0.4}) {
                QTest::newRow(
                    qPrintable(QStringLiteral("%1 %2 %3").arg(view.name).arg(width).arg(share)))
                    << view.name << width << share;
            }
        }
    }
}

// Each part painted with no clip into a rect inside a larger white image, at its preferred height
// and in less: no pixel outside the rect is touched (but for a glyph's antialiased edge).
void TestReportPart::partsPaintInsideTheirRect() {
    QFETCH(QString, view);
    QFETCH(double, width);
    QFETCH(double, heightShare);
    ReportOptions options;
    const ReportParts parts = partsFor(view, &options);
    QImage probe(1, 1, QImage::Format_ARGB32_Premultiplied);
    for (const auto& part : parts) {
        const double height = std::round(part->preferredHeight(width, &probe) * heightShare);
        const QRect rect(40, 30, int(width), int(height));
        QImage image(rect.width() + 80, rect.height() + 60, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::white);
        {
            QCPPainter painter(&image);
            painter.setRenderHint(QPainter::TextAntialiasing);
            QVERIFY(!painter.hasClipping());
            part->paint(painter, QRectF(rect));
        }
        // 1 px of slack for the antialiased edge of a glyph drawn at the rect's edge, as the
        // text layout check allows (textlayout.h).
        const QString ink = inkOutside(image, rect.adjusted(-1, -1, 1, 1));
        QVERIFY2(ink.isEmpty(), qPrintable(placementName(part->placement()) +
                                           QStringLiteral(" part inks %1 outside ").arg(ink) +
                                           QStringLiteral("%1,%2 %3x%4")
                                               .arg(rect.x())
                                               .arg(rect.y())
                                               .arg(rect.width())
                                               .arg(rect.height())));
        QVERIFY2(!inkOutside(image, QRect()).isEmpty(), "the part paints nothing at all");
    }
}

// Whatever views are chosen together, at most one part is the page's main part (the layout
// has room for one), and a name chosen twice makes its parts once.
void TestReportPart::oneMainPartWhateverTheViews() {
    const QStringList names = ReportViews::names();
    Session plain; // no sweep: each choice is quick to make
    LoadResult result = TraceLoader::loadNow(
        QStringLiteral(SLICESCOPE_SAMPLES_DIR "/seed-100x4000x5-f64-pageable.json"),
        RunOrigin::Sample);
    QVERIFY2(result.ok(), qPrintable(result.error));
    plain.addRuns(std::move(result.runs));
    const ReportInputs inputs = reportInputs(plain, ViewState());
    for (int mask = 1; mask < (1 << names.size()); ++mask) {
        QStringList chosen;
        for (int i = 0; i < names.size(); ++i) {
            if (mask & (1 << i)) {
                chosen << names[i];
            }
        }
        ReportOptions options;
        options.views = *ReportViews::parse(chosen.join(QLatin1Char(',')));
        const ReportParts parts = reportParts(ReportContext{plain, inputs, options, nullptr});
        const auto mains = std::count_if(parts.begin(), parts.end(), [](const auto& part) {
            return part->placement() == ReportPart::Placement::Main;
        });
        QVERIFY2(mains <= 1, qPrintable(chosen.join(QLatin1Char(','))));
        ReportOptions twice;
        twice.views = *ReportViews::parse(chosen.join(QLatin1Char(',')) + QLatin1Char(',') +
                                          chosen.join(QLatin1Char(',')));
        QCOMPARE(reportParts(ReportContext{plain, inputs, twice, nullptr}).size(), parts.size());
    }
}

// The parts come in the registry's order (the order the page paints them in): the timeline and
// its legend, the breakdown, the occupancy chart, the sweep panels.
void TestReportPart::theRegistryOrderIsThePaintOrder() {
    ReportOptions options;
    const ReportParts parts = partsFor(QStringLiteral("all"), &options);
    QStringList placements;
    for (const auto& part : parts) {
        placements << placementName(part->placement());
    }
    QCOMPARE(placements.join(QLatin1Char(' ')), QStringLiteral("main footer side side bottom"));
    int built = 0;
    const ReportParts sweeps = sweepParts(ReportContext{session_, inputs_, options, &built});
    QCOMPARE(sweeps.size(), std::size_t(1));
    QVERIFY(built >= 3); // the block sweep's time and occupancy, the roofline: drawn when made
}

QTEST_MAIN(TestReportPart)
#include "tst_reportpart.moc"
