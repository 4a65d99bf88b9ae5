// Running one op on CPU for device arguments, with their aliasing intact.
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>

namespace torch_fl {

// Replaces ATen's at::native::cpu_fallback, which copies each tensor argument to
// CPU on its own: a view written in place lost its strides on the way back, an
// expanded tensor could not be written back at all, and two arguments that share
// memory stopped sharing it. Here:
//  - an argument that shares its storage with another argument, or whose own
//    elements overlap, becomes a view of one CPU copy of the bytes its storage
//    group spans, with its own sizes, strides, offset and conjugate/negative
//    bits, so the CPU kernel sees the same aliasing (and raises where CPU does);
//    a written one goes back alone: its elements, or its own bytes where they
//    overlap (never the span's other bytes, which another thread may be writing);
//  - any other argument is copied densely, and written back (if the op writes
//    it) into the caller's tensor, whose sizes and strides are kept unless the
//    op resized it (then it takes the CPU result's); a sparse one is rewritten
//    into its own indices and values where their shapes held;
//  - results that alias a written argument are the caller's tensors; others are
//    moved to the arguments' device.
// View ops are refused by the caller (their result would be a copy).
void run_on_cpu(const c10::OperatorHandle& op, torch::jit::Stack* stack);

}  // namespace torch_fl
