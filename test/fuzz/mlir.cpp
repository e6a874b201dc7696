//===- mlir.cpp - libFuzzer target: tide programs through the pipelines ---===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// Any MLIR text given to tide-opt or tide-compile must be parsed, verified,
// placed and lowered to LLVM IR, or refused with an error: never a crash, a
// sanitizer report or a refusal without a message. The first byte picks the
// placement target (every built-in one), the policy and single- or
// multi-threaded CPU code; the rest is the program. Programs may use the
// builtin, func and tide dialects only (the other dialects are upstream
// MLIR's, fuzzed by MLIR itself). GPU code is lowered to NVVM and PTX with
// LLVM's NVPTX backend; the CUDA toolkit is named /nonexistent, so making
// the final binary fails with a message and no external tool runs.
//
//===----------------------------------------------------------------------===//

#include "tide/Compiler/Compile.h"
#include "tide/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdint>

using namespace mlir;

// Tide's sources are instrumented, MLIR's library is not: LLVM's allocator
// templates inlined into Tide's code poison the unused part of a slab that
// MLIR's own (uninstrumented) copies then hand out without unpoisoning, which
// ASan would report as use-after-poison. Manual poisoning is off; ASan's own
// checks (heap, stack, use-after-free) stay on.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  static const DialectRegistry *registry = [] {
    auto *r = new DialectRegistry();
    tide::registerAllDialects(*r);
    tide::registerAllExtensions(*r);
    return r;
  }();
  static const char *targets[] = {"cpu", "h200", "rtx3090", "theano-0.7",
                                  "tensorflow-0.7"};
  static const tide::PlacementPolicy policies[] = {
      tide::PlacementPolicy::Soft, tide::PlacementPolicy::Strict,
      tide::PlacementPolicy::RequireGPU, tide::PlacementPolicy::Cost};
  uint8_t select = data[0];
  llvm::StringRef text(reinterpret_cast<const char *>(data + 1), size - 1);

  MLIRContext context(*registry, MLIRContext::Threading::DISABLED);
  bool reported = false;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    if (d.getSeverity() == DiagnosticSeverity::Error)
      reported = true;
    return success();
  });
  auto refused = [&] {
    if (!reported)
      __builtin_trap(); // a refusal must say why
    return 0;
  };
  ParserConfig config(&context, /*verifyAfterParse=*/false);
  // As the tools read files: a null-terminated copy (MLIR's lexer relies on
  // the terminator).
  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz"),
                             llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sources, config);
  if (!module)
    return refused();
  bool foreign = false;
  module->walk([&](Operation *op) {
    StringRef ns = op->getName().getDialectNamespace();
    if (ns != "builtin" && ns != "func" && ns != "tide")
      foreign = true;
  });
  if (foreign)
    return 0;
  if (failed(verify(*module)))
    return refused();

  tide::CompileOptions options;
  options.target = targets[select % std::size(targets)];
  options.policy = policies[(select / std::size(targets)) % 4];
  options.threads = (select & 0x80) ? 1 : 0;
  options.remarks = false;
  options.cudaToolkit = "/nonexistent";
  if (failed(tide::lowerToLLVMDialect(*module, options)))
    return refused();
  llvm::LLVMContext llvmContext;
  if (!translateModuleToLLVMIR(*module, llvmContext, "fuzz"))
    return refused();
  return 0;
}
