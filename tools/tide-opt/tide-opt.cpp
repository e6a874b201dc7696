//===- tide-opt.cpp - Tide's optimizer driver ----------------------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::tide::registerAllDialects(registry);
  mlir::tide::registerAllExtensions(registry);
  mlir::tide::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Tide optimizer driver\n", registry));
}
