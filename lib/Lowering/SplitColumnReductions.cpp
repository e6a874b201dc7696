//===- SplitColumnReductions.cpp - Column reductions split over rows ------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Lowering/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
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
    SmallVector<linalg::GenericOp> candidates;
    getOperation().walk([&](linalg::GenericOp op) {
      if (split(op))
        candidates.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : candidates) {
      int64_t rows = op.getStaticLoopRanges()[0];
      int64_t ratio = 0;
      for (int64_t r = kMaxParts; r >= 2; r /= 2)
        if (rows % r == 0 && rows / r >= 2) {
          ratio = r;
          break;
        }
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

  /// A host reduction over its outermost loop only, with parallel loops
  /// inside it (a sum over the rows of a matrix, per column), of at least
  /// `min-elements` iterations, all static.
  bool split(linalg::GenericOp op) {
    if (!onHost(op) || !op.hasPureTensorSemantics() ||
        op.getNumDpsInits() != 1 || op.getNumReductionLoops() != 1 ||
        op.getNumLoops() < 2)
      return false;
    SmallVector<utils::IteratorType> kinds = op.getIteratorTypesArray();
    if (kinds[0] != utils::IteratorType::reduction)
      return false;
    int64_t work = 1;
    for (int64_t range : op.getStaticLoopRanges()) {
      if (ShapedType::isDynamic(range))
        return false;
      work *= range;
    }
    return work >= minElements && reorderable(op);
  }

  static constexpr int64_t kMaxParts = 64;
};

} // namespace
