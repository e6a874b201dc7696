//===- InitAll.cpp - Register everything Tide provides -------------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/InitAll.h"

#include "tide/Conversion/Passes.h"
#include "tide/IR/TideDialect.h"
#include "tide/Lowering/Passes.h"
#include "tide/Pipelines/Pipelines.h"
#include "tide/Placement/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

using namespace mlir;

void mlir::tide::registerAllDialects(DialectRegistry &registry) {
  registry.insert<tide::TideDialect>();
  // Tide's lowerings produce linalg, tensor, bufferization, memref, scf, cf,
  // vector, math, arith, func, gpu, nvvm and llvm: register them all.
  mlir::registerAllDialects(registry);
}

void mlir::tide::registerAllExtensions(DialectRegistry &registry) {
  // Bufferization models, inliner and convert-to-LLVM interfaces, and the
  // LLVM IR translations the compiler drivers need.
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
}

void mlir::tide::registerTidePasses() {
  registerTidePlacementPasses();
  registerTideConversionPasses();
  registerTideLoweringPasses();
  registerPipelines();
}

void mlir::tide::registerAllPasses() {
  registerTidePasses();
  mlir::registerAllPasses();
}
