//===- LinalgToGPU.cpp - Buffer-level linalg on device memory to kernels --===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// After one-shot bufferization, GPU values live in memrefs whose memory space
// is their GPU (`#tide.device<cuda:N>`, tide-assign-memory-spaces). This pass
// turns everything that touches them into GPU code, one strategy per file
// (see LinalgToGPU.h):
//
//  - a constant copied into a GPU buffer that is only read becomes the
//    runtime's device copy of the constant (uploaded at the first call);
//  - memref.alloc/dealloc/copy on device memory become gpu.alloc/dealloc/
//    memcpy (patterns, applied first; a copy between strided device views
//    becomes a linalg.copy, lowered below);
//  - 2-D and batched f16/bf16/f32/f64 matmuls call cuBLAS through Tide's
//    runtime, and f16/bf16/f32/f64 convolutions cuDNN;
//  - a linalg op with only parallel loops becomes one `gpu.launch`, one
//    thread per iteration point (so fused elementwise chains are one kernel);
//  - reductions (plain and arg-reductions) become block-parallel reductions,
//    split over many blocks when there are few outputs; other linalg ops
//    with reductions get one thread per output;
//  - linalg.softmax becomes one kernel with one block per row;
//  - row groups (Rows.cpp), first: a run of reductions over trailing
//    dimensions and the elementwise work before, between and after them
//    over the same rows (a layer norm; a softmax with its scale and mask)
//    becomes one kernel with a warp or a block per row.
//
// Host code that would read device memory directly is an error.
//
//===----------------------------------------------------------------------===//

#include "LinalgToGPU.h"

#include "tide/Conversion/Passes.h"
#include "tide/Runtime/RuntimeSymbols.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir::tide {
#define GEN_PASS_DEF_CONVERTLINALGTOGPUPASS
#include "tide/Conversion/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;
using namespace mlir::tide;
using namespace mlir::tide::gpu_lowering;

namespace {

struct ConvertLinalgToGPUPass
    : public tide::impl::ConvertLinalgToGPUPassBase<ConvertLinalgToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    bool ok = true;
    for (func::FuncOp func : getOperation().getOps<func::FuncOp>())
      ok &= succeeded(lowerFunction(func));
    if (!ok)
      signalPassFailure();
  }

  LogicalResult lowerFunction(func::FuncOp func) {
    KernelBuilder kernels(func);
    bool ok = true;
    auto report = [&](Operation *op, StringRef message) {
      op->emitError(message);
      ok = false;
    };
    // Kernels use registers, not stacks, for GPU memory.
    func.walk([&](memref::AllocaOp alloca) {
      if (kernels.onDevice(alloca))
        report(alloca, "a stack allocation in GPU memory cannot be lowered");
    });

    // Constants the function only reads, while their readers are still
    // linalg ops: the runtime's device copy itself, not a copy of it.
    if (constantsInPlace)
      useDeviceConstantsInPlace(kernels, func);

    // Convolutions for cuDNN first: they may erase the padding copies.
    if (useLibrary) {
      SmallVector<linalg::LinalgOp> convs;
      func.walk([&](linalg::LinalgOp op) {
        if (isLibraryConv(op) && llvm::all_of(op->getOperands(), [&](Value v) {
              return kernels.onDevice(v);
            }))
          convs.push_back(op);
      });
      for (linalg::LinalgOp conv : convs)
        (void)lowerLibraryConv(kernels, conv);
    }

    // Attention next: it erases the score buffers' allocations.
    if (useLibrary && fuseAttention && chip == TIDE_RT_GPU_ATTENTION_CHIP) {
      SmallVector<Block *> blocks;
      func.walk([&](Block *block) { blocks.push_back(block); });
      for (Block *block : blocks)
        lowerAttention(kernels, *block);
    }

    // Allocations and copies first: a strided device copy becomes a
    // linalg.copy, lowered with the other linalg ops below.
    RewritePatternSet patterns(&getContext());
    populateMemoryToGPUPatterns(patterns, kernels);
    walkAndApplyPatterns(func, FrozenRewritePatternSet(std::move(patterns)));

    // Row groups (layer norms, softmax with its scale and mask) first.
    if (fuseRows) {
      SmallVector<Block *> blocks;
      func.walk([&](Block *block) {
        Operation *parent = block->getParentOp();
        if (!isa<gpu::LaunchOp>(parent) &&
            !parent->getParentOfType<gpu::LaunchOp>())
          blocks.push_back(block);
      });
      for (Block *block : blocks)
        lowerRowGroups(kernels, *block);
    }

    SmallVector<Operation *> work;
    func.walk([&](Operation *op) {
      if (isa<linalg::LinalgOp, linalg::SoftmaxOp>(op) &&
          !op->getParentOfType<gpu::LaunchOp>() &&
          llvm::any_of(op->getOperands(),
                       [&](Value v) { return kernels.onDevice(v); }))
        work.push_back(op);
    });
    for (Operation *op : work) {
      bool mixed = llvm::any_of(op->getOperands(), [&](Value v) {
        return isa<MemRefType>(v.getType()) && !kernels.onDevice(v);
      });
      if (mixed) {
        report(op, "mixes host and GPU memory; every operand of a GPU op "
                   "must be in GPU memory");
        continue;
      }
      if (auto softmax = dyn_cast<linalg::SoftmaxOp>(op)) {
        lowerSoftmax(kernels, softmax);
        continue;
      }
      lowerLinalgOp(kernels, cast<linalg::LinalgOp>(op));
    }

    if (!func.isExternal())
      hoistHostAllocations(kernels, func.getBody().front());
    // Nothing left may read or write GPU memory from the host.
    func.walk([&](Operation *op) {
      if (op->getParentOfType<gpu::LaunchOp>())
        return;
      if (isa<memref::LoadOp, memref::StoreOp>(op) &&
          llvm::any_of(op->getOperands(),
                       [&](Value v) { return kernels.onDevice(v); }))
        report(op, "reads or writes GPU memory on the host");
    });
    return success(ok);
  }

  /// Picks the strategy for a linalg op on GPU memory.
  void lowerLinalgOp(KernelBuilder &kernels, linalg::LinalgOp op) {
    if (useLibrary) {
      // A zero fill right before a library GEMM of the same buffer is
      // folded into the GEMM (beta = 0).
      if (auto fill = dyn_cast<linalg::FillOp>(op.getOperation())) {
        auto next = dyn_cast_or_null<linalg::LinalgOp>(op->getNextNode());
        if (next && getZeroFillBefore(next) == fill && isCuBlasGemm(next))
          return;
      }
      if (auto matmul = dyn_cast<linalg::MatmulOp>(op.getOperation());
          matmul && isLibraryGemm(matmul, GemmLibrary::CuBlas))
        return lowerLibraryGemm(kernels, matmul);
      SmallVector<BatchedGemmOperand> batched =
          matchBatchedGemm(op, GemmLibrary::CuBlas);
      if (!batched.empty())
        return lowerLibraryBatchedGemm(kernels, op, batched);
    }
    // A fill right before a reduction into the same buffer (its initial
    // value) waits for the reduction: a block reduction folds it in.
    if (auto fill = dyn_cast<linalg::FillOp>(op.getOperation())) {
      auto next = dyn_cast_or_null<linalg::LinalgOp>(op->getNextNode());
      if (next && getInitFillBefore(next) == fill)
        return;
    }
    if (op.getNumReductionLoops() == 0)
      return lowerParallel(kernels, op);
    linalg::FillOp initFill = getInitFillBefore(op);
    if (lowerReduction(kernels, op, initFill))
      return;
    // Not folded: the fill runs first after all.
    if (initFill)
      lowerParallel(kernels, initFill);
    if (!lowerArgReduction(kernels, op))
      lowerSequential(kernels, op);
  }

  /// The fill of a reduction's only output right before it (so nothing
  /// reads the filled buffer in between), which the reduction may fold.
  static linalg::FillOp getInitFillBefore(linalg::LinalgOp op) {
    auto fill = dyn_cast_or_null<linalg::FillOp>(op->getPrevNode());
    if (!fill || op.getNumDpsInits() != 1 || op.getNumReductionLoops() == 0 ||
        fill.getDpsInits()[0] != op.getDpsInits()[0])
      return {};
    return fill;
  }

  /// Whether cuBLAS computes `op` (a 2-D or batched matmul) in place.
  static bool isCuBlasGemm(linalg::LinalgOp op) {
    if (auto matmul = dyn_cast<linalg::MatmulOp>(op.getOperation()))
      return isLibraryGemm(matmul, GemmLibrary::CuBlas);
    return !matchBatchedGemm(op, GemmLibrary::CuBlas).empty();
  }
};

} // namespace
