//===- DialectPlugin.cpp - The tide dialect for stock mlir-opt -----------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
//   mlir-opt-22 --load-dialect-plugin=lib/TideDialectPlugin.so file.mlir
//
//===----------------------------------------------------------------------===//

#include "tide/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "llvm/Config/llvm-config.h"

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Tide", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            mlir::tide::registerAllDialects(*registry);
            mlir::tide::registerAllExtensions(*registry);
          }};
}
