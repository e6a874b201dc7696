//===- TileTransposes.cpp - Transposes in cache-sized tiles ---------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Lowering/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tide {
#define GEN_PASS_DEF_TILETRANSPOSESPASS
#include "tide/Lowering/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;
using namespace mlir::tide;

namespace {

/// For a buffer-level, all-parallel linalg op with one input read through a
/// permutation that moves the innermost dimension and an identity-mapped
/// result: the two loops to tile (the result's innermost one and the loop
/// that indexes the input's innermost dimension). None otherwise.
std::optional<std::pair<unsigned, unsigned>>
transposedLoops(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 1 ||
      op.getNumDpsInits() != 1 || op.getNumLoops() < 2 ||
      op.getNumParallelLoops() != op.getNumLoops())
    return std::nullopt;
  AffineMap in = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!out.isIdentity() || !in.isPermutation() || in.isIdentity())
    return std::nullopt;
  unsigned rank = op.getNumLoops();
  unsigned inInner = cast<AffineDimExpr>(in.getResult(rank - 1)).getPosition();
  if (inInner == rank - 1)
    return std::nullopt; // contiguous rows on both sides
  // Both sides must be memrefs with unit innermost strides for tiles to help.
  for (Value v :
       {op.getDpsInputOperand(0)->get(), op.getDpsInitOperand(0)->get()}) {
    auto type = dyn_cast<MemRefType>(v.getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    if (!type || failed(type.getStridesAndOffset(strides, offset)) ||
        strides.back() != 1)
      return std::nullopt;
  }
  return std::make_pair(inInner, rank - 1);
}

struct TileTransposesPass
    : public tide::impl::TileTransposesPassBase<TileTransposesPass> {
  using Base::Base;

  void runOnOperation() override {
    if (tileSize < 1) {
      getOperation().emitError() << "tide-tile-transposes: invalid 'tile-size' "
                                 << static_cast<int64_t>(tileSize)
                                 << "; expected a positive number of elements";
      return signalPassFailure();
    }
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (!op->getParentOfType<scf::ParallelOp>() && transposedLoops(op))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops) {
      auto [a, b] = *transposedLoops(op);
      SmallVector<int64_t> sizes(op.getNumLoops(), 0);
      sizes[a] = sizes[b] = tileSize;
      linalg::LinalgTilingOptions options;
      options.setTileSizes(sizes).setLoopType(
          linalg::LinalgTilingLoopType::ParallelLoops);
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::TiledLinalgOp> tiled =
          linalg::tileLinalgOp(rewriter, op, options);
      if (failed(tiled))
        continue; // left as it is: still correct, only slower
      rewriter.eraseOp(op);
    }
  }
};

} // namespace
