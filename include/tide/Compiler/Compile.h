//===- Compile.h - From placed tide IR to a shared library ------*- C++ -*-===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// The steps behind tide-compile, usable from C++: place, lower to the LLVM
// dialect, translate to LLVM IR, optimize and emit an object for the host,
// link a shared library, and write a C header for embedding. The library
// needs only the C library at run time (no LLVM or MLIR).
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_COMPILER_COMPILE_H
#define TIDE_COMPILER_COMPILE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace mlir::tide {

struct CompileOptions {
  /// Placement target and policy (see tide-place-devices).
  std::string target = "cpu";
  std::string policy = "soft";
  /// Host CPU to generate code for: "native" (this machine) or an LLVM CPU
  /// name such as "x86-64-v3".
  std::string cpu = "native";
  /// LLVM optimization level 0..3.
  unsigned optLevel = 3;
  /// Let the loop vectorizer call glibc's libmvec for exp, log, sin, ...
  bool vectorMath = true;
  /// Print placement remarks.
  bool remarks = true;
  /// Tide's host runtime archive (libTideCpuRuntime.a), linked into modules
  /// that call it; empty: <dir of this executable>/../lib/.
  std::string runtimeLibrary;
};

/// Runs placement and the CPU pipeline: `module` ends in the LLVM dialect.
/// Diagnostics go to the context's handler.
LogicalResult lowerToLLVMDialect(ModuleOp module, const CompileOptions &options);

/// The text of `tide_module_metadata` in a lowered module ("" if absent).
std::string getModuleMetadata(ModuleOp module);

/// A C header declaring the module's functions (from the metadata).
std::string generateHeader(llvm::StringRef metadata, llvm::StringRef guard);

/// Translates, optimizes and writes an object file; then links `outputPath`
/// as a shared library with the system's C compiler driver. On failure
/// returns the reason in `error`.
LogicalResult emitSharedLibrary(ModuleOp module, const CompileOptions &options,
                                llvm::StringRef outputPath, std::string &error);

} // namespace mlir::tide

#endif // TIDE_COMPILER_COMPILE_H
