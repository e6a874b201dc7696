/*===- CudaCalibrate.h - Measuring the GPU through Tide's runtime --*- C
-*-===*\
|*                                                                            *|
|* Part of the Tide project.                                                  *|
|*                                                                            *|
|* What tide-calibrate asks libTideCudaRuntime.so (found and opened at run    *|
|* time, like the driver): the rates of the GPU the runtime drives (cuda:0),  *|
|* measured through the runtime's own paths, so that the figures are those   *|
|* compiled code sees: GEMM through the runtime's cuBLAS calls, kernel        *|
|* launches through mgpuModuleGetFunction + mgpuLaunchKernel, host copies     *|
|* through mgpuMemcpy (pinned sources by DMA, pageable ones through the       *|
|* staging ring). Never exits the process: failures come back as messages.    *|
\*===----------------------------------------------------------------------===*/

#ifndef TIDE_RUNTIME_CUDACALIBRATE_H
#define TIDE_RUNTIME_CUDACALIBRATE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The name tide-calibrate looks the entry point up by. */
#define TIDE_RT_CALIBRATE_GPU "tide_rt_calibrate_gpu"

/* The GEMM dtypes measured, in this order. */
enum {
  TIDE_CALIBRATE_F16,
  TIDE_CALIBRATE_BF16,
  TIDE_CALIBRATE_F32,
  TIDE_CALIBRATE_F64,
  TIDE_CALIBRATE_NUM_GEMM
};

typedef struct {
  /* Tiny sizes and few repetitions (tests): the figures mean nothing. */
  int32_t quick;
  /* Called before each step with what it measures ("GEMM f32 8192^3"). */
  void (*progress)(const char *step, void *user);
  void *user;
} TideGpuCalibrateOptions;

typedef struct {
  /* GEMM rate per dtype (TIDE_CALIBRATE_*), FLOP/s; 0 = not measured. */
  double gemmFlops[TIDE_CALIBRATE_NUM_GEMM];
  /* The square size each rate was measured at. */
  int64_t gemmSize[TIDE_CALIBRATE_NUM_GEMM];
  /* Device-to-device copy: bytes read plus bytes written per second. */
  double copyBandwidth;
  /* Seconds per kernel launched back to back (the function lookup and the
   * launch compiled code makes per kernel), and for one launch waited for. */
  double launchSeconds, launchWaitSeconds;
  /* Host<->device bytes per second through mgpuMemcpy. */
  double h2dPinned, h2dPageable, d2hPinned, d2hPageable;
  /* Seconds of a small copy (4 KiB from or to pageable memory, both ways,
   * median). */
  double copyLatency;
  /* Seconds a pageable copy large enough for the staging threads (1 MiB,
   * both ways, median) takes beyond copyLatency and its bytes at the
   * pageable rate: handing it to the threads and waking them. */
  double stagedLatency;
  /* Bytes of the host copies and of the device copy measured. */
  int64_t hostCopyBytes, deviceCopyBytes;
  /* What was not measured and why, one line each ("" when all was). */
  char notes[1024];
} TideGpuCalibration;

/* Measures cuda:0. Returns 1 with `out` filled (parts that failed have 0
 * and a line in `out->notes`), or 0 when no GPU can be used, with the
 * reason in `error` ("no NVIDIA driver (libcuda.so.1) on this machine, ...").
 */
int tide_rt_calibrate_gpu(const TideGpuCalibrateOptions *options,
                          TideGpuCalibration *out, char *error,
                          size_t errorSize);

typedef int (*TideCalibrateGpuFn)(const TideGpuCalibrateOptions *,
                                  TideGpuCalibration *, char *, size_t);

#ifdef __cplusplus
}
#endif

#endif /* TIDE_RUNTIME_CUDACALIBRATE_H */
