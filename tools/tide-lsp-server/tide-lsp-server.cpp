//===- tide-lsp-server.cpp - MLIR's language server with Tide's dialects --===//
//
// Part of the Tide project.
//
// Editors run it for .mlir files: diagnostics (the tide dialect's verifiers),
// hover, go-to-definition, references and document symbols, as
// mlir-lsp-server gives for upstream dialects.
//
//===----------------------------------------------------------------------===//

#include "tide/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-lsp-server/MlirLspServerMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::tide::registerAllDialects(registry);
  mlir::tide::registerAllExtensions(registry);
  return mlir::failed(mlir::MlirLspServerMain(argc, argv, registry));
}
