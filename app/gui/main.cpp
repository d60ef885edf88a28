// Until the GUI issue lands: a main window that starts and says what it will hold.
#include <QApplication>
#include <QLabel>
#include <QMainWindow>

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("SliceScope"));
    QMainWindow window;
    window.setWindowTitle(QStringLiteral("SliceScope"));
    auto* label = new QLabel(QStringLiteral("SliceScope: the timeline and occupancy views are "
                                            "being built. Use slicescope-cli meanwhile."));
    label->setAlignment(Qt::AlignCenter);
    window.setCentralWidget(label);
    window.resize(1280, 800);
    window.show();
    return QApplication::exec();
}
