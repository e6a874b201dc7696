//===- PassPlugin.cpp - Tide's passes for stock mlir-opt -----------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
//   mlir-opt-22 --load-dialect-plugin=lib/TideDialectPlugin.so \
//               --load-pass-plugin=lib/TidePassPlugin.so \
//       --pass-pipeline="builtin.module(tide-place-pipeline{target=h200})" \
//       file.mlir
//
// (mlir-opt parses its command line before plugins load, so plugin passes
// are named in --pass-pipeline rather than as --tide-... flags.)
//
//===----------------------------------------------------------------------===//

#include "tide/InitAll.h"

#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "TidePasses", LLVM_VERSION_STRING,
          []() { mlir::tide::registerTidePasses(); }};
}
