//===- Pipelines.h - Tide's pass pipelines ----------------------*- C++ -*-===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// Each pipeline is an options struct plus a builder that reads only those
// options, so another compiler can add it to its own pass manager:
//
//   mlir::tide::PlacementPipelineOptions options;
//   options.target = "h200";
//   options.policy = "cost";
//   mlir::tide::buildPlacementPipeline(pm, options);
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_PIPELINES_PIPELINES_H
#define TIDE_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#ifndef TIDE_DEFAULT_CUDA_ROOT
#define TIDE_DEFAULT_CUDA_ROOT "/usr/local/cuda"
#endif

namespace mlir::tide {

struct PlacementPipelineOptions
    : public PassPipelineOptions<PlacementPipelineOptions> {
  PassOptions::Option<std::string> target{
      *this, "target",
      llvm::cl::desc("Built-in target name or JSON target file"),
      llvm::cl::init("h200")};
  PassOptions::Option<std::string> policy{
      *this, "policy", llvm::cl::desc("soft | strict | require-gpu | cost"),
      llvm::cl::init("soft")};
  PassOptions::Option<std::string> decompose{
      *this, "decompose",
      llvm::cl::desc("auto (where it enables a better placement) | always | "
                     "never"),
      llvm::cl::init("auto")};
  PassOptions::Option<bool> demoteF64{
      *this, "demote-f64",
      llvm::cl::desc("Compute f64 ops in f32 where only f32 has a kernel "
                     "(an explicit, reported precision change)"),
      llvm::cl::init(false)};
  PassOptions::Option<int64_t> dynamicDimSize{
      *this, "dynamic-dim-size",
      llvm::cl::desc("Size assumed for dynamic dimensions in cost estimates"),
      llvm::cl::init(32)};
  PassOptions::Option<bool> remarks{
      *this, "remarks", llvm::cl::desc("Emit a remark for every fallback"),
      llvm::cl::init(true)};
  PassOptions::Option<std::string> report{
      *this, "report",
      llvm::cl::desc("Print a placement report: none | text | json | dot"),
      llvm::cl::init("none")};
  PassOptions::Option<std::string> reportOutput{
      *this, "report-output",
      llvm::cl::desc("Where the report goes (- for stdout)"),
      llvm::cl::init("-")};
};

/// Checks option values; on failure `error` names the option and the
/// accepted values.
LogicalResult validatePlacementPipelineOptions(
    const PlacementPipelineOptions &options, std::string &error);

/// decompose -> place-devices -> insert-transfers -> optimize-transfers
/// [-> placement-report]. Invalid option values make the first pass that
/// reads them fail with a diagnostic naming the option.
void buildPlacementPipeline(OpPassManager &pm,
                            const PlacementPipelineOptions &options);

struct CpuPipelineOptions : public PassPipelineOptions<CpuPipelineOptions> {
  PassOptions::Option<bool> fuse{
      *this, "fuse",
      llvm::cl::desc("Fuse chains of elementwise ops into one loop nest"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> blas{
      *this, "blas",
      llvm::cl::desc("Run f32/f64 2-D matmuls through the host BLAS "
                     "(OpenBLAS), the CPU's library GEMM kernel"),
      llvm::cl::init(true)};
};

/// Placed tensor-level IR -> LLVM dialect for the CPU: tide-export-abi,
/// convert-tide-to-linalg, elementwise fusion, one-shot bufferization (the
/// function ABI takes and returns identity-layout memrefs; results are
/// allocated with malloc and owned by the caller), buffer deallocation,
/// loops, and the LLVM conversions (math through LLVM intrinsics and libm).
void buildCpuPipeline(OpPassManager &pm, const CpuPipelineOptions &options);

struct GpuPipelineOptions : public PassPipelineOptions<GpuPipelineOptions> {
  PassOptions::Option<bool> fuse{
      *this, "fuse",
      llvm::cl::desc("Fuse chains of elementwise ops into one kernel or loop "
                     "nest"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> blas{
      *this, "blas",
      llvm::cl::desc("Run host f32/f64 matmuls through OpenBLAS"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> cublas{
      *this, "cublas",
      llvm::cl::desc("Run GPU f16/bf16/f32/f64 matmuls through cuBLAS"),
      llvm::cl::init(true)};
  PassOptions::Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("GPU architecture (the target's `chip`, e.g. sm_90)"),
      llvm::cl::init("sm_90")};
  PassOptions::Option<std::string> features{
      *this, "features", llvm::cl::desc("PTX features (PTX ISA version)"),
      llvm::cl::init("+ptx80")};
  PassOptions::Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit root (ptxas, fatbinary, libdevice)"),
      llvm::cl::init(TIDE_DEFAULT_CUDA_ROOT)};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("GPU binary format: fatbin (SASS + PTX, checked by "
                     "ptxas) | isa (PTX text, for inspection)"),
      llvm::cl::init("fatbin")};
};

/// Placed tensor-level IR with GPU-placed ops -> LLVM dialect: the CPU
/// pipeline's steps, plus tide-assign-memory-spaces before bufferization,
/// convert-linalg-to-gpu and tide-strip-memory-spaces after it, kernel
/// outlining, one stream per call (gpu-async-region), NVVM, the host calls
/// into Tide's GPU runtime (gpu-to-llvm), and gpu-module-to-binary, which
/// runs ptxas for `chip`. A module with no GPU op gets no GPU code.
void buildGpuPipeline(OpPassManager &pm, const GpuPipelineOptions &options);

/// Registers `tide-place-pipeline`, `tide-cpu-pipeline` and
/// `tide-gpu-pipeline` with the global registry.
void registerPipelines();

} // namespace mlir::tide

#endif // TIDE_PIPELINES_PIPELINES_H
