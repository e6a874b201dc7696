//===- InitAll.cpp - Register everything Tide provides -------------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/InitAll.h"

#include "tide/IR/TideDialect.h"
#include "tide/Pipelines/Pipelines.h"
#include "tide/Placement/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::tide::registerAllDialects(DialectRegistry &registry) {
  registry.insert<tide::TideDialect, func::FuncDialect, arith::ArithDialect,
                  tensor::TensorDialect>();
}

void mlir::tide::registerAllExtensions(DialectRegistry &registry) {
  func::registerInlinerExtension(registry);
}

void mlir::tide::registerTidePasses() {
  registerTidePlacementPasses();
  registerPipelines();
}

void mlir::tide::registerAllPasses() {
  registerTidePasses();
  // Upstream cleanups that Tide's pipelines and tests use.
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerInlinerPass();
  mlir::registerSymbolDCEPass();
}
