#include "slicescope/core/dim3.h"

namespace slicescope {

std::string toString(const Dim3& d) {
    return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

} // namespace slicescope
