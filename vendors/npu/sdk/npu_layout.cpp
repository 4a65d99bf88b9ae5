// The NC1HWC0 layout (N, C1, H, W, C0 = 16: channels in blocks of 16, the last
// zero-padded) the convolution unit reads, its conversions, and copies.
#include "npu_ops_internal.h"

using namespace npu_ops;

namespace npu_ops {

// NC1HWC0 (N, C1, H, W, C0) → a channels-last (N, C1 * C0, H, W) tensor, the
// channels padded (one copy; none when C1 is 1). The convolution unit's view of
// its operands: ATen's CPU convolutions run channels-last faster than NCHW, as
// a chip's blocked-layout unit runs faster than on a dense layout.
at::Tensor unblock(const at::Tensor& blocked) {
  const int64_t n = blocked.size(0), c1 = blocked.size(1), h = blocked.size(2), w = blocked.size(3);
  return blocked.permute({0, 2, 3, 1, 4}).reshape({n, h, w, c1 * blocked.size(4)}).permute({0, 3, 1, 2});
}

// NC1HWC0 → a contiguous NCHW tensor, the channels padded (one copy). The
// convolution's backward computes in NCHW, as CPU code's does: its float16
// gradients then round as CPU's (channels-last kernels order the sums otherwise).
at::Tensor unblock_nchw(const at::Tensor& blocked) {
  return blocked.permute({0, 1, 4, 2, 3}).reshape(
      {blocked.size(0), blocked.size(1) * blocked.size(4), blocked.size(2), blocked.size(3)});
}

// NCHW → NC1HWC0 into `blocked`, in one pass: full channel blocks, then the
// last partial block with its padding zeroed.
void block_into(at::Tensor blocked, const at::Tensor& nchw) {
  const int64_t channels = nchw.size(1), c0 = blocked.size(4), full = channels / c0, rest = channels % c0;
  const auto as_blocks = [&](const at::Tensor& t, int64_t blocks) {  // (N, blocks*C0, H, W) → (N, blocks, H, W, C0)
    return t.unflatten(1, {blocks, c0}).permute({0, 1, 3, 4, 2});
  };
  if (full > 0) blocked.narrow(1, 0, full).copy_(as_blocks(nchw.narrow(1, 0, full * c0), full));
  if (rest > 0) {
    at::Tensor last = blocked.select(1, full);  // (N, H, W, C0)
    last.narrow(-1, 0, rest).copy_(nchw.narrow(1, full * c0, rest).permute({0, 2, 3, 1}));
    last.narrow(-1, rest, c0 - rest).zero_();
  }
}

// NC1HWC0 → NCHW into `nchw` (its channel count, without the padding), in one pass.
void unblock_into(at::Tensor nchw, const at::Tensor& blocked) {
  const int64_t channels = nchw.size(1), c0 = blocked.size(4), full = channels / c0, rest = channels % c0;
  if (full > 0) {
    nchw.narrow(1, 0, full * c0).unflatten(1, {full, c0}).copy_(blocked.narrow(1, 0, full).permute({0, 1, 4, 2, 3}));
  }
  if (rest > 0) {
    nchw.narrow(1, full * c0, rest).copy_(blocked.select(1, full).narrow(-1, 0, rest).permute({0, 3, 1, 2}));
  }
}

// An NC1HWC0 tensor (N, C1, H, W, C0) is, in memory, a channels-last tensor of
// (N * C1, C0, H, W): per-plane kernels (pooling) run on it as they are.
at::Tensor planes(const at::Tensor& blocked) {
  const int64_t h = blocked.size(2), w = blocked.size(3), c0 = blocked.size(4);
  return blocked.as_strided({blocked.size(0) * blocked.size(1), c0, h, w}, {h * w * c0, 1, w * c0, c0},
                            blocked.storage_offset());
}

}  // namespace npu_ops

extern "C" {

// ---- layout and copies ----------------------------------------------------

npuError npunnTransDataGetWorkspaceSize(const npuTensor* src, npuTensor* dst, NPUNN_QUERY_ARGS) {
  const char* op = "npunnTransData";
  const bool to_blocked = src && dst && src->rank == 4 && src->format == NPU_FORMAT_ND && dst->rank == 5 &&
                          dst->format == NPU_FORMAT_NC1HWC0;
  const bool from_blocked = src && dst && src->rank == 5 && src->format == NPU_FORMAT_NC1HWC0 && dst->rank == 4 &&
                            dst->format == NPU_FORMAT_ND;
  const npuTensor* nchw = to_blocked ? src : dst;
  const npuTensor* blocked = to_blocked ? dst : src;
  if (!(to_blocked || from_blocked) || blocked->dim_sizes[4] != NPU_C0 ||
      blocked->dim_sizes[1] != (nchw->dim_sizes[1] + NPU_C0 - 1) / NPU_C0 || src->dtype != dst->dtype ||
      blocked->dim_sizes[0] != nchw->dim_sizes[0] || blocked->dim_sizes[2] != nchw->dim_sizes[2] ||
      blocked->dim_sizes[3] != nchw->dim_sizes[3]) {
    return fail(NPU_ERROR_INVALID_PARAM, std::string(op) + ": converts a 4-D ND tensor (N, C, H, W) to or from a "
                                                            "5-D NC1HWC0 tensor (N, ceil(C/16), H, W, 16) of its dtype");
  }
  return prepare(op, {src, dst}, [s = desc(src), d = desc(dst), to_blocked] {
    if (to_blocked) {
      block_into(view(d), view(s));
    } else {
      unblock_into(view(d), view(s));
    }
  }, workspace_size, executor);
}
NPUNN_RUN(TransData)

npuError npunnInplaceCopyGetWorkspaceSize(npuTensor* dst, const npuTensor* src, NPUNN_QUERY_ARGS) {
  // The copy engine moves any dtype, float64 included: only arithmetic lacks it.
  const char* op = "npunnInplaceCopy";
  if (!dst || !src) return fail(NPU_ERROR_INVALID_PARAM, std::string(op) + ": null tensor");
  for (const npuTensor* t : std::initializer_list<const npuTensor*>{dst, src}) {
    if (numel(*t) == 0) continue;
    const std::string where = alu::residency_error(npu_sim::chip(), base_of(*t), aten_dtype(t->dtype), t->dims(), t->strides());
    if (!where.empty()) return fail(NPU_ERROR_INVALID_ADDRESS, std::string(op) + ": " + where);
  }
  return prepare(op, {}, [d = desc(dst), s = desc(src)] { view(d).copy_(view(s)); }, workspace_size, executor);
}
NPUNN_RUN(InplaceCopy)

}  // extern "C"
