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
        "SliceScope gives four occupancy figures, two from the launch alone and two from what "
        "ran.</p>"
        "<p><b>Launch occupancy</b> (the headline) is the share of the whole GPU's warp slots one "
        "launch fills, given its grid: a launch of too few blocks leaves most SMs empty. Its "
        "limiter is <b>the grid</b> when the blocks are too few to give every SM its share, "
        "otherwise the per-SM limiter.</p>"
        "<p>The <b>per-SM limit (CUDA's theoretical occupancy)</b> is the share of one SM's warp "
        "slots a launch could keep filled, given the block size, the registers each thread needs "
        "and the shared memory each block needs. Whichever SM resource runs out first is its "
        "<b>limiter</b>: warps, block slots, registers or shared memory.</p>"
        "<p>The seed's one-worker launches 1 block of 64 threads on the H200's 132 SMs: per-SM "
        "limit 100 %, launch occupancy 0.024 %, limited by the grid (131 SMs idle).</p>"
        "<p><b>Achieved occupancy</b> is what the hardware counters saw on average (only with "
        "counters).</p>"
        "<p><b>Thread slots busy</b> is the seed's measure: threads that have work divided "
        "by all thread slots of the GPU.</p>"
        "<p>In the timeline, copies (green and orange) and kernels (blue) of each run sit in their "
        "own lanes; hatched bars are <b>modelled</b>, predicted from a device preset, never "
        "measured.</p>");
}

} // namespace slicescope::gui
