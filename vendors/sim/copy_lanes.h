// Large copies split over the chip's copy lanes, as a DMA engine with several channels.
//
// One memcpy(3) on one thread reaches about half of this host's copy bandwidth;
// torch's own host copy splits over every core. A copy of at least kSplitBytes is
// cut into one piece per lane: the calling thread (a queue's worker, or the host for
// staging) copies pieces itself while helper threads take the others, and returns
// when every piece is done. Copies from several queues share the lanes; a caller
// never waits on a piece that nobody has started, because it runs unstarted pieces
// of its own copy itself. There is one lane per core this process may run on (its
// affinity, at most 8); a helper thread the system refuses leaves fewer. After fork()
// the child, which has no helpers, copies with one memcpy.
#pragma once

#include <cstddef>

namespace torch_fl::sim {

// Below this, one memcpy beats handing pieces to other threads.
constexpr size_t kSplitBytes = size_t{1} << 20;

// memcpy(dst, src, bytes), over every lane when bytes >= kSplitBytes.
void copy_over_lanes(void* dst, const void* src, size_t bytes);

}  // namespace torch_fl::sim
