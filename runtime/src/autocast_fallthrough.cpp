// Under torch.autocast(<device>), ops that the spec's autocast policy does not
// list run unchanged on the device kernels. PyTorch registers this fallthrough
// for its own autocast keys but leaves AutocastPrivateUse1 to the backend;
// without it every unlisted op (add, relu, sum, randn, ...) raises "Could not
// run ... from the 'Autocast<device>' backend". The per-op policy lives in the
// generated autocast.cpp.
#include <torch/library.h>

TORCH_LIBRARY_IMPL(_, AutocastPrivateUse1, m) { m.fallback(torch::CppFunction::makeFallthrough()); }
