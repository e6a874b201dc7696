//===- onnx.cpp - libFuzzer target: the ONNX importer ---------------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// Any byte string given to tide-import-onnx (or tide-compile, or the C API)
// as a model must be imported into a module that verifies, or refused with
// an error: never a crash, a hang, a sanitizer report, a refusal without a
// message, or a module that does not verify. The model is named
// /nonexistent/fuzz.onnx, so external data files cannot be found.
//
//===----------------------------------------------------------------------===//

#include "tide/Frontend/ONNX/ImportONNX.h"
#include "tide/InitAll.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <cstdint>

// Tide's sources are instrumented, MLIR's library is not: LLVM's allocator
// templates inlined into Tide's code poison the unused part of a slab that
// MLIR's own (uninstrumented) copies then hand out without unpoisoning, which
// ASan would report as use-after-poison. Manual poisoning is off; ASan's own
// checks (heap, stack, use-after-free) stay on.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const mlir::DialectRegistry *registry = [] {
    auto *r = new mlir::DialectRegistry();
    mlir::tide::registerAllDialects(*r);
    return r;
  }();
  // A fresh context per input: nothing one input interns or allocates
  // stays for the next.
  mlir::MLIRContext context(*registry, mlir::MLIRContext::Threading::DISABLED);
  bool reported = false;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    if (d.getSeverity() == mlir::DiagnosticSeverity::Error)
      reported = true;
    return mlir::success();
  });
  mlir::tide::ONNXImportOptions options;
  auto module = mlir::tide::importONNXModel(
      llvm::StringRef(reinterpret_cast<const char *>(data), size),
      "/nonexistent/fuzz.onnx", &context, options);
  if (!module) {
    if (!reported)
      __builtin_trap(); // a refusal must say why
    return 0;
  }
  if (mlir::failed(mlir::verify(*module)))
    __builtin_trap(); // an imported module must verify
  return 0;
}
