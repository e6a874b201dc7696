//===- SplitColumnReductions.cpp - Column and full reductions split -------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Lowering/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tide {
#define GEN_PASS_DEF_SPLITCOLUMNREDUCTIONSPASS
#include "tide/Lowering/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;
using namespace mlir::tide;

namespace {

/// Whether `op` runs on the host: no tide.device, or a CPU one.
bool onHost(Operation *op) {
  auto device = op->getAttrOfType<DeviceAttr>(TideDialect::getDeviceAttrName());
  return !device || device.isCPU();
}

/// Whether the reduction's combiner may be applied in another order: integer
/// ops, float min/max, and float sums and products that allow reassociation.
bool reorderable(linalg::GenericOp op) {
  SmallVector<Operation *, 4> combiners;
  if (!matchReduction(op.getRegionOutputArgs(), 0, combiners) ||
      combiners.size() != 1)
    return false;
  Operation *combiner = combiners.front();
  if (isa<arith::AddIOp, arith::MulIOp, arith::MaxSIOp, arith::MinSIOp,
          arith::MaxUIOp, arith::MinUIOp, arith::MaximumFOp, arith::MinimumFOp,
          arith::MaxNumFOp, arith::MinNumFOp>(combiner))
    return true;
  if (auto math = dyn_cast<arith::ArithFastMathInterface>(combiner))
    return isa<arith::AddFOp, arith::MulFOp>(combiner) &&
           arith::bitEnumContainsAll(math.getFastMathFlagsAttr().getValue(),
                                     arith::FastMathFlags::reassoc);
  return false;
}

struct SplitColumnReductionsPass
    : public tide::impl::SplitColumnReductionsPassBase<
          SplitColumnReductionsPass> {
  using Base::Base;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    // Full reductions that keep their rank (ONNX's keepdims, a 1x1 result)
    // reduce into a rank-0 tensor instead, reshaped back after.
    SmallVector<linalg::GenericOp> kept;
    getOperation().walk([&](linalg::GenericOp op) {
      if (keepsDims(op))
        kept.push_back(op);
    });
    for (linalg::GenericOp op : kept)
      toRankZero(op, rewriter);
    // Full reductions over several loops (a sum of a whole matrix) become
    // one loop over the collapsed operands first, which is then split.
    SmallVector<linalg::GenericOp> full;
    getOperation().walk([&](linalg::GenericOp op) {
      if (collapsible(op))
        full.push_back(op);
    });
    for (linalg::GenericOp op : full) {
      Attribute device = op->getAttr(TideDialect::getDeviceAttrName());
      ReassociationIndices all =
          llvm::to_vector(llvm::seq<int64_t>(0, op.getNumLoops()));
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::CollapseResult> collapsed =
          linalg::collapseOpIterationDims(
              cast<linalg::LinalgOp>(op.getOperation()), {all}, rewriter);
      if (failed(collapsed))
        continue;
      // The reshapes of the operands and the new op run where the op did.
      if (device) {
        collapsed->collapsedOp->setAttr(TideDialect::getDeviceAttrName(),
                                        device);
        for (Value operand : collapsed->collapsedOp->getOperands())
          if (Operation *reshape = operand.getDefiningOp())
            if (isa<tensor::CollapseShapeOp>(reshape))
              reshape->setAttr(TideDialect::getDeviceAttrName(), device);
      }
      rewriter.replaceOp(op, collapsed->results);
    }
    SmallVector<linalg::GenericOp> candidates;
    getOperation().walk([&](linalg::GenericOp op) {
      if (split(op))
        candidates.push_back(op);
    });
    for (linalg::GenericOp op : candidates) {
      int64_t rows = op.getStaticLoopRanges()[0];
      int64_t ratio = parts(rows);
      if (ratio == 0)
        continue;
      Attribute device = op->getAttr(TideDialect::getDeviceAttrName());
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::SplitReductionResult> result = linalg::splitReduction(
          rewriter, cast<linalg::LinalgOp>(op.getOperation()),
          [&](linalg::LinalgOp) {
            return linalg::SplitReductionOptions{ratio, 0,
                                                 /*innerParallel=*/false};
          });
      if (failed(result) || !device)
        continue;
      for (Operation *made :
           {result->fillOp.getOperation(), result->splitLinalgOp.getOperation(),
            result->resultCombiningLinalgOp.getOperation()})
        if (made)
          made->setAttr(TideDialect::getDeviceAttrName(), device);
    }
  }

  /// A host full reduction into an all-ones tensor of some rank (every loop
  /// a reduction, the result's map all zeros), large enough to split.
  bool keepsDims(linalg::GenericOp op) {
    if (!onHost(op) || !op.hasPureTensorSemantics() ||
        op.getNumDpsInits() != 1 || op.getNumResults() != 1 ||
        op.getNumReductionLoops() != op.getNumLoops() || !bigEnough(op) ||
        !reorderable(op))
      return false;
    auto init = dyn_cast<RankedTensorType>(op.getDpsInits()[0].getType());
    if (!init || init.getRank() == 0 || !init.hasStaticShape() ||
        init.getNumElements() != 1)
      return false;
    AffineMap map = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    return llvm::all_of(map.getResults(), [](AffineExpr e) {
      auto c = dyn_cast<AffineConstantExpr>(e);
      return c && c.getValue() == 0;
    });
  }

  /// `op` (keepsDims) rewritten to reduce into a rank-0 tensor: its init
  /// collapsed, the same body, the result expanded back.
  void toRankZero(linalg::GenericOp op, IRRewriter &rewriter) {
    Attribute device = op->getAttr(TideDialect::getDeviceAttrName());
    rewriter.setInsertionPoint(op);
    Location loc = op.getLoc();
    Value init = op.getDpsInits()[0];
    auto initType = cast<RankedTensorType>(init.getType());
    auto scalar = RankedTensorType::get({}, initType.getElementType());
    Value collapsed = tensor::CollapseShapeOp::create(
        rewriter, loc, scalar, init, SmallVector<ReassociationIndices>{});
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    maps.back() = AffineMap::get(op.getNumLoops(), 0, {}, op.getContext());
    auto reduced = linalg::GenericOp::create(
        rewriter, loc, TypeRange{scalar}, op.getDpsInputs(),
        ValueRange{collapsed}, maps, op.getIteratorTypesArray());
    rewriter.inlineRegionBefore(op.getRegion(), reduced.getRegion(),
                                reduced.getRegion().end());
    auto expanded = tensor::ExpandShapeOp::create(
        rewriter, loc, initType, reduced.getResult(0),
        SmallVector<ReassociationIndices>{});
    if (device)
      for (Operation *made : {collapsed.getDefiningOp(), reduced.getOperation(),
                              expanded.getOperation()})
        made->setAttr(TideDialect::getDeviceAttrName(), device);
    rewriter.replaceOp(op, expanded);
  }

  /// A host reduction of every loop of `op` into a scalar (several loops,
  /// each operand read whole and in order), of at least `min-elements`
  /// iterations, all static: collapsed to one loop, then split.
  bool collapsible(linalg::GenericOp op) {
    if (!onHost(op) || !op.hasPureTensorSemantics() ||
        op.getNumDpsInits() != 1 || op.getNumLoops() < 2 ||
        op.getNumReductionLoops() != op.getNumLoops() || !bigEnough(op) ||
        !reorderable(op))
      return false;
    for (OpOperand *input : op.getDpsInputOperands())
      if (!op.getMatchingIndexingMap(input).isIdentity())
        return false;
    auto init = dyn_cast<RankedTensorType>(op.getDpsInits()[0].getType());
    return init && init.getRank() == 0;
  }

  /// Whether `op`'s loops are static and at least `min-elements`
  /// iterations in all.
  bool bigEnough(linalg::GenericOp op) {
    int64_t work = 1;
    for (int64_t range : op.getStaticLoopRanges()) {
      if (ShapedType::isDynamic(range))
        return false;
      work *= range;
    }
    return work >= minElements;
  }

  /// A host reduction over its outermost loop only, with parallel loops
  /// inside it (a sum over the rows of a matrix, per column) or none (a
  /// full reduction of one loop: the parts are contiguous slices), of at
  /// least `min-elements` iterations, all static.
  bool split(linalg::GenericOp op) {
    if (!onHost(op) || !op.hasPureTensorSemantics() ||
        op.getNumDpsInits() != 1 || op.getNumReductionLoops() != 1)
      return false;
    SmallVector<utils::IteratorType> kinds = op.getIteratorTypesArray();
    if (kinds[0] != utils::IteratorType::reduction)
      return false;
    return bigEnough(op) && reorderable(op);
  }

  /// How many parts `rows` are split into: a power of two that divides
  /// them, at most kMaxParts, and no more than leave kMinPartRows rows a
  /// part (the partial results are written, read back and combined: per
  /// pass over the input, parts / rows of its traffic again; a column sum
  /// over 4096x2048 f32 on one thread took 1.05x its unsplit time in 64
  /// parts, 1.00x in 16), but kMinParts where the rows allow (2 rows a part
  /// at least), so that short matrices still use that many threads. 0 when
  /// there are no two parts.
  static int64_t parts(int64_t rows) {
    for (int64_t r = kMaxParts; r >= 2; r /= 2)
      if (rows % r == 0 && rows / r >= 2 &&
          (rows / r >= kMinPartRows || r <= kMinParts))
        return r;
    return 0;
  }

  static constexpr int64_t kMaxParts = 64;
  static constexpr int64_t kMinParts = 16;
  static constexpr int64_t kMinPartRows = 256;
};

} // namespace
