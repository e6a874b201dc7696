/*===- Compile.h - C API for compiling Tide programs ---------------*- C
-*-===*\
|*                                                                            *|
|* Part of the Tide project.                                                  *|
|*                                                                            *|
|* tide-compile as a function: MLIR text, a .mlir file or an .onnx model to a *|
|* shared library, with every diagnostic and the placement report handed to  *|
|* the caller. Plain C types only, so a caller needs no MLIR headers         *|
|* (libTideCompilerCAPI.so links LLVM and MLIR). Nothing aborts the host     *|
|* process: failures are diagnostics.                                        *|
\*===----------------------------------------------------------------------===*/

#ifndef TIDE_C_COMPILE_H
#define TIDE_C_COMPILE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TIDE_COMPILER_EXPORTED __attribute__((visibility("default")))

/** One diagnostic. Strings are valid during the callback only. */
typedef struct {
  const char *severity;  /**< "error", "warning", "remark" or "note" */
  const char *file;      /**< "" where the location names no file */
  unsigned line, column; /**< 0 where unknown */
  /** The location as a person reads it: "model.mlir:3:8", or
   *  "model.onnx: node 'fc1' (Gemm)" for imported ONNX nodes. */
  const char *location;
  const char *message;
} TideDiagnostic;

typedef void (*TideDiagnosticCallback)(const TideDiagnostic *diagnostic,
                                       void *userData);
/** Receives the placement report in `format` ("text", "json" or "dot"). */
typedef void (*TideReportCallback)(const char *format, const char *text,
                                   size_t length, void *userData);

/** Compiles `source` into the shared library `outputPath` (the module ABI
 *  of tide-compile: load it with tideRunnerLoad or tide-run).
 *
 *  `source` is MLIR text named `sourceName` in diagnostics (sourceIsPath 0),
 *  or the path of a .mlir file or an .onnx model (sourceIsPath 1).
 *  Options are name/value pairs, as tide-compile's flags:
 *    target (built-in name or JSON file), policy (soft, strict, require-gpu,
 *    cost), cpu (native, x86-64-v3, ...), opt-level (0..3), cpu-fallback
 *    (true/false), remarks (true/false), cuda-toolkit (dir), gpu-chip
 *    (sm_90), runtime-dir (the folder of libTideCpuRuntime.a and
 *    libTideCudaRuntime.so; default: next to this library),
 *    bind-shape (NAME=DIMS) and bind-input (NAME=FILE), repeatable, for ONNX.
 *  Every diagnostic goes to `onDiagnostic`, and the placement report, in
 *  each format, to `onReport` (both may be null). Returns 1 on success. */
TIDE_COMPILER_EXPORTED int
tideCompileToLibrary(const char *source, size_t sourceLength, int sourceIsPath,
                     const char *sourceName, const char *const *optionNames,
                     const char *const *optionValues, size_t numOptions,
                     const char *outputPath,
                     TideDiagnosticCallback onDiagnostic,
                     TideReportCallback onReport, void *userData);

#ifdef __cplusplus
}
#endif

#endif /* TIDE_C_COMPILE_H */
