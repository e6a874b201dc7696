/*===- main.c - Tide through its C API -------------------------------------===*\
|* Parses a module, runs the placement pipeline through the C API, prints    *|
|* each op's device and reason, and shows that misuse returns errors.        *|
\*===----------------------------------------------------------------------===*/

#include "tide-c/Tide.h"

#include <stdio.h>
#include <string.h>

static void printLine(MlirStringRef s, void *user) {
  (void)user;
  fprintf(stdout, "%.*s\n", (int)s.length, s.data);
}

static const char *kModule =
    "func.func @exp(%x: tensor<230400xf64>) -> tensor<230400xf64> {\n"
    "  %y = tide.exp %x : tensor<230400xf64>\n"
    "  return %y : tensor<230400xf64>\n"
    "}\n";

static void printOp(MlirOperation op, void *user) {
  (void)user;
  MlirStringRef device = tideGetOpDevice(op);
  if (device.length == 0)
    return;
  MlirIdentifier name = mlirOperationGetName(op);
  MlirStringRef n = mlirIdentifierStr(name);
  MlirStringRef reason = tideGetOpReason(op);
  printf("%.*s -> %.*s (%.*s)\n", (int)n.length, n.data, (int)device.length,
         device.data, (int)reason.length, reason.data);
}

static void walk(MlirOperation op) {
  printOp(op, NULL);
  for (intptr_t r = 0; r < mlirOperationGetNumRegions(op); ++r) {
    MlirRegion region = mlirOperationGetRegion(op, r);
    for (MlirBlock block = mlirRegionGetFirstBlock(region);
         !mlirBlockIsNull(block); block = mlirBlockGetNextInRegion(block))
      for (MlirOperation child = mlirBlockGetFirstOperation(block);
           !mlirOperationIsNull(child); child = mlirOperationGetNextInBlock(child))
        walk(child);
  }
}

int main(int argc, char **argv) {
  int failures = 0;
  /* Misuse 1: a context without the tide dialect. */
  MlirContext bare = mlirContextCreate();
  mlirContextSetAllowUnregisteredDialects(bare, 1);
  MlirModule unregistered = mlirModuleCreateParse(
      bare, mlirStringRefCreateFromCString(
                "%c = \"tide.constant\"() {value = dense<1.0> : tensor<4xf32>}"
                " : () -> tensor<4xf32>\n"));
  if (!mlirModuleIsNull(unregistered)) {
    MlirLogicalResult r = tideRunPlacementPipeline(
        unregistered, mlirStringRefCreateFromCString("target=h200"), printLine, NULL);
    printf("unregistered dialect: %s\n", mlirLogicalResultIsFailure(r) ? "failure" : "success");
    failures += mlirLogicalResultIsSuccess(r);
    mlirModuleDestroy(unregistered);
  }
  mlirContextDestroy(bare);

  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  tideRegisterAllDialects(registry);
  MlirContext ctx = mlirContextCreateWithRegistry(registry, false);
  mlirDialectRegistryDestroy(registry);
  tideRegisterAllPasses();

  MlirModule module = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kModule));
  if (mlirModuleIsNull(module)) {
    fprintf(stderr, "parse failed\n");
    return 1;
  }
  /* Misuse 2 and 3: bad options, invalid target. */
  MlirLogicalResult bad = tideRunPlacementPipeline(
      module, mlirStringRefCreateFromCString("polcy=soft"), printLine, NULL);
  printf("bad options: %s\n", mlirLogicalResultIsFailure(bad) ? "failure" : "success");
  failures += mlirLogicalResultIsSuccess(bad);
  bad = tideRunPlacementPipeline(
      module, mlirStringRefCreateFromCString("policy=fast"), printLine, NULL);
  printf("bad policy: %s\n",
         mlirLogicalResultIsFailure(bad) ? "failure" : "success");
  failures += mlirLogicalResultIsSuccess(bad);
  bad = tideRunPlacementPipeline(
      module, mlirStringRefCreateFromCString("target=nosuch"), printLine, NULL);
  printf("bad target: %s\n", mlirLogicalResultIsFailure(bad) ? "failure" : "success");
  failures += mlirLogicalResultIsSuccess(bad);

  MlirLogicalResult ok = tideRunPlacementPipeline(
      module, mlirStringRefCreateFromCString("target=theano-0.7 policy=soft"), printLine, NULL);
  printf("placement: %s\n", mlirLogicalResultIsSuccess(ok) ? "success" : "failure");
  failures += mlirLogicalResultIsFailure(ok);
  walk(mlirModuleGetOperation(module));
  mlirModuleDestroy(module);

  /* An ONNX model (argv[1]), imported and placed; then a missing file and a
   * bad import option, which fail with a message. */
  if (argc > 1) {
    MlirModule onnx =
        tideImportONNXFile(ctx, mlirStringRefCreateFromCString(argv[1]),
                           mlirStringRefCreateFromCString(""), printLine, NULL);
    printf("onnx import: %s\n", mlirModuleIsNull(onnx) ? "failure" : "success");
    failures += mlirModuleIsNull(onnx);
    if (!mlirModuleIsNull(onnx)) {
      ok = tideRunPlacementPipeline(
          onnx, mlirStringRefCreateFromCString("target=h200"), printLine, NULL);
      failures += mlirLogicalResultIsFailure(ok);
      walk(mlirModuleGetOperation(onnx));
      mlirModuleDestroy(onnx);
    }
    MlirModule missing = tideImportONNXFile(
        ctx, mlirStringRefCreateFromCString("/nonexistent/model.onnx"),
        mlirStringRefCreateFromCString(""), printLine, NULL);
    printf("missing model: %s\n",
           mlirModuleIsNull(missing) ? "failure" : "success");
    failures += !mlirModuleIsNull(missing);
    MlirModule badOption = tideImportONNXFile(
        ctx, mlirStringRefCreateFromCString(argv[1]),
        mlirStringRefCreateFromCString("bind-shap=x=1"), printLine, NULL);
    printf("bad import option: %s\n",
           mlirModuleIsNull(badOption) ? "failure" : "success");
    failures += !mlirModuleIsNull(badOption);
  }
  mlirContextDestroy(ctx);
  return failures;
}
