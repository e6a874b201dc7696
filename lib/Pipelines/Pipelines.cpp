//===- Pipelines.cpp - Tide's pass pipelines -----------------------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Pipelines/Pipelines.h"

#include "tide/Conversion/Passes.h"
#include "tide/Lowering/Passes.h"
#include "tide/Placement/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/SCFToOpenMP/SCFToOpenMP.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::tide;

LogicalResult mlir::tide::validatePlacementPipelineOptions(
    const PlacementPipelineOptions &options, std::string &error) {
  if (options.dynamicDimSize <= 0) {
    error = "invalid 'dynamic-dim-size' option " +
            std::to_string(static_cast<int64_t>(options.dynamicDimSize)) +
            "; it must be positive";
    return failure();
  }
  return success();
}

static LogicalResult validateThreads(int64_t threads, int64_t grain,
                                     std::string &error) {
  if (threads < 0 || threads > kMaxCpuThreads) {
    error = "invalid 'threads' option " + std::to_string(threads) +
            "; expected 0 (decided at run time) to " +
            std::to_string(kMaxCpuThreads);
    return failure();
  }
  if (grain <= 0) {
    error = "invalid 'grain' option " + std::to_string(grain) +
            "; it must be positive";
    return failure();
  }
  return success();
}

LogicalResult
mlir::tide::validateCpuPipelineOptions(const CpuPipelineOptions &options,
                                       std::string &error) {
  return validateThreads(options.threads, options.grain, error);
}

LogicalResult
mlir::tide::validateGpuPipelineOptions(const GpuPipelineOptions &options,
                                       std::string &error) {
  return validateThreads(options.threads, options.grain, error);
}

void mlir::tide::buildPlacementPipeline(
    OpPassManager &pm, const PlacementPipelineOptions &options) {
  // Inference batch norms (per-channel scales and shifts) into the weights
  // of the convolutions before them.
  pm.addNestedPass<func::FuncOp>(createFoldAffineIntoWeightsPass());
  DecomposePassOptions decompose;
  decompose.target = options.target;
  decompose.mode = options.decompose;
  decompose.demoteF64 = options.demoteF64;
  decompose.reducePrecision = options.reducePrecision;
  pm.addPass(createDecomposePass(decompose));

  PlaceDevicesPassOptions place;
  place.target = options.target;
  place.policy = options.policy;
  place.dynamicDimSize = options.dynamicDimSize;
  place.cpuThreads = options.cpuThreads;
  place.remarks = options.remarks;
  pm.addPass(createPlaceDevicesPass(place));

  pm.addNestedPass<func::FuncOp>(createInsertTransfersPass());
  pm.addNestedPass<func::FuncOp>(createOptimizeTransfersPass());

  if (options.report != ReportFormat::None) {
    PlacementReportPassOptions report;
    report.target = options.target;
    report.format = options.report;
    report.output = options.reportOutput;
    report.dynamicDimSize = options.dynamicDimSize;
    report.cpuThreads = options.cpuThreads;
    pm.addPass(createPlacementReportPass(report));
  }
}

/// The tensor-level steps shared by the CPU and GPU pipelines.
static void addTensorSteps(OpPassManager &pm, bool fuse, bool gpu, bool dnnl) {
  pm.addPass(createExportABIPass());
  ConvertTideToLinalgPassOptions lower;
  lower.gpu = gpu;
  lower.dnnl = dnnl;
  pm.addPass(createConvertTideToLinalgPass(lower));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Built with the passes' own constructors: the builder does not depend on
  // what is in the global registry. Elementwise fusion that keeps matmuls and
  // convolutions in the shapes the GEMM libraries match.
  if (fuse)
    pm.addPass(createFuseElementwisePass());
  // Dynamic sizes read from the function's arguments, not from the previous
  // op's result (through loops over the batch too): otherwise bufferization's
  // slice analysis walks the whole network back for every size (minutes for
  // a MobileNet with a symbolic batch).
  pm.addPass(createSCFForLoopCanonicalizationPass());
  memref::ResolveRankedShapeTypeResultDimsPassOptions resolve;
  resolve.errorOnPatternIterationLimit = false; // only an optimization
  pm.addPass(memref::createResolveRankedShapeTypeResultDimsPass(resolve));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Results computed in donated argument buffers (tide.donate).
  pm.addPass(createDonateBuffersPass());
  // After the last CSE: no fill shared by several writers, which
  // bufferization would copy for each.
  pm.addNestedPass<func::FuncOp>(createUnshareFillsPass());
  // No subview into a dimension of size 0 after bufferization.
  pm.addNestedPass<func::FuncOp>(createDropEmptySlicesPass());
}

/// Host buffers up to this size that do not escape their function live on
/// the stack.
static constexpr int64_t kMaxStackBufferBytes = 1024;

/// One-shot bufferization with an identity-layout function ABI, then
/// ownership-based deallocation.
static void addBufferization(OpPassManager &pm, bool gpu) {
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  // A tide.scan's states are new tensors at every step (the loop yields
  // what its body computed, not its iter_args updated in place).
  bufferize.allowReturnAllocsFromLoops = true;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  if (gpu)
    pm.addPass(createResidentResultsPass());
  pm.addPass(createCanonicalizerPass());
  // Small host buffers that do not escape on the stack: a row tile's maxima
  // and sums (tide-tile-and-fuse-rows) were two mallocs and frees per tile,
  // which the runner's allocation hooks track, and their unknown addresses
  // cost a runtime alias check per tile (tide-hoist-allocas allocates them
  // once per thread). Not in GPU modules, whose host buffers may feed
  // asynchronous copies.
  if (!gpu)
    pm.addNestedPass<func::FuncOp>(
        bufferization::createPromoteBuffersToStackPass([](Value alloc) {
          auto type = dyn_cast<MemRefType>(alloc.getType());
          return type && type.hasStaticShape() && !type.getMemorySpace() &&
                 type.getElementType().isIntOrFloat() &&
                 type.getNumElements() *
                         llvm::divideCeil(type.getElementTypeBitWidth(), 8) <=
                     kMaxStackBufferBytes;
        }));
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addNestedPass<func::FuncOp>(createElideArgumentClonesPass());
  pm.addPass(createConvertBufferizationToMemRefPass());
}

/// Host loops and scalars to the LLVM dialect (the memref ABI, libm, libmvec).
static void addHostToLLVM(OpPassManager &pm, bool avx512, bool inlineF64Exp) {
  arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"bf16", "f16"};
  emulate.targetTypeStr = "f32";
  pm.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
  pm.addPass(math::createMathExtendToSupportedTypes());
  // f32 exp inline, vectorized in place (not a libmvec call per vector); f64
  // exp too where the CPU runs it faster than libmvec.
  ExpandHostExpPassOptions exp;
  exp.ldexp = avx512;
  exp.f64 = inlineF64Exp;
  pm.addPass(createExpandHostExpPass(exp));
  // expm1 through libm: convert-math-to-llvm would compute exp(x) - 1.
  pm.addPass(createAccurateMathToLibmPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  // The vector blocks of tide-tile-transposes (row loads, shuffles, row
  // stores).
  pm.addNestedPass<func::FuncOp>(createConvertVectorToLLVMPass());
  // Allocations through _mlir_memref_to_llvm_alloc & co., which
  // tide-host-allocation-checks defines with a check of the result.
  FinalizeMemRefToLLVMConversionPassOptions memrefs;
  memrefs.useGenericFunctions = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefs));
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  // Run-time checks (cf.assert) end the call with an error, not an abort.
  pm.addPass(createLowerHostAssertsPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
}

/// Host linalg ops to loops: with `threads` != 1, one scf.parallel per
/// linalg op over its parallel dimensions, whose outer ones in large nests
/// become OpenMP worksharing loops (library calls stay outside every parallel
/// region) sized at run time; else serial loops. True when parallel.
static bool addHostLoops(OpPassManager &pm, int64_t threads, int64_t grain) {
  if (threads == 1) {
    pm.addPass(createConvertLinalgToLoopsPass());
    pm.addPass(createHoistAllocasPass());
    return false;
  }
  pm.addPass(createConvertLinalgToParallelLoopsPass());
  ParallelizeLoopsPassOptions choose;
  choose.grain = grain;
  pm.addNestedPass<func::FuncOp>(createParallelizeLoopsPass(choose));
  pm.addPass(createConvertSCFToOpenMPPass());
  OmpTeamSizePassOptions team;
  team.grain = grain;
  team.threads = threads;
  pm.addPass(createOmpTeamSizePass(team));
  // Stack buffers of loop bodies once per thread; then the canonicalizer
  // inlines the memref.alloca_scope around each loop body (none holds an
  // alloca any more), which must not hold the blocks of lowered loops.
  pm.addPass(createHoistAllocasPass());
  pm.addPass(createCanonicalizerPass());
  return true;
}

void mlir::tide::buildCpuPipeline(OpPassManager &pm,
                                  const CpuPipelineOptions &options) {
  // oneDNN's convolutions on the NHWC data their kernels read (NCHW ones
  // are reordered in and out at every call).
  if (options.channelsLast && options.dnnl && options.blas) {
    ChannelsLastPassOptions layout;
    layout.host = true;
    pm.addNestedPass<func::FuncOp>(createChannelsLastPass(layout));
    pm.addPass(createCSEPass());
  }
  addTensorSteps(pm, options.fuse, /*gpu=*/false, options.dnnl);
  // Softmax, norms: a reduction and what consumes it computed by row tiles
  // that stay in the cache (one scf.forall, independent tiles).
  if (options.fuse && options.rowTiles)
    pm.addNestedPass<func::FuncOp>(createTileAndFuseRowsPass());
  // Column sums: parts of the rows in parallel (parallel code only).
  if (options.threads != 1)
    pm.addNestedPass<func::FuncOp>(createSplitColumnReductionsPass());
  addBufferization(pm, /*gpu=*/false);
  pm.addNestedPass<func::FuncOp>(createForallToParallelLoopPass());
  if (options.blas) {
    // Vendor libraries: convolutions and constant-weight f32 matmuls through
    // oneDNN, the other GEMMs through OpenBLAS.
    ConvToLibraryPassOptions convs;
    convs.threads = options.threads;
    pm.addPass(createConvToLibraryPass(convs));
    MatmulToLibraryPassOptions matmuls;
    matmuls.threads = options.threads;
    matmuls.dnnl = options.dnnl;
    pm.addPass(createMatmulToLibraryPass(matmuls));
  }
  // Transposes copy cache-sized tiles (one side would be read with a large
  // stride throughout), by vector blocks where they can.
  TileTransposesPassOptions transposes;
  transposes.vectorBlocks = true;
  pm.addNestedPass<func::FuncOp>(createTileTransposesPass(transposes));
  bool parallel = addHostLoops(pm, options.threads, options.grain);
  // Very large functions (unrolled recurrences) as one function per loop
  // nest: LLVM's code generation is superlinear in a function's size.
  OutlineLoopNestsPassOptions outline;
  outline.minNests = options.outlineMinNests;
  pm.addPass(createOutlineLoopNestsPass(outline));
  // A row tile's next row read while the previous one is computed.
  if (options.fuse && options.rowTiles && options.pipelineRows)
    pm.addNestedPass<func::FuncOp>(createPipelineRowLoopsPass());
  // Large results written once: non-temporal vector stores, which do not
  // read the lines they write into the cache first.
  if (options.streamBytes > 0 && options.streamVectorBytes > 0) {
    StreamStoresPassOptions stream;
    stream.minBytes = options.streamBytes;
    stream.vectorBytes = options.streamVectorBytes;
    pm.addNestedPass<func::FuncOp>(createStreamStoresPass(stream));
  }
  // Innermost loops are vectorized by LLVM, not fully unrolled before it.
  pm.addNestedPass<func::FuncOp>(createAnnotateInnerLoopsPass());
  // Before lower-affine: expanding strided metadata creates affine.apply.
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  addHostToLLVM(pm, options.avx512, options.inlineF64Exp);
  if (parallel)
    pm.addPass(createConvertOpenMPToLLVMPass());
  // A failed host allocation ends with a message (or an error of the call,
  // under Tide's runner), not a fault.
  pm.addPass(createHostAllocationChecksPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createApplyLoopAnnotationsPass());
}

void mlir::tide::buildGpuPipeline(OpPassManager &pm,
                                  const GpuPipelineOptions &options) {
  // cuDNN's tensor-core convolutions on the NHWC data they want.
  // (CSE: one transpose of a value two convolutions read.)
  if (options.channelsLast) {
    pm.addNestedPass<func::FuncOp>(createChannelsLastPass());
    pm.addPass(createCSEPass());
  }
  // Host convolutions in GPU modules are im2col and GEMMs (no oneDNN
  // convolution patterns among the GPU's).
  addTensorSteps(pm, options.fuse, /*gpu=*/true, /*dnnl=*/false);
  // What stays on the host is tiled as in the CPU pipeline: softmax and
  // norms by row tiles (the pass leaves the GPU's ops alone), column sums
  // split across the host's threads.
  if (options.fuse)
    pm.addNestedPass<func::FuncOp>(createTileAndFuseRowsPass());
  if (options.threads != 1)
    pm.addNestedPass<func::FuncOp>(createSplitColumnReductionsPass());
  pm.addPass(createAssignMemorySpacesPass());
  addBufferization(pm, /*gpu=*/true);
  ConvertLinalgToGPUPassOptions kernels;
  kernels.useLibrary = options.cublas;
  kernels.fuseRows = options.rowKernels;
  kernels.fuseAttention = options.attentionKernel;
  kernels.constantsInPlace = options.constantsInPlace;
  kernels.chip = options.chip;
  pm.addPass(createConvertLinalgToGPUPass(kernels));
  pm.addPass(createStripMemorySpacesPass());
  if (options.blas) {
    // Host GEMMs as in CPU modules: f32 through oneDNN (a constant weight
    // packed once, the calls on Tide's OpenMP threads), f64 through
    // OpenBLAS. With OpenBLAS for both, an all-CPU MLP at batch 64 took
    // 220 us a call in a GPU module on the H200's host, 117 in a CPU one.
    MatmulToLibraryPassOptions matmuls;
    matmuls.dnnl = options.dnnl;
    matmuls.threads = options.threads;
    pm.addPass(createMatmulToLibraryPass(matmuls));
  }
  // What stayed on the host (the GPU's ops are launches now) is lowered as in
  // the CPU pipeline: row tiles as parallel loops, tiled transposes, loops
  // across the host's cores.
  pm.addNestedPass<func::FuncOp>(createForallToParallelLoopPass());
  TileTransposesPassOptions transposes;
  transposes.vectorBlocks = true;
  pm.addNestedPass<func::FuncOp>(createTileTransposesPass(transposes));
  bool parallel = addHostLoops(pm, options.threads, options.grain);
  pm.addPass(createCanonicalizerPass());
  // Constants and index math move into the kernels, not their parameters.
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  // Host loops (the kernels are in their gpu.module now) vectorized by LLVM.
  pm.addNestedPass<func::FuncOp>(createAnnotateInnerLoopsPass());
  // One stream per call, synchronized once before the host reads results.
  pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());
  // All on the GPU: return without waiting (the thread's stream orders it).
  pm.addNestedPass<func::FuncOp>(createAsyncReturnPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());

  // The chip of the module's target (tide.target), checked against ptxas.
  AttachGpuTargetPassOptions target;
  target.chip = options.chip;
  target.features = options.features;
  target.toolkit = options.toolkit;
  pm.addPass(createAttachGpuTargetPass(target));
  OpPassManager &device = pm.nest<gpu::GPUModuleOp>();
  device.addPass(math::createMathExtendToSupportedTypes());
  // Vector loads and stores keep their 16-byte alignment (ld.global.v4).
  ConvertVectorToLLVMPassOptions vectors;
  vectors.useVectorAlignment = true;
  device.addPass(createConvertVectorToLLVMPass(vectors));
  device.addPass(createConvertGpuOpsToNVVMOps());
  // IEEE sqrt (libdevice's __nv_sqrtf is sqrt.approx.f32).
  device.addPass(createGpuCorrectlyRoundedSqrtPass());
  device.addPass(createCanonicalizerPass());
  device.addPass(createCSEPass());
  device.addPass(createReconcileUnrealizedCastsPass());

  addHostToLLVM(pm, options.avx512, options.inlineF64Exp);
  if (parallel)
    pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createGpuToLLVMConversionPass());
  pm.addPass(createHostAllocationChecksPass());
  GpuModuleToBinaryPassOptions binary;
  binary.toolkitPath = options.toolkit;
  binary.compilationTarget =
      options.format == GpuBinaryFormat::Isa ? "isa" : "fatbin";
  pm.addPass(createGpuModuleToBinaryPass(binary));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createApplyLoopAnnotationsPass());
}

void mlir::tide::registerPipelines() {
  registerPassPipeline(
      "tide-gpu-pipeline",
      "Lower placed tensor-level IR with GPU ops to the LLVM dialect: host "
      "code plus an embedded GPU binary",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        GpuPipelineOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        std::string error;
        if (failed(validateGpuPipelineOptions(options, error)))
          return errorHandler(error);
        buildGpuPipeline(pm, options);
        return success();
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> handler) {
        handler(GpuPipelineOptions());
      });
  registerPassPipeline(
      "tide-cpu-pipeline",
      "Lower placed tensor-level IR to the LLVM dialect for the CPU",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        CpuPipelineOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        std::string error;
        if (failed(validateCpuPipelineOptions(options, error)))
          return errorHandler(error);
        buildCpuPipeline(pm, options);
        return success();
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> handler) {
        handler(CpuPipelineOptions());
      });
  // Registered by hand so that bad option values are reported in the
  // pipeline's own terms before any pass runs.
  registerPassPipeline(
      "tide-place-pipeline",
      "Decompose, place every tide op on a device, insert and optimize "
      "transfers (and optionally print a report)",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        PlacementPipelineOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        std::string error;
        if (failed(validatePlacementPipelineOptions(options, error)))
          return errorHandler(error);
        buildPlacementPipeline(pm, options);
        return success();
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> handler) {
        handler(PlacementPipelineOptions());
      });
}
