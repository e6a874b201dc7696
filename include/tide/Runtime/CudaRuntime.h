/*===- CudaRuntime.h - Tide's GPU runtime (CUDA driver API) --------*- C -*-===*\
|*                                                                            *|
|* Part of the Tide project.                                                  *|
|*                                                                            *|
|* The mgpu* symbols MLIR's gpu-to-llvm lowering calls, plus Tide's own:      *|
|* a caching device allocator, copies through pinned staging (flat bandwidth  *|
|* from pageable host memory), availability checks that say plainly when no   *|
|* GPU is present, and a profile (TIDE_PROFILE=1). The driver (libcuda.so.1)  *|
|* is loaded at first use, so a program linked with this runtime starts on a  *|
|* machine without one. No LLVM or MLIR inside.                               *|
|*                                                                            *|
|* Errors name the operation and the CUDA error, print one line on stderr    *|
|* ("tide runtime: error: ...") and exit with status 1: the mgpu* ABI has no  *|
|* way to return them.                                                        *|
\*===----------------------------------------------------------------------===*/

/* One error is recoverable: out of GPU memory inside tide_rt_guarded_call
 * returns from it with the message (tide-run, the C API and Python call
 * compiled functions that way). TIDE_GPU_MEMORY_LIMIT=BYTES caps the device
 * memory the allocator holds (in use and cached): an allocation over it fails
 * as if the GPU were out of memory (to test that path without filling it). */

#ifndef TIDE_RUNTIME_CUDARUNTIME_H
#define TIDE_RUNTIME_CUDARUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*--- The ABI of MLIR's gpu-to-llvm lowering (LLVM 22) ---------------------*/
void *mgpuModuleLoad(void *data, size_t size);
void mgpuModuleUnload(void *module);
void *mgpuModuleGetFunction(void *module, const char *name);
void *mgpuStreamCreate(void);
void mgpuStreamSynchronize(void *stream);
void mgpuStreamDestroy(void *stream);
void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t sharedMemBytes, void *stream,
                      void **params, void **extra, size_t paramsCount);
/* Device memory from the caching allocator (isHostShared is not supported:
 * Tide never asks for managed memory). */
void *mgpuMemAlloc(uint64_t bytes, void *stream, bool isHostShared);
void mgpuMemFree(void *ptr, void *stream);
/* Any direction; host memory goes through pinned staging buffers. */
void mgpuMemcpy(void *dst, void *src, size_t bytes, void *stream);

/* Waits for the work this thread queued on the GPU. A compiled function whose
 * arguments and results all live on the GPU returns as soon as its work is
 * queued (tide-async-return); call this before reading its results on
 * another stream or from the host by other means than Tide's runtime. */
void tide_rt_synchronize(void);

/* 1 when the GPU can be used; otherwise 0, after one note on stderr. Modules
 * compiled with a CPU fallback (tide-compile --cpu-fallback) ask it on every
 * call to pick their GPU or CPU version. */
int tide_rt_use_gpu(void);

/*--- Tide's own ------------------------------------------------------------*/
/* 1 when a CUDA GPU can be used; otherwise 0 and a plain reason ("no NVIDIA
 * driver (libcuda.so.1) on this machine", "no CUDA device", ...). */
int tide_rt_gpu_available(char *reason, size_t reasonSize);
/* Device memory held by the caching allocator, in bytes (in use, cached). */
void tide_rt_allocator_stats(uint64_t *inUse, uint64_t *cached);
/* Returns cached device memory to the driver. */
void tide_rt_release_cached(void);
/* Prints the profile now (it is printed at exit when TIDE_PROFILE=1). */
void tide_rt_profile_report(void);
/* Forgets what the profile recorded so far (tide-run's --repeat leaves the
 * first call, which loads kernels and libraries, out of it). */
void tide_rt_profile_reset(void);
/* Calls fn(context) and returns 1; or, when a device allocation on this
 * thread fails for lack of GPU memory during the call, frees the device
 * memory the call had allocated (on this thread) and returns 0 at once with
 * the message in `error` ("out of GPU memory: needed N bytes on cuda:0, M free
 * of T ..."). The call is abandoned where it was (a longjmp): what it had
 * queued on the GPU still runs, its host allocations are not freed, and its
 * results are not made. Later calls work as before. Outside such a call, out
 * of GPU memory is a fatal error like the others. */
int tide_rt_guarded_call(void (*fn)(void *), void *context, char *error,
                         size_t errorSize);

/* Ends the innermost tide_rt_guarded_call of this thread as out of GPU memory
 * does, with `message`: frees the device memory the call had allocated and
 * returns 0 from it. For a failure the caller detects inside the call (the
 * runner's out of host memory), so that the call's device memory is not left
 * in use. Outside a guarded call, a fatal error with `message`. */
void tide_rt_fail_guarded_call(const char *message);

/* Frees the GPU copies of the constants whose slots (see
 * tide_rt_gpu_copy_constant) lie in [begin, end): a module's own memory,
 * which the runner passes before it unloads the module. Without it, each
 * load and unload of a module with GPU constants (a model's weights) would
 * leave their copies allocated. */
void tide_rt_release_constants(const void *begin, const void *end);

#ifdef __cplusplus
}
#endif

#endif /* TIDE_RUNTIME_CUDARUNTIME_H */
