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

/// top_k -> an all-pairs comparison (for devices without its kernel: the
/// GPU). The rank of element j is the number of elements that come before
/// it (compared as [.., n, 1, ..] against [.., 1, n, ..] and summed over the
/// first); result position r takes the index whose rank is r (a sum over j
/// of j where rank_j == r). Logic on i1 is written with select, which every
/// device has for every type. Fails for a dynamic axis or k, and for more
/// than one dynamic dimension (the reshapes that add a unit dimension have
/// no shape operand).
FailureOr<Value> decomposeTopK(TopKOp op, OpBuilder &b, std::string &why) {
  auto type = op.getInput().getType();
  auto outType = op.getType();
  int64_t rank = type.getRank();
  int64_t axis = op.getNormalizedAxis();
  if (type.isDynamicDim(axis) || outType.isDynamicDim(axis)) {
    why = "the axis or k is known only at run time";
    return failure();
  }
  if (type.getNumDynamicDims() > 1) {
    why = "more than one dimension is dynamic";
    return failure();
  }
  int64_t n = type.getDimSize(axis), k = outType.getDimSize(axis);
  Type element = type.getElementType();
  Type i64 = b.getI64Type();
  Emitter e{b, op, "top_k"};
  // `v` with a unit dimension inserted at `at`.
  auto unitAt = [&](Value v, int64_t at) -> Value {
    auto t = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> shape(t.getShape());
    shape.insert(shape.begin() + at, 1);
    return e.make<ReshapeOp>(t.clone(shape), v);
  };
  // 0, 1, ..., len - 1 along dimension `at` of a rank + 1 i64 tensor.
  auto iotaAt = [&](int64_t len, int64_t at) -> Value {
    SmallVector<int64_t> shape(rank + 1, 1);
    shape[at] = len;
    SmallVector<APInt> values;
    for (int64_t i = 0; i < len; ++i)
      values.push_back(APInt(64, i));
    auto t = RankedTensorType::get(shape, i64);
    return e.make<ConstantOp>(t, DenseElementsAttr::get(t, values));
  };
  auto cmp = [&](CmpPredicate p, Value x, Value y) {
    return e.make<CmpOp>(p, x, y);
  };
  auto orOf = [&](Value x, Value y) { return e.make<SelectOp>(x, x, y); };
  auto andOf = [&](Value x, Value y) { return e.make<SelectOp>(x, y, x); };

  Value xi = unitAt(op.getInput(), axis + 1), xj = unitAt(op.getInput(), axis);
  bool smallest = op.getSmallest();
  Value before = cmp(smallest ? CmpPredicate::lt : CmpPredicate::gt, xi, xj);
  Value same = cmp(CmpPredicate::eq, xi, xj);
  if (isa<FloatType>(element)) {
    // NaN is the largest value: before every number (largest), after every
    // number (smallest); two NaNs are equal.
    Value nanI = cmp(CmpPredicate::ne, xi, xi);
    Value nanJ = cmp(CmpPredicate::ne, xj, xj);
    Value numI = cmp(CmpPredicate::eq, xi, xi);
    Value numJ = cmp(CmpPredicate::eq, xj, xj);
    before = smallest ? andOf(orOf(before, nanJ), numI)
                      : orOf(before, andOf(nanI, numJ));
    same = orOf(same, andOf(nanI, nanJ));
  }
  Value i = iotaAt(n, axis), j = iotaAt(n, axis + 1);
  before = orOf(before, andOf(same, cmp(CmpPredicate::lt, i, j)));
  auto boolType = cast<RankedTensorType>(before.getType());
  Value counts = e.make<CastOp>(boolType.clone(i64), before);
  Value ranks =
      e.make<ReduceSumOp>(counts, b.getDenseI64ArrayAttr({axis}), UnitAttr());
  Value pick = cmp(CmpPredicate::eq, unitAt(ranks, axis), iotaAt(k, axis));
  auto scalar = RankedTensorType::get({}, i64);
  Value none =
      e.make<ConstantOp>(scalar, DenseElementsAttr::get(scalar, APInt(64, 0)));
  Value chosen = e.make<SelectOp>(pick, j, none);
  return e.make<ReduceSumOp>(chosen, b.getDenseI64ArrayAttr({axis + 1}),
                             UnitAttr());
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
          .Case([&](TopKOp topK) { return decomposeTopK(topK, b, reason); })
          .Default([](Operation *) { return failure(); });
  if (failed(result) && why)
    *why = reason;
  return result;
}

void mlir::tide::populateDecompositionPatterns(RewritePatternSet &patterns) {
  patterns.add<DecomposeSoftmaxPattern<SoftmaxOp>,
               DecomposeSoftmaxPattern<LogSoftmaxOp>>(patterns.getContext());
}
