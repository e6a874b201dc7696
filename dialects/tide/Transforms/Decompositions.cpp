//===- Decompositions.cpp - Composite tide ops into primitives -----------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Transforms/Decompositions.h"

#include "tide/IR/TideOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tide;

namespace {

/// Builds the primitives of one composite, marking each new op with its
/// origin and the original op's pin and colocation.
struct Emitter {
  OpBuilder &b;
  Operation *origin;
  StringRef originName;
  /// Whether new ops inherit the origin's pin and colocation group.
  bool inherit = true;

  template <typename OpTy, typename... Args>
  Value make(Args &&...args) {
    auto op = OpTy::create(b, origin->getLoc(), std::forward<Args>(args)...);
    op->setAttr(kDecomposedAttrName, b.getStringAttr(originName));
    if (!inherit)
      return op.getResult();
    if (DeviceAttr pin = getDevice(origin))
      setDevice(op, pin);
    if (StringRef group = getColocationGroup(origin); !group.empty())
      op->setAttr(TideDialect::getColocateAttrName(), b.getStringAttr(group));
    return op.getResult();
  }
};

/// reduce_mean -> reduce_sum / count. Fails for dynamic reduced dimensions.
FailureOr<Value> decomposeMean(ReduceMeanOp op, OpBuilder &b) {
  auto type = op.getInput().getType();
  double count = 1;
  for (int64_t axis : op.getNormalizedAxes()) {
    if (type.isDynamicDim(axis))
      return failure();
    count *= type.getDimSize(axis);
  }
  // The count must be exact in the element type (f16 tops out at 65504, bf16
  // rounds above 256): otherwise the rewrite would change the result.
  APFloat countValue(count);
  bool lost = false;
  countValue.convert(cast<FloatType>(type.getElementType()).getFloatSemantics(),
                     APFloat::rmNearestTiesToEven, &lost);
  if (lost || countValue.isInfinity())
    return failure();
  Emitter e{b, op, "reduce_mean"};
  Value sum = e.make<ReduceSumOp>(op.getInput(), op.getAxesAttr(),
                                  op.getKeepdimsAttr());
  auto scalarType = RankedTensorType::get({}, type.getElementType());
  auto countAttr = DenseElementsAttr::get(
      scalarType, b.getFloatAttr(type.getElementType(), count));
  Value n = e.make<ConstantOp>(scalarType, countAttr);
  return e.make<DivOp>(sum, n);
}

/// softmax / log_softmax -> max-subtracted exponentials and a sum.
template <typename OpTy>
FailureOr<Value> decomposeSoftmax(OpTy op, OpBuilder &b, bool log) {
  int64_t rank = op.getInput().getType().getRank();
  int64_t axis = static_cast<int64_t>(op.getAxis());
  if (axis < 0)
    axis += rank;
  Emitter e{b, op, log ? "log_softmax" : "softmax"};
  auto axes = b.getDenseI64ArrayAttr({axis});
  auto keep = b.getUnitAttr();
  Value max = e.make<ReduceMaxOp>(op.getInput(), axes, keep);
  Value shifted = e.make<SubOp>(op.getInput(), max);
  Value exp = e.make<ExpOp>(shifted);
  Value sum = e.make<ReduceSumOp>(exp, axes, keep);
  return log ? e.make<SubOp>(shifted, e.make<LogOp>(sum))
             : e.make<DivOp>(exp, sum);
}

/// softmax / log_softmax -> primitives, as a pattern for other passes.
template <typename OpTy>
struct DecomposeSoftmaxPattern : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    FailureOr<Value> result =
        decomposeSoftmax(op, rewriter, std::is_same_v<OpTy, LogSoftmaxOp>);
    if (failed(result))
      return failure();
    rewriter.replaceOp(op, *result);
    return success();
  }
};

} // namespace

FailureOr<Value> mlir::tide::decomposeCompositeOp(Operation *op, OpBuilder &b) {
  return llvm::TypeSwitch<Operation *, FailureOr<Value>>(op)
      .Case([&](ReduceMeanOp mean) { return decomposeMean(mean, b); })
      .Case([&](SoftmaxOp softmax) {
        return decomposeSoftmax(softmax, b, /*log=*/false);
      })
      .Case([&](LogSoftmaxOp logSoftmax) {
        return decomposeSoftmax(logSoftmax, b, /*log=*/true);
      })
      .Default([](Operation *) { return failure(); });
}

void mlir::tide::populateDecompositionPatterns(RewritePatternSet &patterns) {
  patterns.add<DecomposeSoftmaxPattern<SoftmaxOp>,
               DecomposeSoftmaxPattern<LogSoftmaxOp>>(patterns.getContext());
}
