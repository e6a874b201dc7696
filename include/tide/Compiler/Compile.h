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
#include "mlir/IR/OwningOpRef.h"
#include "tide/Pipelines/Pipelines.h"
#include "mlir/Support/LLVM.h"

#include <functional>
#include <optional>
#include <string>

namespace llvm {
class Module;
} // namespace llvm

namespace mlir::tide {

struct CompileOptions {
  /// Placement target (see tide-place-devices): empty means the module's
  /// tide.target, else the default target (h200).
  std::string target;
  /// Placement policy.
  PlacementPolicy policy = PlacementPolicy::Soft;
  /// f32 matmuls and convolutions on a GPU in bf16/f16 with f32
  /// accumulation (tide-decompose's reduce-precision; reported).
  ReducedPrecision reducePrecision = ReducedPrecision::None;
  /// Host CPU to generate code for: "native" (this machine) or an LLVM CPU
  /// name such as "x86-64-v3".
  std::string cpu = "native";
  /// LLVM optimization level 0..3.
  unsigned optLevel = 3;
  /// Let the loop vectorizer call glibc's libmvec for exp, log, sin, ...
  bool vectorMath = true;
  /// Widest vectors the loop vectorizer prefers on x86: 512 uses AVX-512's
  /// 16 x f32 registers (and libmvec's AVX-512 functions) where the CPU has
  /// AVX-512F; 256 keeps LLVM's default for CPUs it tunes for 256 bits
  /// (Skylake-SP to Sapphire Rapids), which lowers their clock less.
  unsigned vectorWidth = 512;
  /// Print placement remarks.
  bool remarks = true;
  /// Tide's host runtime archive (libTideCpuRuntime.a), linked into modules
  /// that call it; empty: <dir of this executable>/../lib/.
  std::string runtimeLibrary;
  /// CUDA toolkit root for GPU code (ptxas, fatbinary, libdevice).
  std::string cudaToolkit = TIDE_DEFAULT_CUDA_ROOT;
  /// Tide's GPU runtime (libTideCudaRuntime.so), linked into modules with GPU
  /// code; empty: <dir of this executable>/../lib/.
  std::string gpuRuntimeLibrary;
  /// GPU architecture; empty: the `chip` of the target's first GPU.
  std::string gpuChip;
  /// For modules with GPU code: also compile every function for the CPU
  /// alone and pick that version at run time where no GPU can be used.
  bool cpuFallback = false;
  /// Threads of CPU code (see CpuPipelineOptions::threads): 0 = decided at
  /// run time, 1 = single-threaded code.
  int64_t threads = 0;
  /// Fewest innermost loop iterations per thread.
  int64_t grain = kDefaultParallelGrain;
  /// Reductions and their consumers by row tiles (CpuPipelineOptions).
  bool rowTiles = true;
  /// A row tile's next row read while the previous one is computed
  /// (CpuPipelineOptions::pipelineRows).
  bool pipelineRows = true;
  /// Results of 8 MiB or more that a loop writes once are written with
  /// non-temporal vector stores (CpuPipelineOptions::streamBytes).
  bool streamStores = true;
  /// CPU functions with at least this many loop nests get one function per
  /// nest (CpuPipelineOptions::outlineMinNests; 0: never).
  int64_t outlineMinNests = 256;
  /// Row groups as one GPU kernel each (GpuPipelineOptions::rowKernels).
  bool rowKernels = true;
  /// f16/bf16 attention as one fused GPU kernel
  /// (GpuPipelineOptions::attentionKernel).
  bool attentionKernel = true;
  /// Read-only GPU constants read from the runtime's device copy
  /// (GpuPipelineOptions::constantsInPlace).
  bool constantsInPlace = true;
  /// f16/bf16 GPU convolutions channels-last
  /// (GpuPipelineOptions::channelsLast).
  bool channelsLast = true;
  /// f32 CPU convolutions (oneDNN's) channels-last
  /// (CpuPipelineOptions::channelsLast).
  bool cpuChannelsLast = true;
  /// Host f64 exp inline rather than libmvec's
  /// (CpuPipelineOptions::inlineF64Exp); unset: where `cpu` is one on which
  /// it was measured faster (cpuPrefersInlineF64Exp).
  std::optional<bool> inlineF64Exp;
  /// A device ("cuda:0") on which every argument and result of the module's
  /// public functions lives (tide.resident), e.g. for callers that keep
  /// tensors on the GPU; empty: on the host, unless the IR says otherwise.
  std::string resident;
  /// Called on the placed module, before it is lowered (e.g. to read the
  /// placement report); not for the CPU fallback's placement.
  std::function<void(ModuleOp)> afterPlacement;
};

/// Runs placement, then the CPU pipeline, or the GPU pipeline when placement
/// put an op on a GPU: `module` ends in the LLVM dialect (with an embedded
/// GPU binary in the second case).
/// Diagnostics go to the context's handler.
/// With `options.cpuFallback` and GPU code, `fallback` receives the module
/// lowered again for the CPU alone (left null when no fallback is possible,
/// with a warning that says why).
LogicalResult lowerToLLVMDialect(ModuleOp module, const CompileOptions &options,
                                 OwningOpRef<ModuleOp> *fallback = nullptr);

/// The text of `tide_module_metadata` in a lowered module ("" if absent).
std::string getModuleMetadata(ModuleOp module);

/// Writes into `header` a C header declaring the module's functions, read
/// from `metadata` (the text of `tide_module_metadata`) by the module ABI's
/// reader (tide/ABI/ModuleMetadata.h), with include guard `guard`. Fails with
/// the reason in `error` when the metadata cannot be read.
LogicalResult generateHeader(llvm::StringRef metadata, llvm::StringRef guard,
                             std::string &header, std::string &error);

/// Checks that `cpu` (CompileOptions::cpu: "native" or an LLVM CPU name such
/// as "x86-64-v3" or "znver3") names a CPU this machine's LLVM target can
/// generate 64-bit code for; fails with the reason in `error` (otherwise LLVM
/// would end the process with a fatal error while generating code).
LogicalResult checkCompileCpu(llvm::StringRef cpu, std::string &error);

/// Whether host code for `cpu` (an LLVM CPU name, or "native") computes f64
/// exp inline by default: on the CPUs where that was measured faster than
/// libmvec's vector exp.
bool cpuPrefersInlineF64Exp(llvm::StringRef cpu);

/// Instructions in one basic block from which keepVectorizersOffHugeGlue
/// leaves a loop-free function to LLVM's scalar optimizations.
constexpr size_t kHugeGlueBlockInstructions = 10000;

/// Gives `noimplicitfloat` (which LLVM's loop and SLP vectorizers respect;
/// explicit floating point is unaffected) to each function of `module` that
/// has a basic block of at least kHugeGlueBlockInstructions instructions and
/// no loop, itself or in a function defined in the module that it calls. The
/// host code of a GPU module with hundreds of kernel launches is such a
/// block, and the SLP vectorizer's time grows with the square of a block's
/// size. emitSharedLibrary runs it before optimizing.
void keepVectorizersOffHugeGlue(llvm::Module &module);

/// After LLVM's vectorizers, on x86 with AVX-512F: each vector llvm.ldexp
/// whose exponent tide-expand-host-exp read from the bits of its rounding
/// step (bits(s) - bits(1.5 * 2^23), f64: 2^52) becomes VSCALEF of s - 1.5 *
/// 2^23, the exponent as the float VSCALEF takes (no integer subtraction and
/// conversion back). 256- and 128-bit vectors need `avx512vl`. Returns how
/// many calls it rewrote. emitSharedLibrary runs it after optimizing.
unsigned scaleByFloatExponents(llvm::Module &module, bool avx512vl);

/// Translates, optimizes and writes an object file; then links `outputPath`
/// as a shared library with the system's C compiler driver. On failure
/// returns the reason in `error`.
/// A non-null `fallback` (from lowerToLLVMDialect) is linked in, and each
/// public function dispatches to it when tide_rt_use_gpu() says no GPU.
LogicalResult emitSharedLibrary(ModuleOp module, const CompileOptions &options,
                                llvm::StringRef outputPath, std::string &error,
                                ModuleOp fallback = {});

} // namespace mlir::tide

#endif // TIDE_COMPILER_COMPILE_H
