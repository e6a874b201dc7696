/*===- Tide.h - C API for embedding Tide ---------------------------*- C -*-===*\
|*                                                                            *|
|* Part of the Tide project.                                                  *|
|*                                                                            *|
|* Registration of the tide dialect and passes, and the placement pipeline on *|
|* an MlirModule, for compilers written against MLIR's C API. Every function  *|
|* reports failure through its result (and a callback for messages); none     *|
|* aborts the host process.                                                   *|
\*===----------------------------------------------------------------------===*/

#ifndef TIDE_C_TIDE_H
#define TIDE_C_TIDE_H

#include "mlir-c/IR.h"
#include "mlir-c/RegisterEverything.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The tide dialect: mlirGetDialectHandle__tide__(). */
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Tide, tide);

/** Inserts the tide dialect and the upstream dialects Tide's passes create. */
MLIR_CAPI_EXPORTED void tideRegisterAllDialects(MlirDialectRegistry registry);

/** Registers Tide's passes and pipelines (`tide-place-pipeline`, ...) with
 *  MLIR's global registry, so textual pipelines can name them. */
MLIR_CAPI_EXPORTED void tideRegisterAllPasses(void);

/** Runs `tide-place-pipeline` on `module` with `options` in the pipeline's
 *  option syntax, e.g. "target=h200 policy=cost". Every diagnostic (remarks,
 *  warnings, errors) is passed to `onDiagnostic` (may be NULL) as one line
 *  "severity: location: message". Returns failure for bad options, a bad
 *  target, policy violations, or a module without the tide dialect loaded. */
MLIR_CAPI_EXPORTED MlirLogicalResult tideRunPlacementPipeline(
    MlirModule module, MlirStringRef options, MlirStringCallback onDiagnostic,
    void *userData);

/** The device of a placed op ("cpu", "cuda:0"), or an empty string. The
 *  returned string lives as long as the context. */
MLIR_CAPI_EXPORTED MlirStringRef tideGetOpDevice(MlirOperation op);

/** The placement reason of an op, or an empty string. Lives as long as the
 *  context. */
MLIR_CAPI_EXPORTED MlirStringRef tideGetOpReason(MlirOperation op);

/** Imports the ONNX model at `path` into a new module of `context` (which
 *  must have the tide dialect registered; see tideRegisterAllDialects).
 *  `options` is a space-separated list of `bind-shape=NAME=1x3x224x224`,
 *  `bind-input=NAME=FILE` (.npy or .pb) and `function-name=NAME`. Every
 *  diagnostic is passed to `onDiagnostic` (may be NULL) as one line
 *  "error: model.onnx: node 'fc1' (Gemm): message". Returns a null module
 *  (check with mlirModuleIsNull) on failure; the caller owns the module
 *  (mlirModuleDestroy). */
MLIR_CAPI_EXPORTED MlirModule tideImportONNXFile(
    MlirContext context, MlirStringRef path, MlirStringRef options,
    MlirStringCallback onDiagnostic, void *userData);

#ifdef __cplusplus
}
#endif

#endif /* TIDE_C_TIDE_H */
