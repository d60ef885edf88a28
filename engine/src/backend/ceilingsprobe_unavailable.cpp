// Ceilings measurement in a build without CUDA: it says so.
#include "slicescope/backend/ceilingsprobe.h"

namespace slicescope::backend {

Result<trace::Ceilings> measureCeilings(int) {
    return fail(Error::Code::Unsupported,
                "measuring roofline ceilings needs a GPU, but this build of SliceScope has no CUDA "
                "backend");
}

} // namespace slicescope::backend
