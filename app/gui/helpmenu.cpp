#include "gui/helpmenu.h"

#include <QMessageBox>

namespace slicescope::gui {

HelpMenu::HelpMenu(QWidget* parent) : QMenu(tr("&Help"), parent) {
    auto* occupancy = addAction(tr("What is &occupancy?"), this, [this] {
        QMessageBox box(QMessageBox::Information, tr("What is occupancy?"), occupancyHtml(),
                        QMessageBox::Ok, parentWidget());
        box.exec();
    });
    occupancy->setShortcut(QKeySequence::HelpContents);
    addAction(tr("&About SliceScope"), this, [this] {
        QMessageBox::about(
            parentWidget(), tr("About SliceScope"),
            tr("<b>SliceScope 0.1.0</b><br>How the way GPU work is sliced decides its speed.<br>"
               "Measures with slicescope-cli (CUPTI on a GPU, a monotonic clock on the CPU); "
               "models GPUs you do not have."));
    });
}

QString HelpMenu::occupancyHtml() {
    return tr(
        "<h3>Occupancy</h3>"
        "<p>A GPU is made of streaming multiprocessors (SMs). Each SM keeps many warps (groups of "
        "32 threads) resident at once and switches between them to hide memory latency. "
        "<b>Occupancy</b> is the share of an SM's warp slots a launch keeps filled.</p>"
        "<p><b>Theoretical occupancy</b> follows from the launch: the block size, the registers "
        "each thread needs and the shared memory each block needs. Whichever SM resource runs out "
        "first is the <b>limiter</b>: warps, block slots, registers or shared memory.</p>"
        "<p><b>Achieved occupancy</b> is what the hardware counters saw on average (only with "
        "counters).</p>"
        "<p><b>Thread slots doing work</b> is the seed's measure: threads that have work divided "
        "by all thread slots of the GPU. A launch of one 64-thread block with one busy thread has "
        "50 % theoretical occupancy on the one SM it uses, yet leaves 99.99 % of the GPU "
        "idle.</p>"
        "<p>In the timeline, copies (green and orange) and kernels (blue) of each run sit in their "
        "own lanes; hatched bars are <b>modelled</b>, predicted from a device preset, never "
        "measured.</p>");
}

} // namespace slicescope::gui
