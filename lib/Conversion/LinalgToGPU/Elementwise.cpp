//===- Elementwise.cpp - Parallel loops on the GPU ------------------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// A linalg op with only parallel loops becomes one `gpu.launch` with one
// thread per iteration point (so fused elementwise chains are one kernel);
// over contiguous buffers without broadcasting, one thread per 16-byte
// vector.
//
//===----------------------------------------------------------------------===//

#include "LinalgToGPU.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tide;
using namespace mlir::tide::gpu_lowering;

/// Elementwise over contiguous buffers with no broadcasting: each thread
/// handles 16 bytes of its widest operand (16 x 8-bit, 8 x 16-bit, 4 x 32-bit
/// or 2 x 64-bit elements) with aligned vector loads and stores. False when
/// that does not apply.
static bool lowerContiguous(KernelBuilder &kernels, linalg::LinalgOp op) {
  // Identity operands (all outputs among them) are contiguous buffers of
  // the iteration space. Other inputs read some of the dims in any order
  // (broadcast, transposed; size-1 dims at 0): one whose last index is the
  // innermost dim is read as a vector too (the lanes stay in one row of
  // it: a transpose that keeps the innermost dim, a bias), one without the
  // innermost dim is one scalar for all lanes.
  unsigned maxBytes = 0;
  int64_t n = 1;
  SmallVector<int64_t> shape = op.getStaticLoopRanges();
  int64_t rank = shape.size();
  for (int64_t size : shape)
    if (ShapedType::isDynamic(size))
      return false;
  for (OpOperand &operand : op->getOpOperands()) {
    Value v = operand.get();
    auto type = dyn_cast<MemRefType>(v.getType());
    if (!type) {
      if (isa<ShapedType>(v.getType()))
        return false;
      continue;
    }
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (!type.getLayout().isIdentity() || !type.hasStaticShape() ||
        !type.getElementType().isIntOrFloat())
      return false;
    if (!map.isIdentity()) {
      if (op.isDpsInit(&operand) ||
          !map.isProjectedPermutation(/*allowZeroInResults=*/true))
        return false;
      // The innermost dim, if read, indexes the buffer's last dim.
      for (auto [i, e] : llvm::enumerate(map.getResults())) {
        auto d = dyn_cast<AffineDimExpr>(e);
        if (d && d.getPosition() == static_cast<unsigned>(rank - 1) &&
            i + 1 != map.getNumResults())
          return false;
      }
    }
    unsigned bits = type.getElementType().getIntOrFloatBitWidth();
    if (bits % 8)
      return false;
    maxBytes = std::max(maxBytes, bits / 8);
  }
  for (int64_t size : shape)
    n *= size;
  if (!maxBytes || op.hasIndexSemantics() || rank == 0)
    return false;
  // 16 bytes of the widest operand per thread (8 lanes of f16/bf16).
  int64_t width = 16 / maxBytes;
  if (shape.back() % width || n / width == 0)
    return false;

  OpBuilder b(op);
  Location loc = op.getLoc();
  // 1-D views of the buffers, made on the host.
  auto flat = [&](Value v) -> Value {
    auto type = cast<MemRefType>(v.getType());
    if (type.getRank() == 1)
      return v;
    SmallVector<ReassociationIndices> all(1);
    for (int64_t d = 0; d < type.getRank(); ++d)
      all[0].push_back(d);
    return memref::CollapseShapeOp::create(b, loc, v, all);
  };
  SmallVector<Value> flats;
  for (OpOperand &operand : op->getOpOperands())
    flats.push_back(isa<MemRefType>(operand.get().getType()) &&
                            op.getMatchingIndexingMap(&operand).isIdentity()
                        ? flat(operand.get())
                        : operand.get());
  int64_t vectors = n / width;
  Kernel k =
      makeKernel(b, loc, index(b, loc, llvm::divideCeil(vectors, kBlockSize)),
                 kernels.nameFor(op));
  OpBuilder &kb = k.body;
  Value gid = globalThreadId(k, loc);
  Value inRange = arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ult, gid,
                                        index(kb, loc, vectors));
  OpBuilder tb = ifThen(kb, loc, inRange);
  Value base = arith::MulIOp::create(tb, loc, gid, index(tb, loc, width));
  // Load each operand the payload reads as one vector (or one scalar for
  // all lanes).
  SmallVector<Value> loaded(op->getNumOperands()), splat(op->getNumOperands());
  SmallVector<Value> ivs;
  for (OpOperand &operand : op->getOpOperands()) {
    unsigned i = operand.getOperandNumber();
    if (!isa<MemRefType>(operand.get().getType()) ||
        op.getMatchingBlockArgument(&operand).use_empty())
      continue;
    Type element = cast<MemRefType>(operand.get().getType()).getElementType();
    auto vt = VectorType::get({width}, element);
    auto align = llvm::MaybeAlign(width * element.getIntOrFloatBitWidth() / 8);
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (map.isIdentity()) {
      loaded[i] =
          vector::LoadOp::create(tb, loc, vt, flats[i], ValueRange{base},
                                 /*nontemporal=*/false, align);
      continue;
    }
    if (ivs.empty()) {
      SmallVector<Value> sizes;
      for (int64_t size : shape)
        sizes.push_back(index(tb, loc, size));
      ivs = delinearize(tb, loc, base, sizes);
    }
    SmallVector<Value> idx = applyMap(tb, loc, map, ivs);
    bool innermost = false;
    if (map.getNumResults())
      if (auto last = dyn_cast<AffineDimExpr>(map.getResults().back()))
        innermost = last.getPosition() == static_cast<unsigned>(rank - 1);
    if (innermost)
      loaded[i] = vector::LoadOp::create(tb, loc, vt, operand.get(), idx,
                                         /*nontemporal=*/false, align);
    else
      splat[i] = memref::LoadOp::create(tb, loc, operand.get(), idx);
  }
  SmallVector<SmallVector<Value>> results(op.getNumDpsInits());
  for (int64_t lane = 0; lane < width; ++lane) {
    IRMapping mapping;
    for (OpOperand &operand : op->getOpOperands()) {
      BlockArgument arg = op.getMatchingBlockArgument(&operand);
      if (arg.use_empty())
        continue;
      unsigned i = operand.getOperandNumber();
      mapping.map(
          arg,
          loaded[i]
              ? vector::ExtractOp::create(tb, loc, loaded[i], lane).getResult()
          : splat[i] ? splat[i]
                     : operand.get());
    }
    clonePayload(tb, op, {}, mapping);
    for (auto [i, v] :
         llvm::enumerate(op.getBlock()->getTerminator()->getOperands()))
      results[i].push_back(mapping.lookupOrDefault(v));
  }
  for (auto [i, init] : llvm::enumerate(op.getDpsInitsMutable())) {
    Type element = cast<MemRefType>(init.get().getType()).getElementType();
    auto vt = VectorType::get({width}, element);
    Value v = vector::FromElementsOp::create(tb, loc, vt, results[i]);
    vector::StoreOp::create(
        tb, loc, v, flats[init.getOperandNumber()], ValueRange{base},
        /*nontemporal=*/false,
        llvm::MaybeAlign(width * element.getIntOrFloatBitWidth() / 8));
  }
  op->erase();
  return true;
}

/// One thread per iteration point.
void gpu_lowering::lowerParallel(KernelBuilder &kernels, linalg::LinalgOp op) {
  if (lowerContiguous(kernels, op))
    return;
  OpBuilder b(op);
  Location loc = op.getLoc();
  SmallVector<Value> sizes = loopSizes(b, op);
  Value n = product(b, loc, sizes);
  auto [tb, gid] = launchPerItem(b, loc, n, kernels.nameFor(op));
  SmallVector<Value> ivs = delinearize(tb, loc, gid, sizes);
  IRMapping mapping;
  loadOperands(tb, loc, op, ivs, mapping, /*inits=*/true);
  clonePayload(tb, op, ivs, mapping);
  SmallVector<Value> yields;
  for (Value v : op.getBlock()->getTerminator()->getOperands())
    yields.push_back(mapping.lookupOrDefault(v));
  storeResults(tb, loc, op, ivs, yields);
  op->erase();
}
