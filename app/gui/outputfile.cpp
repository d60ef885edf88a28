#include "gui/outputfile.h"

#include "slicescope/trace/atomicfile.h"

#include <QFile>
#include <QStringList>

namespace slicescope::gui {

namespace {

std::filesystem::path nativePath(const QString& path) {
    return std::filesystem::path(QFile::encodeName(path).toStdString());
}

} // namespace

bool writeOutputFile(const QString& path, const QByteArray& bytes, QString* error) {
    const auto written = trace::writeFileAtomically(nativePath(path), [&bytes](std::ostream& out) {
        out.write(bytes.constData(), std::streamsize(bytes.size()));
    });
    if (!written && error) {
        *error = QString::fromStdString(written.error().message);
    }
    return bool(written);
}

QString outputRefusal(const QString& path) {
    const auto target = trace::resolveOutput(nativePath(path));
    return target ? QString() : QString::fromStdString(target.error().message);
}

bool overwritesOneOf(const QString& path, const QStringList& others) {
    const auto target = trace::resolveOutput(nativePath(path));
    if (target && target->kind == trace::OutputKind::WriteThrough) {
        return false; // /dev/null named twice destroys nothing
    }
    for (const QString& other : others) {
        if (trace::sameFile(nativePath(path), nativePath(other))) {
            return true;
        }
    }
    return false;
}

} // namespace slicescope::gui
