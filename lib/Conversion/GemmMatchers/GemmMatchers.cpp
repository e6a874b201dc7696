//===- GemmMatchers.cpp - Matmuls a GEMM library computes -----------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Conversion/GemmMatchers.h"

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
