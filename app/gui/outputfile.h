#pragma once

// The window's outputs (an exported image, the --text-boxes JSON) follow the rules every file
// SliceScope writes follows (docs/reliability.md, "Writing files"): trace::writeFileAtomically
// replaces a regular file atomically, follows a link to the file it names, writes through to a
// FIFO or a character device, and refuses a read-only file.
#include <QByteArray>
#include <QString>
#include <QStringList>

namespace slicescope::gui {

// Writes bytes to path; false, with *error ("cannot write PATH: why"), when refused or failed.
bool writeOutputFile(const QString& path, const QByteArray& bytes, QString* error);

// Why path cannot be written ("cannot write PATH: why"), or an empty string. Nothing is created:
// a caller checks its outputs before it does the work.
QString outputRefusal(const QString& path);

// True when writing path replaces or creates a file (not a FIFO or device written through), and
// that file is one of others: writing it would destroy an input or another output.
bool overwritesOneOf(const QString& path, const QStringList& others);

} // namespace slicescope::gui
