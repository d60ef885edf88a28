#pragma once

// Include QCustomPlot through this header. qcustomplot.h spells two (uninstantiated) templates
// with Qt's foreach keyword, which QT_NO_FOREACH (set for all our Qt code) removes; give them a
// range-for spelling while the header is read, and nothing else.
#ifndef foreach
#define SLICESCOPE_QCP_FOREACH
#define foreach(variable, container) for (variable : container)
#endif
#include <qcustomplot.h>
#ifdef SLICESCOPE_QCP_FOREACH
#undef foreach
#undef SLICESCOPE_QCP_FOREACH
#endif
