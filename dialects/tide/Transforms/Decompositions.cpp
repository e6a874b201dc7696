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

/// reduce_mean -> reduce_sum / count. Fails, saying why in `why`, for
/// dynamic reduced dimensions and for f16/bf16.
FailureOr<Value> decomposeMean(ReduceMeanOp op, OpBuilder &b,
                               std::string &why) {
  auto type = op.getInput().getType();
  Type element = type.getElementType();
  // An f16/bf16 mean accumulates in f32 and is rounded once. As reduce_sum
  // then div, the sum would be rounded to the element type first: an f16
  // sum overflows above 65504 (the mean of 1024 values of 100 would be
  // +inf), bf16's is rounded to 8 bits, and the count is exact in neither
  // type beyond 2048 (f16) or 256 (bf16).
  if (element.isF16() || element.isBF16()) {
    why = "an f16/bf16 mean accumulates in f32 and rounds once, but "
          "reduce_sum would round the sum to the element type before the "
          "division (an f16 sum overflows above 65504)";
    return failure();
  }
  double count = 1;
  for (int64_t axis : op.getNormalizedAxes()) {
    if (type.isDynamicDim(axis)) {
      why = "a reduced dimension is dynamic, so there is no constant count";
      return failure();
    }
    count *= type.getDimSize(axis);
  }
  // The count must be exact in the element type (f32 above 2^24 may not
  // be): otherwise the rewrite would change the result.
  APFloat countValue(count);
  bool lost = false;
  countValue.convert(cast<FloatType>(element).getFloatSemantics(),
                     APFloat::rmNearestTiesToEven, &lost);
  if (lost || countValue.isInfinity()) {
    why = "the element count is not exact in the element type";
    return failure();
  }
  Emitter e{b, op, "reduce_mean"};
  Value sum = e.make<ReduceSumOp>(op.getInput(), op.getAxesAttr(),
                                  op.getKeepdimsAttr());
  auto scalarType = RankedTensorType::get({}, type.getElementType());
  auto countAttr = DenseElementsAttr::get(
      scalarType, b.getFloatAttr(type.getElementType(), count));
  Value n = e.make<ConstantOp>(scalarType, countAttr);
  return e.make<DivOp>(sum, n);
}

/// softmax / log_softmax -> max-subtracted exponentials and a sum (softmax
/// multiplies by the sum's reciprocal).
/// Fails for f16/bf16, which compute in f32 and round once: as primitives
/// every intermediate (the shifted values, the exponentials, their sum)
/// would be rounded to the element type.
template <typename OpTy>
FailureOr<Value> decomposeSoftmax(OpTy op, OpBuilder &b, bool log,
                                  std::string &why) {
  Type element = op.getInput().getType().getElementType();
  if (element.isF16() || element.isBF16()) {
    why = "an f16/bf16 softmax computes in f32 and rounds once, but its "
          "primitives would round every intermediate to the element type";
    return failure();
  }
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
  if (log)
    return e.make<SubOp>(shifted, e.make<LogOp>(sum));
  // One division per row, then products: as PyTorch and ONNX Runtime
  // compute it (a vector division costs 10-20 times a product; the result
  // may differ from exp / sum in the last place).
  auto scalarType = RankedTensorType::get({}, element);
  Value one = e.make<ConstantOp>(
      scalarType,
      DenseElementsAttr::get(scalarType, b.getFloatAttr(element, 1.0)));
  return e.make<MulOp>(exp, e.make<DivOp>(one, sum));
}

/// softmax / log_softmax -> primitives, as a pattern for other passes.
template <typename OpTy>
struct DecomposeSoftmaxPattern : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    std::string why;
    FailureOr<Value> result =
        decomposeSoftmax(op, rewriter, std::is_same_v<OpTy, LogSoftmaxOp>, why);
    if (failed(result))
      return failure();
    rewriter.replaceOp(op, *result);
    return success();
  }
};

} // namespace

FailureOr<Value> mlir::tide::decomposeCompositeOp(Operation *op, OpBuilder &b,
                                                  std::string *why) {
  std::string reason = "not a composite op";
  FailureOr<Value> result =
      llvm::TypeSwitch<Operation *, FailureOr<Value>>(op)
          .Case(
              [&](ReduceMeanOp mean) { return decomposeMean(mean, b, reason); })
          .Case([&](SoftmaxOp softmax) {
            return decomposeSoftmax(softmax, b, /*log=*/false, reason);
          })
          .Case([&](LogSoftmaxOp logSoftmax) {
            return decomposeSoftmax(logSoftmax, b, /*log=*/true, reason);
          })
          .Default([](Operation *) { return failure(); });
  if (failed(result) && why)
    *why = reason;
  return result;
}

void mlir::tide::populateDecompositionPatterns(RewritePatternSet &patterns) {
  patterns.add<DecomposeSoftmaxPattern<SoftmaxOp>,
               DecomposeSoftmaxPattern<LogSoftmaxOp>>(patterns.getContext());
}
