//===- MemoryToGPU.cpp - Allocations and copies of GPU memory -------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// memref.alloc/dealloc/copy on GPU memory become gpu.alloc/dealloc/memcpy; a
// copy of a constant global becomes a call that copies the runtime's cached
// device copy of it (uploaded once per module, not at every call). A
// copy between strided GPU views becomes a linalg.copy (a kernel, made with
// the other linalg ops); a copy between a strided view and the other side
// goes through a contiguous buffer on the strided side.
//
//===----------------------------------------------------------------------===//

#include "LinalgToGPU.h"

#include "tide/Runtime/RuntimeSymbols.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"

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

/// The constant global `v` reads (memref.get_global of a constant), if any.
memref::GlobalOp constantGlobal(Value v) {
  auto get = v.getDefiningOp<memref::GetGlobalOp>();
  if (!get)
    return {};
  auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
      get, get.getNameAttr());
  return global && global.getConstant() ? global : memref::GlobalOp();
}

/// `v`'s aligned pointer as an i64.
Value pointerOf(OpBuilder &b, Location loc, Value v) {
  Value index = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, v);
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
}

/// A copy of a constant into a contiguous GPU buffer: the runtime keeps one
/// device copy of the constant per module (made at the first call, found
/// through a zero-initialized slot global of the module) and copies it on
/// the device, instead of copying it from the host at every call.
LogicalResult copyConstant(memref::CopyOp copy, memref::GlobalOp global,
                           PatternRewriter &rewriter) {
  auto type = cast<MemRefType>(copy.getTarget().getType());
  Type element = type.getElementType();
  if (!type.hasStaticShape() || !element.isIntOrFloat())
    return failure();
  int64_t bytes =
      type.getNumElements() * ((element.getIntOrFloatBitWidth() + 7) / 8);
  auto module = copy->getParentOfType<ModuleOp>();
  Location loc = copy.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  auto slotType = MemRefType::get({1}, rewriter.getI64Type());
  OpBuilder detached(ctx);
  auto slot = memref::GlobalOp::create(
      detached, loc, (global.getSymName() + "_device_copy").str(),
      rewriter.getStringAttr("private"), slotType,
      DenseElementsAttr::get(RankedTensorType::get({1}, rewriter.getI64Type()),
                             rewriter.getI64IntegerAttr(0).getValue()),
      /*constant=*/false, /*alignment=*/nullptr);
  // Renamed if taken (a constant may be copied at several places).
  SymbolTable(module).insert(slot);
  auto callee = module.lookupSymbol<func::FuncOp>(TIDE_RT_GPU_COPY_CONSTANT);
  if (!callee) {
    OpBuilder db = OpBuilder::atBlockBegin(module.getBody());
    Type i64 = db.getI64Type();
    callee =
        func::FuncOp::create(db, loc, TIDE_RT_GPU_COPY_CONSTANT,
                             FunctionType::get(ctx, {i64, i64, i64, i64}, {}));
    callee.setPrivate();
  }
  Value slotRef =
      memref::GetGlobalOp::create(rewriter, loc, slotType, slot.getSymName());
  Value operands[] = {pointerOf(rewriter, loc, copy.getTarget()),
                      pointerOf(rewriter, loc, copy.getSource()),
                      arith::ConstantIntOp::create(rewriter, loc, bytes, 64),
                      pointerOf(rewriter, loc, slotRef)};
  rewriter.replaceOpWithNewOp<func::CallOp>(copy, callee, operands);
  return success();
}

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
      if (memref::GlobalOp global = constantGlobal(src);
          global && kernels.onDevice(dst) &&
          succeeded(copyConstant(copy, global, rewriter)))
        return success();
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
    // Already to be moved (a size two others read): once, before them.
    if (llvm::is_contained(moves, def))
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
