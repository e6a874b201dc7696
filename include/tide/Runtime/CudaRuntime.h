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

#ifdef __cplusplus
}
#endif

#endif /* TIDE_RUNTIME_CUDARUNTIME_H */
