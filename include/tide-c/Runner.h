/*===- Runner.h - C API for loading and calling compiled modules ---*- C
-*-===*\
|*                                                                            *|
|* Part of the Tide project.                                                  *|
|*                                                                            *|
|* Loads a module compiled by tide-compile (a shared library that describes   *|
|* itself), reads its signature, checks inputs and calls its functions, with  *|
|* the same checks and messages as tide-run. Plain C types only: it needs no  *|
|* LLVM or MLIR (libTideRunnerCAPI.so links only the C and C++ libraries and  *|
|* libdl), so it runs where the compiler is not installed. Every function     *|
|* reports failure through its result and a message; none aborts.             *|
\*===----------------------------------------------------------------------===*/

#ifndef TIDE_C_RUNNER_H
#define TIDE_C_RUNNER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TIDE_RUNNER_EXPORTED __attribute__((visibility("default")))

/** A loaded module. */
typedef struct TideRunnerModule TideRunnerModule;

/** Where a tensor lives; the values are DLPack's device types. */
typedef enum { TIDE_DEVICE_CPU = 1, TIDE_DEVICE_CUDA = 2 } TideDeviceKind;

/** An argument or result as the module declares it. */
typedef struct {
  const char *dtype; /**< Tide element type: "f32", "bf16", "ui8", "i1" */
  int32_t rank;
  const int64_t *dims; /**< -1 for a dynamic dimension */
  const char *device;  /**< "cpu" or "cuda:N" */
  int32_t donated;     /**< 1: an argument the call may overwrite (pass only a
                            buffer the caller owns and does not need) */
} TideTensorSpec;

/** A dense row-major tensor the caller owns (passed without a copy where it
 *  already lives where the function wants it). */
typedef struct {
  void *data;
  const char *dtype; /**< Tide element type name */
  int32_t rank;
  const int64_t *shape;
  int32_t deviceKind; /**< TideDeviceKind */
  int32_t deviceId;
} TideTensor;

/** A result, dense row-major. The receiver owns `allocated`: give it back
 *  with tideRunnerFreeBuffer (after the callback returns). `data` and
 *  `shape` stay valid as long as the buffer. */
typedef struct {
  void *allocated; /**< the pointer to free */
  void *data;      /**< the first element */
  const char *dtype;
  int32_t rank;
  const int64_t *shape; /**< valid during the callback only */
  int32_t deviceKind;   /**< TideDeviceKind */
  int32_t deviceId;
} TideResult;

/** Receives result `index` of a call. */
typedef void (*TideResultCallback)(size_t index, const TideResult *result,
                                   void *userData);

/** Frees a string this API returned through an `error` argument. */
TIDE_RUNNER_EXPORTED void tideFreeString(char *string);

/** Loads the module at `path` and reads its metadata; null on failure with
 *  the reason in `*error` (free it with tideFreeString). */
TIDE_RUNNER_EXPORTED TideRunnerModule *tideRunnerLoad(const char *path,
                                                      char **error);
/** Unloads a module; results it returned must have been freed first. */
TIDE_RUNNER_EXPORTED void tideRunnerDestroy(TideRunnerModule *module);

TIDE_RUNNER_EXPORTED size_t
tideRunnerGetNumFunctions(const TideRunnerModule *module);
TIDE_RUNNER_EXPORTED const char *
tideRunnerGetFunctionName(const TideRunnerModule *module, size_t function);
TIDE_RUNNER_EXPORTED size_t tideRunnerGetNumArgs(const TideRunnerModule *module,
                                                 size_t function);
TIDE_RUNNER_EXPORTED size_t
tideRunnerGetNumResults(const TideRunnerModule *module, size_t function);
/** Argument or result `index` of `function`; the strings and dims live as
 *  long as the module. These accessors give 0, NULL or a spec whose dtype is
 *  NULL for a null module or an index out of range. */
TIDE_RUNNER_EXPORTED TideTensorSpec
tideRunnerGetArg(const TideRunnerModule *module, size_t function, size_t index);
TIDE_RUNNER_EXPORTED TideTensorSpec tideRunnerGetResult(
    const TideRunnerModule *module, size_t function, size_t index);

/** Checks `inputs` against the signature of `function` (count, dtype, rank,
 *  static sizes, device; data for every tensor with elements, sizes that fit
 *  in int64 bytes) with tide-run's messages. Returns 1 when they fit,
 *  0 with the reason in `*error` (free it with tideFreeString). */
TIDE_RUNNER_EXPORTED int tideRunnerCheck(const TideRunnerModule *module,
                                         size_t function,
                                         const TideTensor *inputs,
                                         size_t numInputs, char **error);

/** Checks `inputs` as tideRunnerCheck does, copies those that do not
 *  live where the function wants them, calls it once, waits for the GPU and
 *  passes every result to `onResult`. Returns 1 on success, 0 with the
 *  reason in `*error` (free it with tideFreeString). */
TIDE_RUNNER_EXPORTED int
tideRunnerCall(const TideRunnerModule *module, size_t function,
               const TideTensor *inputs, size_t numInputs,
               TideResultCallback onResult, void *userData, char **error);

/** Frees a result buffer (`allocated` of a TideResult). */
TIDE_RUNNER_EXPORTED void tideRunnerFreeBuffer(const TideRunnerModule *module,
                                               void *allocated,
                                               int32_t deviceKind);

/** A processor Tide can run on. */
typedef struct {
  int32_t kind;     /**< TideDeviceKind */
  int32_t index;    /**< GPU ordinal; 0 for the CPU */
  const char *name; /**< "AMD EPYC 7763", "NVIDIA H200" */
  int32_t computeCapabilityMajor, computeCapabilityMinor; /**< GPUs */
  uint64_t memoryBytes; /**< host memory or GPU memory */
  int32_t cores;        /**< CPU threads or GPU multiprocessors */
  double fp64PerFp32;   /**< GPUs: FP64:FP32 rate of the CUDA cores known
                             from the compute capability; 0 when unknown */
} TideDeviceInfo;

typedef void (*TideDeviceCallback)(const TideDeviceInfo *device,
                                   void *userData);

/** Lists the CPU and every GPU the CUDA driver shows (none without a
 *  driver). Why no GPU is listed (no driver, no device) goes to `*note`
 *  (free it with tideFreeString; null when GPUs were listed). */
TIDE_RUNNER_EXPORTED void tideListDevices(TideDeviceCallback onDevice,
                                          void *userData, char **note);

#ifdef __cplusplus
}
#endif

#endif /* TIDE_C_RUNNER_H */
