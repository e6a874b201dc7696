//===- Pipelines.cpp - Tide's pass pipelines -----------------------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Pipelines/Pipelines.h"

#include "tide/Placement/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::tide;

void mlir::tide::buildPlacementPipeline(
    OpPassManager &pm, const PlacementPipelineOptions &options) {
  DecomposePassOptions decompose;
  decompose.target = options.target;
  decompose.mode = options.decompose;
  decompose.demoteF64 = options.demoteF64;
  pm.addPass(createDecomposePass(decompose));

  PlaceDevicesPassOptions place;
  place.target = options.target;
  place.policy = options.policy;
  place.dynamicDimSize = options.dynamicDimSize;
  place.remarks = options.remarks;
  pm.addPass(createPlaceDevicesPass(place));

  pm.addNestedPass<func::FuncOp>(createInsertTransfersPass());
  pm.addNestedPass<func::FuncOp>(createOptimizeTransfersPass());

  if (options.report != "none") {
    PlacementReportPassOptions report;
    report.target = options.target;
    report.format = options.report;
    report.output = options.reportOutput;
    report.dynamicDimSize = options.dynamicDimSize;
    pm.addPass(createPlacementReportPass(report));
  }
}

void mlir::tide::registerPipelines() {
  PassPipelineRegistration<PlacementPipelineOptions>(
      "tide-place-pipeline",
      "Decompose, place every tide op on a device, insert and optimize "
      "transfers (and optionally print a report)",
      buildPlacementPipeline);
}
