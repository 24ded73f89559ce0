// How the CLI process ends once CUDA has run in it. The driver releases a process's GPU context
// as the process ends, after its last instruction and before its parent sees it end: 85-110 ms
// of wall time on the H100 machine (bench/probes/cuda_lifetime_probe.sh), that the user waits
// for with nothing left to do. A release helper takes those last references instead: the
// process ends as soon as its output is out, and the driver's release follows in the helper.
#pragma once

namespace warpmatch::cli {

/// Starts a helper process that shares this process's address space and file table (clone with
/// CLONE_VM | CLONE_FILES), does nothing, and ends once this whole process has ended. What the
/// process held (the GPU context's files and mappings among it) is then released when the helper
/// ends, after this process's parent has seen it end. Returns the helper's pid, or -1 when none
/// could be started (the release then happens at this process's end, as without it).
int start_release_helper();

/// Ends the process with `status` now, all output flushed (a write error is no longer
/// reported). Where CUDA started in the process, a release helper takes its teardown unless
/// the environment says WARPMATCH_GPU_RELEASE=inline (the process then ends holding it, as it
/// did before: for a script that starts another GPU job the instant this one ends and needs the
/// card's memory free by then). Standard input, output and error are closed first, so a reader
/// of our output sees its end with the process's.
[[noreturn]] void end_process_after_cuda(int status);

}  // namespace warpmatch::cli
