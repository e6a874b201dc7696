//===- GemmMatchers.cpp - Matmuls a GEMM library computes -----------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Conversion/GemmMatchers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tide;

bool mlir::tide::hasLibraryGemm(GemmLibrary library, Type element) {
  if (!element)
    return false;
  switch (library) {
  case GemmLibrary::HostBlas:
    return element.isF32() || element.isF64();
  case GemmLibrary::CuBlas:
    return element.isF16() || element.isBF16() || element.isF32() ||
           element.isF64();
  }
  llvm_unreachable("unknown GEMM library");
}

Type mlir::tide::getLibraryGemmElementType(linalg::MatmulOp op,
                                           bool transposedB) {
  if (!op.hasPureBufferSemantics() || op.hasUserDefinedMaps())
    return {};
  Type element;
  for (auto [i, v] : llvm::enumerate(op->getOperands())) {
    auto type = dyn_cast<MemRefType>(v.getType());
    if (!type || type.getRank() != 2)
      return {};
    if (element && type.getElementType() != element)
      return {};
    element = type.getElementType();
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)))
      return {};
    bool rowMajor = strides[1] == 1;
    bool columnMajor = transposedB && i == 1 && strides[0] == 1 &&
                       !ShapedType::isDynamic(strides[1]) &&
                       !type.isDynamicDim(0) &&
                       strides[1] >= type.getDimSize(0);
    if (!rowMajor && !columnMajor)
      return {};
  }
  return element;
}

bool mlir::tide::isLibraryGemm(linalg::MatmulOp op, GemmLibrary library) {
  return hasLibraryGemm(
      library, getLibraryGemmElementType(op, library == GemmLibrary::CuBlas));
}

SmallVector<BatchedGemmOperand>
mlir::tide::matchBatchedGemm(linalg::LinalgOp op, GemmLibrary library) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || !op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1)
    return {};
  int64_t loops = op.getNumLoops(), rank = loops - 1;
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  if (rank < 3 || iters.back() != utils::IteratorType::reduction ||
      op.getNumReductionLoops() != 1)
    return {};
  Type element;
  for (Value v : op->getOperands()) {
    auto type = dyn_cast<MemRefType>(v.getType());
    if (!type || (element && type.getElementType() != element))
      return {};
    element = type.getElementType();
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)) ||
        strides.back() != 1)
      return {};
  }
  if (!hasLibraryGemm(library, element))
    return {};
  // The payload: out + lhs * rhs.
  Block *block = op.getBlock();
  auto add =
      block->getTerminator()->getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return {};
  Value out = block->getArgument(2);
  Value product = add.getLhs() == out ? add.getRhs() : add.getLhs();
  auto mul = product.getDefiningOp<arith::MulFOp>();
  if (!mul || (add.getLhs() != out && add.getRhs() != out) ||
      !((mul.getLhs() == block->getArgument(0) &&
         mul.getRhs() == block->getArgument(1)) ||
        (mul.getLhs() == block->getArgument(1) &&
         mul.getRhs() == block->getArgument(0))) ||
      &block->front() != mul.getOperation() || mul->getNextNode() != add)
    return {};
  // Maps: result (d0 .. d(rank-1)), lhs (batch..., m, k), rhs (batch..., k,
  // n).
  MLIRContext *ctx = op.getContext();
  int64_t m = rank - 2, n = rank - 1, k = rank;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<AffineExpr> outExprs;
  for (int64_t d = 0; d < rank; ++d)
    outExprs.push_back(getAffineDimExpr(d, ctx));
  if (maps[2] != AffineMap::get(loops, 0, outExprs, ctx))
    return {};
  SmallVector<BatchedGemmOperand> result;
  for (auto [i, rows, cols] : {std::tuple<int, int64_t, int64_t>{0, m, k},
                               std::tuple<int, int64_t, int64_t>{1, k, n}}) {
    AffineMap map = maps[i];
    int64_t r = map.getNumResults(), batchRank = r - 2,
            offset = (rank - 2) - batchRank;
    if (batchRank < 0 || offset < 0 ||
        map.getResult(r - 2) != getAffineDimExpr(rows, ctx) ||
        map.getResult(r - 1) != getAffineDimExpr(cols, ctx))
      return {};
    BatchedGemmOperand operand{op->getOperand(i),
                               SmallVector<std::optional<int64_t>>(rank - 2)};
    for (int64_t b = 0; b < batchRank; ++b) {
      AffineExpr e = map.getResult(b);
      if (e == getAffineDimExpr(b + offset, ctx))
        operand.dimOf[b + offset] = b;
      else if (!(isa<AffineConstantExpr>(e) &&
                 cast<AffineConstantExpr>(e).getValue() == 0))
        return {};
    }
    result.push_back(operand);
  }
  BatchedGemmOperand c{op->getOperand(2),
                       SmallVector<std::optional<int64_t>>(rank - 2)};
  for (int64_t b = 0; b < rank - 2; ++b)
    c.dimOf[b] = b;
  result.push_back(c);
  return result;
}

linalg::FillOp mlir::tide::getZeroFillBefore(linalg::LinalgOp gemm) {
  auto fill = dyn_cast_or_null<linalg::FillOp>(gemm->getPrevNode());
  if (!fill || gemm.getNumDpsInits() == 0 ||
      fill.getDpsInits()[0] != gemm.getDpsInits()[0] ||
      !matchPattern(fill.getInputs()[0], m_AnyZeroFloat()))
    return {};
  return fill;
}

SmallVector<Value>
mlir::tide::buildBatchedGemmViews(OpBuilder &b, Location loc,
                                  ArrayRef<BatchedGemmOperand> operands,
                                  ArrayRef<Value> values, MemRefType viewType) {
  auto cType = cast<MemRefType>(operands[2].value.getType());
  int64_t batchRank = cType.getRank() - 2;
  auto index = [&](OpBuilder &ib, Location loc, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(ib, loc, v);
  };
  // Each operand's base, offset, sizes and strides.
  struct Meta {
    Value base, offset;
    SmallVector<Value> sizes, strides;
  };
  SmallVector<Meta> metas;
  for (Value v : values) {
    auto meta = memref::ExtractStridedMetadataOp::create(b, loc, v);
    Meta m;
    m.base = meta.getBaseBuffer();
    m.offset = meta.getOffset();
    m.sizes.assign(meta.getSizes().begin(), meta.getSizes().end());
    m.strides.assign(meta.getStrides().begin(), meta.getStrides().end());
    metas.push_back(m);
  }
  const Meta &cMeta = metas[2];
  // Batch dims [inner, batchRank) run as one library batch: outer ones join
  // it while, for every operand, they are all broadcast or all present with
  // static strides that step uniformly (a contiguous (batch, heads, ...)
  // tensor: attention's per-head matmuls in one call, not one per image).
  int64_t inner = batchRank - 1;
  SmallVector<int64_t> innerStride(operands.size(), 0), innerExtent;
  SmallVector<SmallVector<int64_t>> staticStrides;
  bool staticLayouts = true;
  for (const BatchedGemmOperand &operand : operands) {
    auto type = cast<MemRefType>(operand.value.getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)) ||
        !type.hasStaticShape() || llvm::any_of(strides, ShapedType::isDynamic))
      staticLayouts = false;
    staticStrides.push_back(strides);
  }
  int64_t extent = 1; // of the joined batch, static
  if (batchRank > 0 && staticLayouts) {
    extent = cType.getDimSize(batchRank - 1);
    for (auto [i, operand] : llvm::enumerate(operands))
      if (std::optional<int64_t> dim = operand.dimOf[batchRank - 1])
        innerStride[i] = staticStrides[i][*dim];
    while (inner > 0) {
      int64_t d = inner - 1;
      bool joins = true;
      for (auto [i, operand] : llvm::enumerate(operands)) {
        bool present = operand.dimOf[d].has_value();
        for (int64_t e = inner; e < batchRank; ++e)
          if (operand.dimOf[e].has_value() != present)
            joins = false;
        if (present &&
            staticStrides[i][*operand.dimOf[d]] != innerStride[i] * extent)
          joins = false;
      }
      if (!joins)
        break;
      extent *= cType.getDimSize(d);
      inner = d;
    }
  }
  // A right operand shared by every batch index (a linear layer's weight)
  // with lhs and result rows stepping uniformly through the batch dims: the
  // batch folds into the rows, one GEMM of (batch x m) rows (a library runs
  // one large GEMM faster than a strided batch of small ones).
  bool foldRows = false;
  if (staticLayouts && inner == 0 &&
      llvm::none_of(operands[1].dimOf,
                    [](std::optional<int64_t> d) { return d.has_value(); })) {
    foldRows = true;
    for (int64_t i : {0, 2}) {
      auto type = cast<MemRefType>(operands[i].value.getType());
      int64_t next = type.getRank() - 2; // m
      for (int64_t d = batchRank - 1; d >= 0 && foldRows; --d) {
        std::optional<int64_t> dim = operands[i].dimOf[d];
        foldRows = dim && *dim == next - 1 &&
                   staticStrides[i][next - 1] ==
                       staticStrides[i][next] * type.getDimSize(next);
        --next;
      }
      foldRows &= next == 0;
    }
  }
  // Host loops over the outer batch dims.
  SmallVector<Value> ivs;
  OpBuilder &ib = b;
  for (int64_t d = 0; d < inner; ++d) {
    auto loop = scf::ForOp::create(ib, loc, index(ib, loc, 0), cMeta.sizes[d],
                                   index(ib, loc, 1));
    ivs.push_back(loop.getInductionVar());
    ib.setInsertionPoint(loop.getBody()->getTerminator());
  }
  Value batch = inner + 1 < batchRank ? index(ib, loc, extent)
                                      : cMeta.sizes[batchRank - 1];
  SmallVector<Value> views;
  for (auto [i, operand, meta] : llvm::enumerate(operands, metas)) {
    Value offset = meta.offset;
    for (int64_t d = 0; d < inner; ++d)
      if (std::optional<int64_t> dim = operand.dimOf[d])
        offset = arith::AddIOp::create(
            ib, loc, offset,
            arith::MulIOp::create(ib, loc, ivs[d], meta.strides[*dim]));
    Value batchStride = index(ib, loc, 0);
    if (std::optional<int64_t> dim = operand.dimOf[batchRank - 1])
      batchStride = meta.strides[*dim];
    int64_t r = meta.sizes.size();
    OpFoldResult rows = meta.sizes[r - 2];
    if (foldRows) {
      batchStride = index(ib, loc, 0);
      if (i != 1)
        rows = ib.getIndexAttr(
            extent *
            cast<MemRefType>(operand.value.getType()).getDimSize(r - 2));
    }
    SmallVector<OpFoldResult> sizes{foldRows ? OpFoldResult(ib.getIndexAttr(1))
                                             : OpFoldResult(batch),
                                    rows, meta.sizes[r - 1]};
    SmallVector<OpFoldResult> strides{batchStride, meta.strides[r - 2],
                                      ib.getIndexAttr(1)};
    views.push_back(memref::ReinterpretCastOp::create(
        ib, loc, viewType, meta.base, OpFoldResult(offset), sizes, strides));
  }
  return views;
}
