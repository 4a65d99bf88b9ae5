// Draining every queue at process exit, before the compiler's statics go.
//
// PoCL compiles a kernel for its launch size lazily, on its own worker thread,
// when the launch first runs. A process that exits with such a launch queued
// must finish its queues before LLVM's and clang's static objects are
// destroyed, or the compiler crashes on that thread (a segfault after the
// program's last line, seen with a cold program cache).
//
// atexit handlers run in the reverse order of their registration, and LLVM
// creates many of its statics lazily, at the first compile that needs them: a
// handler registered once, at the first stream, runs after their destructors,
// and a compile still running when exit() begins can meet them destroyed. So a
// launch that may compile (a kernel's first in the process; each kernel has one
// work-group size, so one compile) runs synchronously, and the drain is
// registered again after it: the statics it needed exist by then, and the drain
// runs before their destructors. It does its work once.
#pragma once

#include <CL/cl.h>

namespace torch_fl::ocl {

// Queues to finish at exit (streams add theirs when made and remove them when destroyed).
void drain_at_exit(cl_command_queue queue);
void forget_at_exit(cl_command_queue queue);

// Waits for `event`, a launch that may compile (a new program's first, a new
// kind of CLBlast call), then registers the drain again. The launch's own
// failure is left for the stream to report.
void finish_compiling_launch(cl_event event);

}  // namespace torch_fl::ocl
