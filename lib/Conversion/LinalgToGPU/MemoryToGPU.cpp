//===- MemoryToGPU.cpp - Allocations and copies of GPU memory -------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// memref.alloc/dealloc/copy on GPU memory become gpu.alloc/dealloc/memcpy. A
// copy between strided GPU views becomes a linalg.copy (a kernel, made with
// the other linalg ops); a copy between a strided view and the other side
// goes through a contiguous buffer on the strided side.
//
//===----------------------------------------------------------------------===//

#include "LinalgToGPU.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

#include <functional>

using namespace mlir;
using namespace mlir::tide;
using namespace mlir::tide::gpu_lowering;

namespace {

bool hasIdentityLayout(Value v) {
  return cast<MemRefType>(v.getType()).getLayout().isIdentity();
}

/// Host code only: kernels address memory themselves.
bool inKernel(Operation *op) {
  return op->getParentOfType<gpu::LaunchOp>() != nullptr;
}

/// Base of the patterns: they know which buffers are on which GPU.
template <typename OpTy>
struct MemoryPattern : OpRewritePattern<OpTy> {
  MemoryPattern(MLIRContext *ctx, const KernelBuilder &kernels)
      : OpRewritePattern<OpTy>(ctx), kernels(kernels) {}

protected:
  const KernelBuilder &kernels;
};

/// memref.alloc of GPU memory -> gpu.alloc.
struct AllocToGPU : MemoryPattern<memref::AllocOp> {
  using MemoryPattern::MemoryPattern;
  LogicalResult matchAndRewrite(memref::AllocOp alloc,
                                PatternRewriter &rewriter) const override {
    if (inKernel(alloc) || !kernels.onDevice(alloc))
      return failure();
    rewriter.replaceOpWithNewOp<gpu::AllocOp>(
        alloc, alloc.getType(), Type(), ValueRange(), alloc.getDynamicSizes(),
        alloc.getSymbolOperands(), false);
    return success();
  }
};

/// memref.dealloc of GPU memory -> gpu.dealloc.
struct DeallocToGPU : MemoryPattern<memref::DeallocOp> {
  using MemoryPattern::MemoryPattern;
  LogicalResult matchAndRewrite(memref::DeallocOp dealloc,
                                PatternRewriter &rewriter) const override {
    if (inKernel(dealloc) || !kernels.onDevice(dealloc.getMemref()))
      return failure();
    rewriter.replaceOpWithNewOp<gpu::DeallocOp>(dealloc, Type(), ValueRange(),
                                                dealloc.getMemref());
    return success();
  }
};

/// memref.copy from or to GPU memory -> gpu.memcpy between contiguous
/// buffers; a copy between strided GPU views is a linalg.copy (a kernel);
/// a strided view on one side only goes through a contiguous buffer on
/// that side (a kernel gathers on the GPU, memref.copy on the host).
struct CopyToGPU : MemoryPattern<memref::CopyOp> {
  using MemoryPattern::MemoryPattern;
  LogicalResult matchAndRewrite(memref::CopyOp copy,
                                PatternRewriter &rewriter) const override {
    Value src = copy.getSource(), dst = copy.getTarget();
    if (inKernel(copy) || (!kernels.onDevice(src) && !kernels.onDevice(dst)))
      return failure();
    if (hasIdentityLayout(src) && hasIdentityLayout(dst)) {
      rewriter.replaceOpWithNewOp<gpu::MemcpyOp>(copy, Type(), ValueRange(),
                                                 dst, src);
      return success();
    }
    if (kernels.onDevice(src) && kernels.onDevice(dst)) {
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, src, dst);
      return success();
    }
    Location loc = copy.getLoc();
    Value strided = hasIdentityLayout(src) ? dst : src;
    auto type = cast<MemRefType>(strided.getType());
    auto flat =
        MemRefType::get(type.getShape(), type.getElementType(),
                        MemRefLayoutAttrInterface(), type.getMemorySpace());
    SmallVector<Value> dyn;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d))
        dyn.push_back(memref::DimOp::create(rewriter, loc, strided, d));
    bool stridedOnDevice = kernels.onDevice(strided);
    Value tmp =
        stridedOnDevice
            ? gpu::AllocOp::create(rewriter, loc, flat, Type(), ValueRange(),
                                   dyn, ValueRange(), false)
                  .getMemref()
            : memref::AllocOp::create(rewriter, loc, flat, dyn).getResult();
    // Gather (or scatter) on the strided side: a kernel on the GPU.
    auto stridedCopy = [&](Value from, Value to) {
      if (stridedOnDevice)
        linalg::CopyOp::create(rewriter, loc, from, to);
      else
        memref::CopyOp::create(rewriter, loc, from, to);
    };
    if (strided == src) {
      stridedCopy(src, tmp);
      gpu::MemcpyOp::create(rewriter, loc, Type(), ValueRange(), dst, tmp);
    } else {
      gpu::MemcpyOp::create(rewriter, loc, Type(), ValueRange(), tmp, src);
      stridedCopy(tmp, dst);
    }
    if (stridedOnDevice)
      gpu::DeallocOp::create(rewriter, loc, Type(), ValueRange(), tmp);
    else
      memref::DeallocOp::create(rewriter, loc, tmp);
    rewriter.eraseOp(copy);
    return success();
  }
};

} // namespace

void gpu_lowering::populateMemoryToGPUPatterns(RewritePatternSet &patterns,
                                               const KernelBuilder &kernels) {
  patterns.add<AllocToGPU, DeallocToGPU, CopyToGPU>(patterns.getContext(),
                                                    kernels);
}

void gpu_lowering::hoistHostAllocations(const KernelBuilder &kernels,
                                        Block &block) {
  Operation *firstGpu = nullptr;
  for (Operation &op : block)
    if (isa<gpu::GPUDialect>(op.getDialect())) {
      firstGpu = &op;
      break;
    }
  if (!firstGpu)
    return;
  std::function<bool(Value, SmallVectorImpl<Operation *> &)> available =
      [&](Value v, SmallVectorImpl<Operation *> &moves) -> bool {
    Operation *def = v.getDefiningOp();
    if (!def)
      return v.getParentBlock() == &block ||
             !block.getParentOp()->isAncestor(
                 v.getParentBlock()->getParentOp());
    if (def->getBlock() != &block)
      return !block.getParentOp()->isProperAncestor(def);
    if (def->isBeforeInBlock(firstGpu))
      return true;
    if (!isPure(def) || def->getNumRegions())
      return false;
    for (Value operand : def->getOperands())
      if (!available(operand, moves))
        return false;
    moves.push_back(def);
    return true;
  };
  SmallVector<memref::AllocOp> allocs;
  for (Operation &op : block)
    if (auto alloc = dyn_cast<memref::AllocOp>(op))
      if (firstGpu->isBeforeInBlock(alloc) && !kernels.onDevice(alloc))
        allocs.push_back(alloc);
  for (memref::AllocOp alloc : allocs) {
    SmallVector<Operation *> moves;
    bool ok = true;
    for (Value operand : alloc->getOperands())
      ok = ok && available(operand, moves);
    if (!ok)
      continue;
    for (Operation *op : moves)
      op->moveBefore(firstGpu);
    alloc->moveBefore(firstGpu);
  }
}
