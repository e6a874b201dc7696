/*===- Calibrate.h - C API for measuring this machine --------------*- C
-*-===*\
|*                                                                            *|
|* Part of the Tide project.                                                  *|
|*                                                                            *|
|* tide-calibrate as a function (libTideRunnerCAPI.so: no LLVM or MLIR): the  *|
|* CPU and the GPU Tide's runtime drives are measured and described as a     *|
|* target file for the placement cost model (see tide/Calibrate/Calibrate.h, *|
|* docs/placement.md). Reports failure through its result; never aborts.     *|
\*===----------------------------------------------------------------------===*/

#ifndef TIDE_C_CALIBRATE_H
#define TIDE_C_CALIBRATE_H

#include "tide-c/Runner.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int32_t quick;      /**< tiny sizes, for tests (the figures mean nothing) */
  const char *output; /**< a target file to write, or null */
  int32_t saveNative; /**< also save it as this machine's native target */
  /** Called before each step (may be null). */
  void (*progress)(const char *step, int32_t index, int32_t total,
                   void *userData);
  /** Called with each note: what is not measured and why (may be null). */
  void (*note)(const char *note, void *userData);
  void *userData;
} TideCalibrateOptions;

/** Measures this machine. Returns 1 with the target file's text in
 *  `*targetJson` and, when it was saved, the native target's path in
 *  `*nativePath` (null otherwise); or 0 with the reason in `*error`. Free
 *  the strings with tideFreeString. A machine without a GPU is no error: its
 *  target describes the CPU, and a note says why. */
TIDE_RUNNER_EXPORTED int tideCalibrate(const TideCalibrateOptions *options,
                                       char **targetJson, char **nativePath,
                                       char **error);

#ifdef __cplusplus
}
#endif

#endif /* TIDE_C_CALIBRATE_H */
