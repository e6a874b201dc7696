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
//   options.policy = mlir::tide::PlacementPolicy::Cost;
//   mlir::tide::buildPlacementPipeline(pm, options);
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_PIPELINES_PIPELINES_H
#define TIDE_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "tide/Placement/Placement.h"
#include "tide/Support/EnumOptionParser.h"

#ifndef TIDE_DEFAULT_CUDA_ROOT
#define TIDE_DEFAULT_CUDA_ROOT "/usr/local/cuda"
#endif

namespace mlir::tide {

/// What gpu-module-to-binary embeds.
enum class GpuBinaryFormat { Fatbin, Isa };

} // namespace mlir::tide

TIDE_ENUM_OPTION_PARSER(::mlir::tide::GpuBinaryFormat)

namespace mlir::tide {

struct PlacementPipelineOptions
    : public PassPipelineOptions<PlacementPipelineOptions> {
  PassOptions::Option<std::string> target{
      *this, "target",
      llvm::cl::desc("Built-in target name or JSON target file (default: the "
                     "module's tide.target, else h200)")};
  PassOptions::Option<PlacementPolicy> policy{
      *this, "policy", llvm::cl::desc("Placement policy"),
      llvm::cl::init(PlacementPolicy::Soft),
      llvm::cl::values(
          clEnumValN(PlacementPolicy::Soft, "soft",
                     "fall back to a device with a kernel, with a remark"),
          clEnumValN(PlacementPolicy::Strict, "strict",
                     "like soft, but a pin to a device without a kernel is "
                     "an error"),
          clEnumValN(PlacementPolicy::RequireGPU, "require-gpu",
                     "any op on the CPU is an error"),
          clEnumValN(PlacementPolicy::Cost, "cost",
                     "minimise compute plus copy time"))};
  PassOptions::Option<DecomposeMode> decompose{
      *this, "decompose", llvm::cl::desc("When to decompose composite ops"),
      llvm::cl::init(DecomposeMode::Auto),
      llvm::cl::values(
          clEnumValN(DecomposeMode::Auto, "auto",
                     "where it enables a better placement"),
          clEnumValN(DecomposeMode::Always, "always", "every composite op"),
          clEnumValN(DecomposeMode::Never, "never", "none"))};
  PassOptions::Option<bool> demoteF64{
      *this, "demote-f64",
      llvm::cl::desc("Compute f64 ops in f32 where only f32 has a kernel "
                     "(an explicit, reported precision change)"),
      llvm::cl::init(false)};
  PassOptions::Option<ReducedPrecision> reducePrecision{
      *this, "reduce-precision",
      llvm::cl::desc("Compute f32 matmuls and convolutions placed on a GPU "
                     "in a narrower type (an explicit, reported precision "
                     "change)"),
      llvm::cl::init(ReducedPrecision::None),
      llvm::cl::values(clEnumValN(ReducedPrecision::None, "none", "as written"),
                       clEnumValN(ReducedPrecision::BF16, "bf16",
                                  "bf16 operands, f32 accumulation"),
                       clEnumValN(ReducedPrecision::F16, "f16",
                                  "f16 operands, f32 accumulation"))};
  PassOptions::Option<int64_t> dynamicDimSize{
      *this, "dynamic-dim-size",
      llvm::cl::desc("Size assumed for dynamic dimensions in cost estimates"),
      llvm::cl::init(32)};
  PassOptions::Option<int64_t> cpuThreads{
      *this, "cpu-threads",
      llvm::cl::desc("Threads the CPU code will run on, for the CPU's cost "
                     "figures (0: every core of the target's CPU)"),
      llvm::cl::init(0)};
  PassOptions::Option<bool> remarks{
      *this, "remarks", llvm::cl::desc("Emit a remark for every fallback"),
      llvm::cl::init(true)};
  PassOptions::Option<ReportFormat> report{
      *this, "report", llvm::cl::desc("Print a placement report"),
      llvm::cl::init(ReportFormat::None),
      llvm::cl::values(
          clEnumValN(ReportFormat::None, "none", "no report"),
          clEnumValN(ReportFormat::Text, "text", "a table"),
          clEnumValN(ReportFormat::JSON, "json", "JSON"),
          clEnumValN(ReportFormat::Dot, "dot", "a Graphviz graph"))};
  PassOptions::Option<std::string> reportOutput{
      *this, "report-output",
      llvm::cl::desc("Where the report goes (- for stdout)"),
      llvm::cl::init("-")};
};

/// Checks what the option types cannot (dynamic-dim-size > 0); on failure
/// `error` names the option.
LogicalResult validatePlacementPipelineOptions(
    const PlacementPipelineOptions &options, std::string &error);

/// decompose -> place-devices -> insert-transfers -> optimize-transfers
/// [-> placement-report].
void buildPlacementPipeline(OpPassManager &pm,
                            const PlacementPipelineOptions &options);

/// Fewest innermost loop iterations per thread of the CPU pipeline's
/// parallel loops (a first guess; see docs/benchmarks.md, "Parallel CPU
/// code").
constexpr int64_t kDefaultParallelGrain = 32768;
/// The most threads the `threads` option accepts (TIDE_RT_MAX_THREADS of the
/// runtime, which checks TIDE_NUM_THREADS against the same bound).
constexpr int64_t kMaxCpuThreads = 1024;

struct CpuPipelineOptions : public PassPipelineOptions<CpuPipelineOptions> {
  PassOptions::Option<bool> fuse{
      *this, "fuse",
      llvm::cl::desc("Fuse chains of elementwise ops into one loop nest"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> dnnl{
      *this, "dnnl",
      llvm::cl::desc("CPU f32 convolutions and matmuls through oneDNN "
                     "(false: im2col and OpenBLAS; the module does not need "
                     "libdnnl)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> channelsLast{
      *this, "channels-last",
      llvm::cl::desc("With dnnl and blas: run ungrouped 2-D f32 convolutions "
                     "on channels-last data, which oneDNN's kernels read "
                     "without reordering them at each call "
                     "(tide-channels-last)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> rowTiles{
      *this, "row-tiles",
      llvm::cl::desc("Compute reductions and their consumers (softmax, "
                     "norms) by row tiles that stay in the cache "
                     "(tide-tile-and-fuse-rows)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> pipelineRows{
      *this, "pipeline-rows",
      llvm::cl::desc("With row-tiles: read a tile's next row while the "
                     "previous one is computed (tide-pipeline-row-loops)"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> streamBytes{
      *this, "stream-bytes",
      llvm::cl::desc("Results of at least this many bytes that a loop writes "
                     "once and never reads are written with non-temporal "
                     "vector stores (tide-stream-stores); 0 never"),
      llvm::cl::init(8388608)};
  PassOptions::Option<int64_t> streamVectorBytes{
      *this, "stream-vector-bytes",
      llvm::cl::desc("Bytes of the non-temporal vector stores: 64 with "
                     "AVX-512, 32 with AVX, 16 with SSE; 0: the host has "
                     "none (not x86), nothing is streamed"),
      llvm::cl::init(64)};
  PassOptions::Option<bool> blas{
      *this, "blas",
      llvm::cl::desc("Run f32/f64 2-D matmuls through the host BLAS "
                     "(OpenBLAS), and f32 convolutions and constant-weight "
                     "f32 matmuls through oneDNN: the CPU's library kernels"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> threads{
      *this, "threads",
      llvm::cl::desc("Threads of the generated code: 0 = decided at run time "
                     "(TIDE_NUM_THREADS, else the CPUs of the process's "
                     "affinity mask); 1 = single-threaded code (no OpenMP); "
                     "N > 1 = N unless TIDE_NUM_THREADS says otherwise"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> grain{
      *this, "grain",
      llvm::cl::desc("Fewest innermost loop iterations per thread: smaller "
                     "loop nests run on one thread"),
      llvm::cl::init(kDefaultParallelGrain)};
  PassOptions::Option<bool> avx512{
      *this, "avx512",
      llvm::cl::desc("The host code runs on a CPU with AVX-512F: f32 "
                     "exponentials scale by 2^k with VSCALEFPS "
                     "(tide-expand-host-exp{ldexp})"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> inlineF64Exp{
      *this, "inline-f64-exp",
      llvm::cl::desc("Host f64 exp computed inline rather than by libmvec "
                     "(tide-expand-host-exp{f64}): faster on some CPUs"),
      llvm::cl::init(false)};
  PassOptions::Option<int64_t> outlineMinNests{
      *this, "outline-min-nests",
      llvm::cl::desc("Functions with at least this many top-level loop nests "
                     "get one function per nest, which keeps LLVM's code "
                     "generation linear in their size "
                     "(tide-outline-loop-nests; 0: never)"),
      llvm::cl::init(256)};
};

/// Checks what the option types cannot (threads in 0..1024, grain > 0); on
/// failure `error` names the option.
LogicalResult validateCpuPipelineOptions(const CpuPipelineOptions &options,
                                         std::string &error);

/// Placed tensor-level IR -> LLVM dialect for the CPU: tide-export-abi,
/// convert-tide-to-linalg, elementwise fusion, one-shot bufferization (the
/// function ABI takes and returns identity-layout memrefs; results are
/// allocated with malloc and owned by the caller), buffer deallocation,
/// loops (unless threads=1: parallel loops, tide-parallelize-loops,
/// convert-scf-to-openmp and tide-omp-team-size, so that large loop nests
/// run across threads through libomp), and the LLVM conversions (math
/// through LLVM intrinsics and libm).
void buildCpuPipeline(OpPassManager &pm, const CpuPipelineOptions &options);

struct GpuPipelineOptions : public PassPipelineOptions<GpuPipelineOptions> {
  PassOptions::Option<bool> fuse{
      *this, "fuse",
      llvm::cl::desc("Fuse chains of elementwise ops into one kernel or loop "
                     "nest"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> rowKernels{
      *this, "row-kernels",
      llvm::cl::desc("Lower each run of row reductions and the elementwise "
                     "work around them (layer norms, softmax with its scale "
                     "and mask) as one kernel (convert-linalg-to-gpu's "
                     "fuse-rows)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> attentionKernel{
      *this, "attention-kernel",
      llvm::cl::desc("Run f16/bf16 attention (Q K^T, scale and mask, softmax, "
                     "times V) as one fused kernel (convert-linalg-to-gpu's "
                     "fuse-attention)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> constantsInPlace{
      *this, "constants-in-place",
      llvm::cl::desc("Read constants that the GPU code only reads from the "
                     "runtime's device copy itself, uploaded at the first "
                     "call, not from a copy of it per call "
                     "(convert-linalg-to-gpu's constants-in-place)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> channelsLast{
      *this, "channels-last",
      llvm::cl::desc("Run f16/bf16 GPU convolutions on channels-last data, "
                     "the transposes moved out of their way "
                     "(tide-channels-last)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> blas{
      *this, "blas",
      llvm::cl::desc("Run host f32/f64 matmuls through OpenBLAS"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> dnnl{
      *this, "dnnl",
      llvm::cl::desc("With blas: run host f32 matmuls through oneDNN, as the "
                     "CPU pipeline does (false: OpenBLAS; the module then "
                     "does not need libdnnl)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> cublas{
      *this, "cublas",
      llvm::cl::desc("Run GPU f16/bf16/f32/f64 matmuls through cuBLAS"),
      llvm::cl::init(true)};
  PassOptions::Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("GPU architecture, e.g. sm_90 (default: the chip of the "
                     "module's tide.target, else of the default target)")};
  PassOptions::Option<std::string> features{
      *this, "features", llvm::cl::desc("PTX features (PTX ISA version)"),
      llvm::cl::init("+ptx80")};
  PassOptions::Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit root (ptxas, fatbinary, libdevice)"),
      llvm::cl::init(TIDE_DEFAULT_CUDA_ROOT)};
  PassOptions::Option<GpuBinaryFormat> format{
      *this, "format", llvm::cl::desc("GPU binary format"),
      llvm::cl::init(GpuBinaryFormat::Fatbin),
      llvm::cl::values(
          clEnumValN(GpuBinaryFormat::Fatbin, "fatbin",
                     "SASS + PTX, checked by ptxas"),
          clEnumValN(GpuBinaryFormat::Isa, "isa", "PTX text, for inspection"))};
  PassOptions::Option<int64_t> threads{
      *this, "threads",
      llvm::cl::desc("Threads of the host's loops, as the CPU pipeline's "
                     "option: 0 = decided at run time; 1 = single-threaded "
                     "host code (the module then needs no libomp)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> grain{
      *this, "grain",
      llvm::cl::desc("Fewest innermost host loop iterations per thread"),
      llvm::cl::init(kDefaultParallelGrain)};
  PassOptions::Option<bool> avx512{
      *this, "avx512",
      llvm::cl::desc("The host code runs on a CPU with AVX-512F: f32 "
                     "exponentials scale by 2^k with VSCALEFPS "
                     "(tide-expand-host-exp{ldexp})"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> inlineF64Exp{
      *this, "inline-f64-exp",
      llvm::cl::desc("Host f64 exp computed inline rather than by libmvec "
                     "(tide-expand-host-exp{f64}): faster on some CPUs"),
      llvm::cl::init(false)};
};

/// Checks the `threads` and `grain` options as validateCpuPipelineOptions.
LogicalResult validateGpuPipelineOptions(const GpuPipelineOptions &options,
                                         std::string &error);

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
