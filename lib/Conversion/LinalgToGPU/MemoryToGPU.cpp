//===- MemoryToGPU.cpp - Allocations and copies of GPU memory -------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// memref.alloc/dealloc/copy on GPU memory become gpu.alloc/dealloc/memcpy; a
// copy of a constant global becomes a call that copies the runtime's cached
// device copy of it (uploaded once per module, not at every call), or, where
// the buffer is only read, that device copy itself replaces the buffer. A
// copy between strided GPU views becomes a linalg.copy (a kernel, made with
// the other linalg ops); a copy between a strided view and the other side
// goes through a contiguous buffer on the strided side.
//
//===----------------------------------------------------------------------===//

#include "LinalgToGPU.h"

#include "tide/Runtime/RuntimeSymbols.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
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

/// The bytes of a static, int or float `type`; nullopt for others.
std::optional<int64_t> staticBytes(MemRefType type) {
  Type element = type.getElementType();
  if (!type.hasStaticShape() || !element.isIntOrFloat())
    return std::nullopt;
  return type.getNumElements() * ((element.getIntOrFloatBitWidth() + 7) / 8);
}

/// The zero-initialized slot global of `module` through which the runtime
/// finds its device copy of `global`: one per constant, shared by every copy
/// site and function of the module (the runtime keys its copies by slot), so
/// a constant read in several places is uploaded and kept once.
memref::GlobalOp createSlot(ModuleOp module, memref::GlobalOp global,
                            Location loc) {
  MLIRContext *ctx = module.getContext();
  Builder b(ctx);
  std::string name = (global.getSymName() + "_device_copy").str();
  SymbolTable symbols(module);
  if (auto existing = symbols.lookup<memref::GlobalOp>(name);
      existing && existing->hasAttr(TideDialect::getDeviceCopySlotAttrName()))
    return existing;
  auto slotType = MemRefType::get({1}, b.getI64Type());
  OpBuilder detached(ctx);
  auto slot = memref::GlobalOp::create(
      detached, loc, name, b.getStringAttr("private"), slotType,
      DenseElementsAttr::get(RankedTensorType::get({1}, b.getI64Type()),
                             b.getI64IntegerAttr(0).getValue()),
      /*constant=*/false, /*alignment=*/nullptr);
  slot->setAttr(TideDialect::getDeviceCopySlotAttrName(), b.getUnitAttr());
  symbols.insert(slot); // Renamed if a global of the module has the name.
  return slot;
}

/// The runtime function `name` of `module` (declared if new), on i64s.
func::FuncOp runtimeFunction(ModuleOp module, StringRef name, Location loc,
                             unsigned numArgs, unsigned numResults) {
  if (auto callee = module.lookupSymbol<func::FuncOp>(name))
    return callee;
  OpBuilder db = OpBuilder::atBlockBegin(module.getBody());
  Type i64 = db.getI64Type();
  auto callee = func::FuncOp::create(
      db, loc, name,
      FunctionType::get(module.getContext(), SmallVector<Type>(numArgs, i64),
                        SmallVector<Type>(numResults, i64)));
  callee.setPrivate();
  return callee;
}

/// A copy of a constant into a contiguous GPU buffer: the runtime keeps one
/// device copy of the constant per module (made at the first call, found
/// through a zero-initialized slot global of the module) and copies it on
/// the device, instead of copying it from the host at every call.
LogicalResult copyConstant(memref::CopyOp copy, memref::GlobalOp global,
                           PatternRewriter &rewriter) {
  auto type = cast<MemRefType>(copy.getTarget().getType());
  std::optional<int64_t> bytes = staticBytes(type);
  if (!bytes)
    return failure();
  auto module = copy->getParentOfType<ModuleOp>();
  Location loc = copy.getLoc();
  memref::GlobalOp slot = createSlot(module, global, loc);
  func::FuncOp callee =
      runtimeFunction(module, TIDE_RT_GPU_COPY_CONSTANT, loc, 4, 0);
  Value slotRef = memref::GetGlobalOp::create(rewriter, loc, slot.getType(),
                                              slot.getSymName());
  Value operands[] = {pointerOf(rewriter, loc, copy.getTarget()),
                      pointerOf(rewriter, loc, copy.getSource()),
                      arith::ConstantIntOp::create(rewriter, loc, *bytes, 64),
                      pointerOf(rewriter, loc, slotRef)};
  rewriter.replaceOpWithNewOp<func::CallOp>(copy, callee, operands);
  return success();
}

/// Whether `buffer` (and the views of it) is only read, `writer` aside:
/// linalg ops (and other destination-style ops) take it as an input, copies
/// and loads read it; `deallocs` gets the deallocations of `buffer` itself.
/// Anything else (a destination, a call, a return) may write it or keep it.
bool onlyRead(Value buffer, Operation *writer,
              SmallVectorImpl<Operation *> &deallocs, bool isView = false) {
  for (OpOperand &use : buffer.getUses()) {
    Operation *user = use.getOwner();
    if (user == writer)
      continue;
    if (isa<memref::DeallocOp>(user) && !isView) {
      deallocs.push_back(user);
      continue;
    }
    if (auto view = dyn_cast<ViewLikeOpInterface>(user)) {
      if (view.getViewSource() == buffer && user->getNumResults() == 1 &&
          onlyRead(user->getResult(0), writer, deallocs, /*isView=*/true))
        continue;
      return false;
    }
    if (auto dps = dyn_cast<DestinationStyleOpInterface>(user);
        dps && dps.isDpsInput(&use))
      continue;
    if (auto copy = dyn_cast<memref::CopyOp>(user);
        copy && copy.getSource() == buffer && copy.getTarget() != buffer)
      continue;
    // Loads in a linalg op's payload (a gather's table, an embedding).
    if (isa<memref::LoadOp, vector::LoadOp, vector::TransferReadOp>(user))
      continue;
    return false;
  }
  return true;
}

/// `pointer` (an i64 device address) as a memref of the static, identity
/// layout `type`: its descriptor, built in the LLVM dialect, cast to the
/// memref (the cast folds away in the lowering to LLVM).
Value memrefAt(OpBuilder &b, Location loc, Value pointer, MemRefType type) {
  MLIRContext *ctx = b.getContext();
  Type i64 = b.getI64Type();
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  int64_t rank = type.getRank();
  SmallVector<Type> fields = {ptrType, ptrType, i64};
  if (rank > 0) {
    fields.push_back(LLVM::LLVMArrayType::get(i64, rank));
    fields.push_back(LLVM::LLVMArrayType::get(i64, rank));
  }
  auto descType = LLVM::LLVMStructType::getLiteral(ctx, fields);
  Value ptr = LLVM::IntToPtrOp::create(b, loc, ptrType, pointer);
  Value desc = LLVM::PoisonOp::create(b, loc, descType);
  desc = LLVM::InsertValueOp::create(b, loc, desc, ptr, ArrayRef<int64_t>{0});
  desc = LLVM::InsertValueOp::create(b, loc, desc, ptr, ArrayRef<int64_t>{1});
  auto constant = [&](int64_t v) -> Value {
    return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v));
  };
  desc = LLVM::InsertValueOp::create(b, loc, desc, constant(0),
                                     ArrayRef<int64_t>{2});
  SmallVector<int64_t> strides;
  int64_t offset;
  (void)type.getStridesAndOffset(strides, offset);
  for (int64_t d = 0; d < rank; ++d) {
    desc = LLVM::InsertValueOp::create(
        b, loc, desc, constant(type.getDimSize(d)), ArrayRef<int64_t>{3, d});
    desc = LLVM::InsertValueOp::create(b, loc, desc, constant(strides[d]),
                                       ArrayRef<int64_t>{4, d});
  }
  return UnrealizedConversionCastOp::create(b, loc, TypeRange{type},
                                            ValueRange{desc})
      .getResult(0);
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

void gpu_lowering::useDeviceConstantsInPlace(const KernelBuilder &kernels,
                                             func::FuncOp func) {
  if (func.isExternal())
    return;
  struct Site {
    memref::CopyOp copy;
    memref::AllocOp alloc;
    memref::GlobalOp global;
    SmallVector<Operation *> deallocs;
  };
  SmallVector<Site> sites;
  func.walk([&](memref::CopyOp copy) {
    memref::GlobalOp global = constantGlobal(copy.getSource());
    auto alloc = copy.getTarget().getDefiningOp<memref::AllocOp>();
    if (!global || !alloc || !kernels.onDevice(alloc) ||
        !hasIdentityLayout(copy.getSource()) || !hasIdentityLayout(alloc) ||
        !staticBytes(alloc.getType()) ||
        copy.getSource().getType() != global.getType())
      return;
    Site site{copy, alloc, global, {}};
    if (onlyRead(alloc, copy, site.deallocs))
      sites.push_back(std::move(site));
  });
  if (sites.empty())
    return;
  auto module = func->getParentOfType<ModuleOp>();
  // At the entry: before any GPU work, so that no wait for the stream
  // comes before the calls (their first upload waits on its own).
  OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
  // One call per constant, whatever the number of sites reading it.
  llvm::DenseMap<Operation *, Value> pointers;
  for (Site &site : sites) {
    Location loc = site.copy.getLoc();
    MemRefType type = site.alloc.getType();
    Value &pointer = pointers[site.global];
    if (!pointer) {
      memref::GlobalOp slot = createSlot(module, site.global, loc);
      func::FuncOp callee =
          runtimeFunction(module, TIDE_RT_GPU_CONSTANT, loc, 3, 1);
      Value source = memref::GetGlobalOp::create(b, loc, site.global.getType(),
                                                 site.global.getSymName());
      Value slotRef = memref::GetGlobalOp::create(b, loc, slot.getType(),
                                                  slot.getSymName());
      Value operands[] = {
          pointerOf(b, loc, source),
          arith::ConstantIntOp::create(b, loc, *staticBytes(type), 64),
          pointerOf(b, loc, slotRef)};
      pointer = func::CallOp::create(b, loc, callee, operands).getResult(0);
    }
    Value buffer = memrefAt(b, loc, pointer, type);
    site.copy.erase();
    for (Operation *dealloc : site.deallocs)
      dealloc->erase();
    site.alloc.getResult().replaceAllUsesWith(buffer);
    site.alloc.erase();
  }
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
