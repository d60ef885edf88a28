#pragma once

#include <QString>

class QAbstractItemModel;
class QTableView;
class QWidget;

namespace slicescope::gui {

// A table of rows picked one at a time, sortable by clicking a header, unsorted at first, with
// no row numbers: the runs table and the GPU trace table.
QTableView* newRowTable(const QString& objectName, QAbstractItemModel* model, QWidget* parent);

} // namespace slicescope::gui
