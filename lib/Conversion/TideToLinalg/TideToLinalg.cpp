//===- TideToLinalg.cpp - tide ops to linalg, tensor and arith -----------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// Every tide op becomes upstream tensor-level IR: elementwise ops (with NumPy
// broadcasting through indexing maps) and reductions become linalg.generic,
// matmul linalg.matmul / linalg.generic, transpose linalg.transpose, concat
// tensor.concat, slice tensor.extract_slice, reshape tensor.reshape, constants
// arith.constant. Composites are decomposed first. A size-1 dimension
// broadcasts statically; a dynamic dimension is assumed to match the other
// operand (it is not broadcast at run time).
//
//===----------------------------------------------------------------------===//

#include "tide/Conversion/TideToLinalg/TideToLinalg.h"

#include "LoweringUtils.h"

#include "tide/Conversion/Passes.h"

#include "tide/IR/TideOps.h"
#include "tide/Transforms/Decompositions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/TypeSwitch.h"

#include <functional>

namespace mlir::tide {
#define GEN_PASS_DEF_CONVERTTIDETOLINALGPASS
#include "tide/Conversion/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;
using namespace mlir::tide;
using namespace mlir::tide::to_linalg;

namespace {

using BodyFn =
    function_ref<Value(OpBuilder &, Location, ValueRange /*scalars*/)>;

/// The dynamic sizes of `resultType`, read from operands aligned to it by
/// NumPy's trailing-dimension rule.
SmallVector<Value> dynamicSizes(OpBuilder &b, Location loc,
                                RankedTensorType resultType,
                                ValueRange operands) {
  SmallVector<Value> sizes;
  int64_t rank = resultType.getRank();
  for (int64_t d = 0; d < rank; ++d) {
    if (!resultType.isDynamicDim(d))
      continue;
    Value size;
    for (Value operand : operands) {
      auto type = cast<RankedTensorType>(operand.getType());
      int64_t i = d - (rank - type.getRank());
      if (i >= 0 && type.isDynamicDim(i)) {
        size = tensor::DimOp::create(b, loc, operand, i);
        break;
      }
    }
    // A result dimension left dynamic although an operand knows it (a cast
    // to a less static type): take the operand's static size.
    for (Value operand : operands) {
      if (size)
        break;
      auto type = cast<RankedTensorType>(operand.getType());
      int64_t i = d - (rank - type.getRank());
      if (i >= 0 && !type.isDynamicDim(i) && type.getDimSize(i) != 1)
        size = arith::ConstantIndexOp::create(b, loc, type.getDimSize(i));
    }
    if (!size)
      size = arith::ConstantIndexOp::create(b, loc, 1);
    sizes.push_back(size);
  }
  return sizes;
}

/// Indexing map reading `type` inside a loop nest over `resultType`.
AffineMap broadcastMap(MLIRContext *ctx, RankedTensorType type,
                       RankedTensorType resultType) {
  int64_t rank = resultType.getRank(), offset = rank - type.getRank();
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    int64_t d = i + offset;
    if (type.getDimSize(i) == 1 && resultType.getDimSize(d) != 1)
      exprs.push_back(getAffineConstantExpr(0, ctx));
    else
      exprs.push_back(getAffineDimExpr(d, ctx));
  }
  return AffineMap::get(rank, 0, exprs, ctx);
}

/// A linalg.generic computing `body` elementwise over broadcast operands.
/// `sizes`, when given, are the result's dynamic sizes; otherwise they are
/// read from the operands.
Value buildElementwise(RewriterBase &b, Location loc,
                       RankedTensorType resultType, ValueRange operands,
                       BodyFn body,
                       std::optional<SmallVector<Value>> sizes = std::nullopt) {
  MLIRContext *ctx = b.getContext();
  Value init = tensor::EmptyOp::create(
      b, loc, resultType.getShape(), resultType.getElementType(),
      sizes ? *sizes : dynamicSizes(b, loc, resultType, operands));
  SmallVector<AffineMap> maps;
  for (Value operand : operands)
    maps.push_back(broadcastMap(ctx, cast<RankedTensorType>(operand.getType()),
                                resultType));
  maps.push_back(b.getMultiDimIdentityMap(resultType.getRank()));
  SmallVector<utils::IteratorType> iterators(resultType.getRank(),
                                             utils::IteratorType::parallel);
  bool hasBody = true;
  auto generic = linalg::GenericOp::create(
      b, loc, resultType, operands, init, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value v = body(nb, nloc, args.drop_back());
        hasBody = static_cast<bool>(v);
        linalg::YieldOp::create(nb, nloc, v ? v : args.back());
      });
  if (!hasBody) {
    // No scalar code for this op: undo, so the pattern can fail cleanly.
    b.eraseOp(generic);
    b.eraseOp(init.getDefiningOp());
    return {};
  }
  return generic.getResult(0);
}

} // namespace

namespace mlir::tide::to_linalg {

bool isFloat(Type t) { return isa<FloatType>(t); }

void assertThat(OpBuilder &b, Location loc, Operation *op, Value holds,
                const Twine &what) {
  std::string where;
  llvm::raw_string_ostream os(where);
  op->getLoc().print(os);
  StringRef place(where);
  if (place.consume_front("loc(") && place.ends_with(")"))
    place = place.drop_back();
  cf::AssertOp::create(
      b, loc, holds,
      ("'" + op->getName().getStringRef() + "' at " + place + ": " + what)
          .str());
}

void assertSameSize(OpBuilder &b, Location loc, Operation *op, Value got,
                    Value want, const Twine &what) {
  std::optional<int64_t> g = getConstantIntValue(got),
                         w = getConstantIntValue(want);
  if (got == want || (g && w && *g == *w))
    return;
  Value same =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, got, want);
  assertThat(b, loc, op, same, what);
}

//===----------------------------------------------------------------------===//
// Unsigned integers
//===----------------------------------------------------------------------===//
//
// linalg and arith take signless integers only. A pattern lowering a tide op
// on uiN tensors computes on iN tensors (the same bits), choosing the
// unsigned arith ops where the semantics differ (divui, remui, cmpi ult,
// maxui, extui, uitofp, ...), and casts its operands and results with
// builtin.unrealized_conversion_cast. The casts cancel once the function
// boundary is signless too (convertUnsignedBoundary, at the end of the pass),
// so no unsigned type is left after convert-tide-to-linalg.

/// `type` with unsigned integers (as element types too) made signless.
Type signless(Type type) {
  if (auto integer = dyn_cast<IntegerType>(type);
      integer && !integer.isSignless())
    return IntegerType::get(type.getContext(), integer.getWidth());
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.clone(signless(tensor.getElementType()));
  return type;
}

/// `v` cast to `type` (a no-op when it has that type already).
Value castTo(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  return UnrealizedConversionCastOp::create(b, loc, type, v).getResult(0);
}

SmallVector<Value> toSignless(OpBuilder &b, Location loc, ValueRange values) {
  SmallVector<Value> out;
  for (Value v : values)
    out.push_back(castTo(b, loc, v, signless(v.getType())));
  return out;
}

/// Replaces `op` by `results` (computed on signless types), cast back to
/// the op's own result types.
void replaceFromSignless(RewriterBase &rewriter, Operation *op,
                         ValueRange results) {
  SmallVector<Value> cast;
  for (auto [r, old] : llvm::zip_equal(results, op->getResults()))
    cast.push_back(castTo(rewriter, op->getLoc(), r, old.getType()));
  rewriter.replaceOp(op, cast);
}

/// Whether `v`'s elements are unsigned integers.
bool isUnsignedValue(Value v) {
  return isUnsignedElement(getElementTypeOrSelf(v.getType()));
}

Value constantOf(OpBuilder &b, Location loc, Type type, double value) {
  if (auto ft = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(ft, value));
  return arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(type, static_cast<int64_t>(value)));
}

/// f16 and bf16 compute in f32 and are rounded once, at the end of an op.
bool isNarrowFloat(Type t) { return t.isF16() || t.isBF16(); }

/// The lowest value of `type`: -inf, or the minimum signed integer.
Value lowestOf(OpBuilder &b, Location loc, Type type) {
  if (auto ft = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(
        b, loc,
        b.getFloatAttr(ft, APFloat::getInf(ft.getFloatSemantics(),
                                           /*Negative=*/true)));
  return arith::ConstantOp::create(
      b, loc,
      b.getIntegerAttr(type,
                       APInt::getSignedMinValue(type.getIntOrFloatBitWidth())));
}

// Whether `op` runs on a GPU. The GPU lowering accumulates f16/bf16
// reductions in f32 itself (convert-linalg-to-gpu), and f16/bf16 GEMMs go to
// cuBLAS with f32 compute, so those keep their element type in the IR.
bool placedOnGPU(Operation *op) {
  DeviceAttr device = getDevice(op);
  return device && device.isGPU();
}

//===----------------------------------------------------------------------===//
// Convolution and pooling windows
//===----------------------------------------------------------------------===//

OpFoldResult windowOutputSize(OpBuilder &b, Location loc, Value input,
                              int64_t dim, int64_t kernel, int64_t stride,
                              int64_t dilation, int64_t padBegin,
                              int64_t padEnd, bool ceilMode) {
  int64_t size = cast<RankedTensorType>(input.getType()).getDimSize(dim);
  if (!ShapedType::isDynamic(size))
    return b.getIndexAttr(
        std::max<int64_t>(0, getWindowOutputSize(size, kernel, stride, dilation,
                                                 padBegin, padEnd, ceilMode)));
  auto idx = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value d = tensor::DimOp::create(b, loc, input, dim);
  int64_t extent = dilation * (kernel - 1) + 1;
  // span = D + begin + end - extent; out = span / stride (rounded down, or
  // up with ceil_mode) + 1.
  Value span =
      arith::AddIOp::create(b, loc, d, idx(padBegin + padEnd - extent));
  Value out =
      ceilMode
          ? arith::CeilDivSIOp::create(b, loc, span, idx(stride)).getResult()
          : arith::FloorDivSIOp::create(b, loc, span, idx(stride)).getResult();
  out = arith::AddIOp::create(b, loc, out, idx(1));
  if (ceilMode) {
    // A last window starting in the end padding is dropped.
    Value lastStart = arith::MulIOp::create(
        b, loc, arith::SubIOp::create(b, loc, out, idx(1)), idx(stride));
    Value inPadding =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, lastStart,
                              arith::AddIOp::create(b, loc, d, idx(padBegin)));
    out = arith::SelectOp::create(
        b, loc, inPadding, arith::SubIOp::create(b, loc, out, idx(1)), out);
  }
  return arith::MaxSIOp::create(b, loc, out, idx(0)).getResult();
}

SmallVector<OpFoldResult> windowResultSizes(
    OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> shape,
    int64_t firstSpatial, ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
    ArrayRef<int64_t> dilations, ArrayRef<int64_t> pads, bool ceilMode) {
  int64_t k = kernel.size();
  SmallVector<OpFoldResult> sizes;
  for (auto [d, size] : llvm::enumerate(shape)) {
    int64_t i = static_cast<int64_t>(d) - firstSpatial;
    if (!ShapedType::isDynamic(size))
      sizes.push_back(b.getIndexAttr(size));
    else if (i >= 0 && i < k)
      sizes.push_back(windowOutputSize(b, loc, input, d, kernel[i], strides[i],
                                       dilations[i], pads[i], pads[k + i],
                                       ceilMode));
    else
      sizes.push_back(tensor::DimOp::create(b, loc, input, d).getResult());
  }
  return sizes;
}

Value filledOfSizes(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                    Value value) {
  Value empty = tensor::EmptyOp::create(b, loc, sizes, value.getType());
  return linalg::FillOp::create(b, loc, value, empty).getResult(0);
}

} // namespace mlir::tide::to_linalg

namespace {

/// The type a sum, a product or a dot product of `element` values
/// accumulates in: f32 for f16/bf16 (rounded once, at the end), except
/// where the device's lowering does that itself; `element` otherwise. A mean
/// is divided after its sum, so it always accumulates in f32 (an f16 sum
/// over many elements overflows, and so does its element count).
Type accumulatorType(Operation *op, Type element) {
  if (!isNarrowFloat(element) ||
      !isa<ReduceSumOp, ReduceProdOp, ReduceMeanOp, MatmulOp>(op) ||
      (!isa<ReduceMeanOp>(op) && placedOnGPU(op)))
    return element;
  return Float32Type::get(element.getContext());
}

/// Scalar code of each elementwise op.
Value scalarUnary(Operation *op, OpBuilder &b, Location loc, Value x,
                  bool isUnsigned) {
  Type t = x.getType();
  bool f = isFloat(t);
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case([&](NegOp) -> Value {
        if (f)
          return arith::NegFOp::create(b, loc, x);
        return arith::SubIOp::create(b, loc, constantOf(b, loc, t, 0), x);
      })
      .Case([&](AbsOp) -> Value {
        if (f)
          return math::AbsFOp::create(b, loc, x);
        if (isUnsigned)
          return x;
        return math::AbsIOp::create(b, loc, x);
      })
      .Case([&](ExpOp) -> Value { return math::ExpOp::create(b, loc, x); })
      .Case([&](LogOp) -> Value { return math::LogOp::create(b, loc, x); })
      .Case([&](SqrtOp) -> Value { return math::SqrtOp::create(b, loc, x); })
      .Case([&](RsqrtOp) -> Value { return math::RsqrtOp::create(b, loc, x); })
      .Case([&](TanhOp) -> Value { return math::TanhOp::create(b, loc, x); })
      .Case([&](SigmoidOp) -> Value {
        // e = exp(-|x|) never overflows: 1 / (1 + e) for x >= 0 and
        // e / (1 + e) below, so that results down to the smallest subnormal
        // are kept (1 / (1 + exp(-x)) is 0 once exp(-x) overflows, from
        // x < -88.7 in f32, where the sigmoid is still about 1e-39).
        Value one = constantOf(b, loc, t, 1);
        Value e = math::ExpOp::create(
            b, loc,
            arith::NegFOp::create(b, loc, math::AbsFOp::create(b, loc, x)));
        Value nonNegative = arith::CmpFOp::create(
            b, loc, arith::CmpFPredicate::OGE, x, constantOf(b, loc, t, 0));
        Value numerator = arith::SelectOp::create(b, loc, nonNegative, one, e);
        return arith::DivFOp::create(b, loc, numerator,
                                     arith::AddFOp::create(b, loc, one, e));
      })
      .Case([&](ReluOp) -> Value {
        Value zero = constantOf(b, loc, t, 0);
        if (f)
          return arith::MaximumFOp::create(b, loc, x, zero);
        if (isUnsigned)
          return x;
        return arith::MaxSIOp::create(b, loc, x, zero);
      })
      .Case([&](EluOp elu) -> Value {
        Value zero = constantOf(b, loc, t, 0);
        Value alpha = constantOf(b, loc, t, elu.getAlpha().convertToDouble());
        Value neg = arith::MulFOp::create(b, loc, alpha,
                                          math::ExpM1Op::create(b, loc, x));
        Value positive =
            arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, zero);
        return arith::SelectOp::create(b, loc, positive, x, neg);
      })
      .Case([&](FloorOp) -> Value { return math::FloorOp::create(b, loc, x); })
      .Case([&](CeilOp) -> Value { return math::CeilOp::create(b, loc, x); })
      .Case([&](RoundOp) -> Value {
        return math::RoundEvenOp::create(b, loc, x);
      })
      .Case([&](SinOp) -> Value { return math::SinOp::create(b, loc, x); })
      .Case([&](CosOp) -> Value { return math::CosOp::create(b, loc, x); })
      .Case([&](ErfOp) -> Value { return math::ErfOp::create(b, loc, x); })
      .Case([&](TanOp) -> Value { return math::TanOp::create(b, loc, x); })
      .Case([&](AsinOp) -> Value { return math::AsinOp::create(b, loc, x); })
      .Case([&](AcosOp) -> Value { return math::AcosOp::create(b, loc, x); })
      .Case([&](AtanOp) -> Value { return math::AtanOp::create(b, loc, x); })
      .Case([&](SinhOp) -> Value { return math::SinhOp::create(b, loc, x); })
      .Case([&](CoshOp) -> Value { return math::CoshOp::create(b, loc, x); })
      .Case([&](AsinhOp) -> Value { return math::AsinhOp::create(b, loc, x); })
      .Case([&](AcoshOp) -> Value { return math::AcoshOp::create(b, loc, x); })
      .Case([&](AtanhOp) -> Value { return math::AtanhOp::create(b, loc, x); })
      .Case([&](SignOp) -> Value {
        Value zero = constantOf(b, loc, t, 0);
        if (isUnsigned)
          // x != 0.
          return arith::ExtUIOp::create(
              b, loc, t,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x, zero));
        if (!f) {
          // (x > 0) - (x < 0).
          Value pos = arith::ExtUIOp::create(
              b, loc, t,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, x,
                                    zero));
          Value neg = arith::ExtUIOp::create(
              b, loc, t,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x,
                                    zero));
          return arith::SubIOp::create(b, loc, pos, neg);
        }
        // Ordered comparisons are false for NaN, which falls through as is;
        // both zeros give +0.
        Value isZero =
            arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x, zero);
        Value r = arith::SelectOp::create(b, loc, isZero, zero, x);
        Value neg =
            arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, zero);
        r = arith::SelectOp::create(b, loc, neg, constantOf(b, loc, t, -1), r);
        Value pos =
            arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, zero);
        return arith::SelectOp::create(b, loc, pos, constantOf(b, loc, t, 1),
                                       r);
      })
      .Case([&](NotOp) -> Value {
        Value ones = arith::ConstantOp::create(
            b, loc,
            b.getIntegerAttr(t, APInt::getAllOnes(t.getIntOrFloatBitWidth())));
        return arith::XOrIOp::create(b, loc, x, ones);
      })
      .Default([](Operation *) -> Value { return {}; });
}

/// The integer remainder `x % y` (truncated, C's `%`) without undefined
/// behaviour: a remainder by 0 is 0 (NumPy's result), and so is the
/// minimum integer by -1 (whose quotient overflows; `%` by -1 is always 0).
Value safeRemSI(OpBuilder &b, Location loc, Value x, Value y) {
  Type t = x.getType();
  Value zero = constantOf(b, loc, t, 0), one = constantOf(b, loc, t, 1);
  Value byZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, zero);
  Value byMinusOne = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y,
                                           constantOf(b, loc, t, -1));
  Value safe = arith::SelectOp::create(
      b, loc, arith::OrIOp::create(b, loc, byZero, byMinusOne), one, y);
  return arith::RemSIOp::create(b, loc, x, safe);
}

/// The truncated integer quotient `x / y` without undefined behaviour (no
/// SIGFPE): a quotient by 0 is 0 (NumPy's result), and the minimum integer by
/// -1 wraps to itself (the negation, as two's complement arithmetic gives).
Value safeDivSI(OpBuilder &b, Location loc, Value x, Value y) {
  Type t = x.getType();
  Value zero = constantOf(b, loc, t, 0), one = constantOf(b, loc, t, 1);
  Value byZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, zero);
  Value byMinusOne = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y,
                                           constantOf(b, loc, t, -1));
  Value safe = arith::SelectOp::create(
      b, loc, arith::OrIOp::create(b, loc, byZero, byMinusOne), one, y);
  Value q = arith::DivSIOp::create(b, loc, x, safe);
  Value negated = arith::SubIOp::create(b, loc, zero, x);
  q = arith::SelectOp::create(b, loc, byMinusOne, negated, q);
  return arith::SelectOp::create(b, loc, byZero, zero, q);
}

/// The unsigned quotient without undefined behaviour: by 0 it is 0.
Value safeDivUI(OpBuilder &b, Location loc, Value x, Value y) {
  Type t = x.getType();
  Value zero = constantOf(b, loc, t, 0);
  Value byZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, zero);
  Value safe =
      arith::SelectOp::create(b, loc, byZero, constantOf(b, loc, t, 1), y);
  Value q = arith::DivUIOp::create(b, loc, x, safe);
  return arith::SelectOp::create(b, loc, byZero, zero, q);
}

/// The unsigned remainder without undefined behaviour: by 0 it is 0.
Value safeRemUI(OpBuilder &b, Location loc, Value x, Value y) {
  Type t = x.getType();
  Value byZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y,
                                       constantOf(b, loc, t, 0));
  Value safe =
      arith::SelectOp::create(b, loc, byZero, constantOf(b, loc, t, 1), y);
  return arith::RemUIOp::create(b, loc, x, safe);
}

/// The floored modulo (Python's `%`): the truncated remainder, plus `y` when
/// it is not zero and its sign differs from `y`'s. A float zero result takes
/// the sign of `y`, as in NumPy.
Value floorMod(OpBuilder &b, Location loc, Value x, Value y) {
  Type t = x.getType();
  Value zero = constantOf(b, loc, t, 0);
  if (!isFloat(t)) {
    Value r = safeRemSI(b, loc, x, y);
    Value nonZero =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, r, zero);
    Value signsDiffer = arith::XOrIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, r, zero),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, y, zero));
    Value fix = arith::AndIOp::create(b, loc, nonZero, signsDiffer);
    return arith::SelectOp::create(b, loc, fix,
                                   arith::AddIOp::create(b, loc, r, y), r);
  }
  Value r = arith::RemFOp::create(b, loc, x, y);
  // NaN compares unordered-not-equal to 0, so it takes the first branch and
  // stays NaN (r + y).
  Value nonZero =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, r, zero);
  Value signsDiffer = arith::XOrIOp::create(
      b, loc, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, r, zero),
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, y, zero));
  Value fixed = arith::SelectOp::create(b, loc, signsDiffer,
                                        arith::AddFOp::create(b, loc, r, y), r);
  Value signedZero = math::CopySignOp::create(b, loc, zero, y);
  return arith::SelectOp::create(b, loc, nonZero, fixed, signedZero);
}

/// A logical shift of `x` by `y` bits; an amount outside [0, bit width)
/// gives 0 (LLVM's shifts are poison there).
Value shift(OpBuilder &b, Location loc, Value x, Value y, bool left) {
  Type t = x.getType();
  unsigned width = t.getIntOrFloatBitWidth();
  // As unsigned, a negative amount is at least the width too. The amount is
  // clamped to the width first: LLVM's NVPTX backend turns
  // `select(y < width, shl(x, y), 0)` into one PTX shift, whose amount is
  // 32 bits, so an i64 amount of 2^32 or more would lose its high bits
  // (found by random programs: a shift by 22 << 40 left x unchanged).
  Value clamped =
      arith::MinUIOp::create(b, loc, y, constantOf(b, loc, t, width));
  Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                        clamped, constantOf(b, loc, t, width));
  Value amount = arith::SelectOp::create(b, loc, inRange, clamped,
                                         constantOf(b, loc, t, 0));
  Value shifted = left ? arith::ShLIOp::create(b, loc, x, amount).getResult()
                       : arith::ShRUIOp::create(b, loc, x, amount).getResult();
  return arith::SelectOp::create(b, loc, inRange, shifted,
                                 constantOf(b, loc, t, 0));
}

Value scalarBinary(Operation *op, OpBuilder &b, Location loc, Value x, Value y,
                   bool isUnsigned) {
  bool f = isFloat(x.getType());
  bool u = isUnsigned;
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case([&](AddOp) -> Value {
        return f ? arith::AddFOp::create(b, loc, x, y).getResult()
                 : arith::AddIOp::create(b, loc, x, y).getResult();
      })
      .Case([&](SubOp) -> Value {
        return f ? arith::SubFOp::create(b, loc, x, y).getResult()
                 : arith::SubIOp::create(b, loc, x, y).getResult();
      })
      .Case([&](MulOp) -> Value {
        return f ? arith::MulFOp::create(b, loc, x, y).getResult()
                 : arith::MulIOp::create(b, loc, x, y).getResult();
      })
      .Case([&](DivOp) -> Value {
        if (f)
          return arith::DivFOp::create(b, loc, x, y);
        return u ? safeDivUI(b, loc, x, y) : safeDivSI(b, loc, x, y);
      })
      .Case([&](PowOp) -> Value { return math::PowFOp::create(b, loc, x, y); })
      .Case([&](MaximumOp) -> Value {
        if (f)
          return arith::MaximumFOp::create(b, loc, x, y);
        return u ? arith::MaxUIOp::create(b, loc, x, y).getResult()
                 : arith::MaxSIOp::create(b, loc, x, y).getResult();
      })
      .Case([&](MinimumOp) -> Value {
        if (f)
          return arith::MinimumFOp::create(b, loc, x, y);
        return u ? arith::MinUIOp::create(b, loc, x, y).getResult()
                 : arith::MinSIOp::create(b, loc, x, y).getResult();
      })
      .Case([&](AndOp) -> Value { return arith::AndIOp::create(b, loc, x, y); })
      .Case([&](OrOp) -> Value { return arith::OrIOp::create(b, loc, x, y); })
      .Case([&](XorOp) -> Value { return arith::XOrIOp::create(b, loc, x, y); })
      .Case([&](RemOp) -> Value {
        if (f)
          return arith::RemFOp::create(b, loc, x, y);
        return u ? safeRemUI(b, loc, x, y) : safeRemSI(b, loc, x, y);
      })
      .Case([&](ModOp) -> Value {
        // Unsigned operands have one sign: the floored modulo is the
        // remainder.
        return u ? safeRemUI(b, loc, x, y) : floorMod(b, loc, x, y);
      })
      .Case([&](ShlOp) -> Value { return shift(b, loc, x, y, /*left=*/true); })
      .Case([&](ShrOp) -> Value { return shift(b, loc, x, y, /*left=*/false); })
      .Case([&](CmpOp cmp) -> Value {
        if (f) {
          arith::CmpFPredicate p;
          switch (cmp.getPredicate()) {
          case CmpPredicate::eq:
            p = arith::CmpFPredicate::OEQ;
            break;
          case CmpPredicate::ne:
            p = arith::CmpFPredicate::UNE;
            break;
          case CmpPredicate::lt:
            p = arith::CmpFPredicate::OLT;
            break;
          case CmpPredicate::le:
            p = arith::CmpFPredicate::OLE;
            break;
          case CmpPredicate::gt:
            p = arith::CmpFPredicate::OGT;
            break;
          case CmpPredicate::ge:
            p = arith::CmpFPredicate::OGE;
            break;
          }
          return arith::CmpFOp::create(b, loc, p, x, y);
        }
        // Signless integers compare as signed; unsigned integers and
        // booleans (false < true) as unsigned.
        u = u || x.getType().isInteger(1);
        arith::CmpIPredicate p;
        switch (cmp.getPredicate()) {
        case CmpPredicate::eq:
          p = arith::CmpIPredicate::eq;
          break;
        case CmpPredicate::ne:
          p = arith::CmpIPredicate::ne;
          break;
        case CmpPredicate::lt:
          p = u ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt;
          break;
        case CmpPredicate::le:
          p = u ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle;
          break;
        case CmpPredicate::gt:
          p = u ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt;
          break;
        case CmpPredicate::ge:
          p = u ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge;
          break;
        }
        return arith::CmpIOp::create(b, loc, p, x, y);
      })
      .Default([](Operation *) -> Value { return {}; });
}

/// Element type conversion with NumPy's semantics (bool is 0/1; to bool is
/// != 0; float to int truncates toward zero; an unsigned source zero-extends
/// and converts to float as unsigned; an unsigned destination takes floats
/// as unsigned). `x` and `to` are signless; `fromUnsigned` and `toUnsigned`
/// say how the tide op's types read them.
Value scalarCast(OpBuilder &b, Location loc, Value x, Type to,
                 bool fromUnsigned = false, bool toUnsigned = false) {
  Type from = x.getType();
  if (from == to)
    return x;
  bool fromF = isFloat(from), toF = isFloat(to);
  if (to.isInteger(1)) {
    Value zero = constantOf(b, loc, from, 0);
    if (fromF)
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x, zero);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x, zero);
  }
  if (fromF && toF) {
    if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
      return arith::ExtFOp::create(b, loc, to, x);
    if (from.getIntOrFloatBitWidth() > to.getIntOrFloatBitWidth())
      return arith::TruncFOp::create(b, loc, to, x);
    // f16 <-> bf16: through f32.
    Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
    return arith::TruncFOp::create(b, loc, to, wide);
  }
  if (!fromF && toF) {
    // i1 -> float as a select of 1 and 0, not uitofp: LLVM 22's X86 backend
    // fails instruction selection ("Cannot select: v16f32 = X86ISD::CMPP")
    // on a uitofp to <16 x half> of a <16 x bfloat> compare on CPUs with
    // AVX512-FP16 (Sapphire Rapids and later), which InstCombine forms from
    // an f32 compare of extended bf16 values.
    if (from.isInteger(1))
      return arith::SelectOp::create(b, loc, x, constantOf(b, loc, to, 1),
                                     constantOf(b, loc, to, 0));
    if (fromUnsigned)
      return arith::UIToFPOp::create(b, loc, to, x);
    return arith::SIToFPOp::create(b, loc, to, x);
  }
  if (fromF && !toF)
    return toUnsigned ? arith::FPToUIOp::create(b, loc, to, x).getResult()
                      : arith::FPToSIOp::create(b, loc, to, x).getResult();
  unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
  if (fw < tw)
    return from.isInteger(1) || fromUnsigned
               ? arith::ExtUIOp::create(b, loc, to, x).getResult()
               : arith::ExtSIOp::create(b, loc, to, x).getResult();
  return arith::TruncIOp::create(b, loc, to, x);
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

/// A broadcast_to with `stretch_dynamic` (see its description): each
/// dynamic input dimension's size decides at run time whether it is
/// stretched (size 1) or kept (any other size, which the shape operand's
/// entry must equal unless it is 1); each element is read at its position in
/// the input, 0 along a stretched dimension.
LogicalResult lowerStretchingBroadcast(PatternRewriter &rewriter,
                                       BroadcastToOp op) {
  Location loc = op.getLoc();
  auto resultType = cast<RankedTensorType>(signless(op.getType()));
  Value input = toSignless(rewriter, loc, op.getInput()).front();
  auto inType = cast<RankedTensorType>(input.getType());
  int64_t rank = resultType.getRank(), offset = rank - inType.getRank();
  auto idx = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  SmallVector<Value> dynSizes, stretched(inType.getRank());
  for (int64_t d = 0; d < rank; ++d) {
    int64_t i = d - offset;
    Value size;
    if (i >= 0 && inType.isDynamicDim(i)) {
      Value in = tensor::DimOp::create(rewriter, loc, input, i);
      Value want = getShapeEntry(rewriter, loc, op.getShape(), d);
      stretched[i] = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::eq, in, idx(1));
      size = arith::SelectOp::create(rewriter, loc, stretched[i], want, in);
      Value fits = arith::OrIOp::create(
          rewriter, loc,
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, want,
                                size),
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, want,
                                idx(1)));
      assertThat(rewriter, loc, op, fits,
                 "the input's size in dimension " + Twine(i) +
                     " is neither 1 nor the size it is broadcast to");
      if (!resultType.isDynamicDim(d))
        assertSameSize(rewriter, loc, op, size, idx(resultType.getDimSize(d)),
                       "the broadcast size of dimension " + Twine(d) +
                           " is not the result's");
    } else if (resultType.isDynamicDim(d)) {
      size = i >= 0 && inType.getDimSize(i) != 1
                 ? idx(inType.getDimSize(i))
                 : getShapeEntry(rewriter, loc, op.getShape(), d);
    }
    if (resultType.isDynamicDim(d))
      dynSizes.push_back(size);
  }
  auto copy = [&](OpBuilder &ob, Location ol) -> Value {
    Value init = tensor::EmptyOp::create(ob, ol, resultType.getShape(),
                                         resultType.getElementType(), dynSizes);
    auto generic = linalg::GenericOp::create(
        ob, ol, TypeRange{resultType}, ValueRange{}, ValueRange{init},
        ArrayRef<AffineMap>{ob.getMultiDimIdentityMap(rank)},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange) {
          SmallVector<Value> at;
          for (int64_t i = 0; i < inType.getRank(); ++i) {
            Value pos = linalg::IndexOp::create(b, l, i + offset);
            Value zero = arith::ConstantIndexOp::create(b, l, 0);
            if (!inType.isDynamicDim(i) && inType.getDimSize(i) == 1)
              pos = zero;
            else if (inType.isDynamicDim(i))
              pos = arith::SelectOp::create(b, l, stretched[i], zero, pos);
            at.push_back(pos);
          }
          linalg::YieldOp::create(
              b, l, tensor::ExtractOp::create(b, l, input, at).getResult());
        });
    return generic.getResult(0);
  };
  // (On a GPU always a copy: tide-assign-memory-spaces gives device memory
  // to the allocations of GPU ops outside regions only.)
  if (inType != resultType || placedOnGPU(op)) {
    replaceFromSignless(rewriter, op, copy(rewriter, loc));
    return success();
  }
  // On the host, of one type, the result is the input itself unless a size
  // of 1 is stretched at run time: only then is there a copy.
  Value stretch;
  for (int64_t i = 0; i < rank; ++i) {
    if (!stretched[i])
      continue;
    Value grows = arith::AndIOp::create(
        rewriter, loc, stretched[i],
        arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::ne,
            dynSizes[llvm::count_if(resultType.getShape().take_front(i),
                                    ShapedType::isDynamic)],
            idx(1)));
    stretch =
        stretch
            ? arith::OrIOp::create(rewriter, loc, stretch, grows).getResult()
            : grows;
  }
  if (!stretch) {
    replaceFromSignless(rewriter, op, input);
    return success();
  }
  auto branch = scf::IfOp::create(
      rewriter, loc, stretch,
      [&](OpBuilder &b, Location l) { scf::YieldOp::create(b, l, copy(b, l)); },
      [&](OpBuilder &b, Location l) { scf::YieldOp::create(b, l, input); });
  replaceFromSignless(rewriter, op, branch.getResult(0));
  return success();
}

struct LowerElementwise : RewritePattern {
  LowerElementwise(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    // Every op of an elementwise family (its ODS facts), and broadcast_to.
    auto facts = dyn_cast<OpFactsInterface>(op);
    if (!facts)
      return failure();
    LoweringFamily family = facts.getLoweringFamily();
    if (family != LoweringFamily::Unary && family != LoweringFamily::Binary &&
        family != LoweringFamily::Compare && family != LoweringFamily::Select &&
        family != LoweringFamily::Cast && family != LoweringFamily::Broadcast)
      return failure();
    if (auto broadcast = dyn_cast<BroadcastToOp>(op);
        broadcast && broadcast.getStretchDynamic())
      return lowerStretchingBroadcast(rewriter, broadcast);
    auto resultType =
        cast<RankedTensorType>(signless(op->getResult(0).getType()));
    Location loc = op->getLoc();
    // The operands' signedness picks the semantics (a select's is its value
    // operands', which do not need it); a cast also reads the result's.
    bool isUnsigned = isUnsignedValue(op->getOperand(0));
    bool toUnsigned = isUnsignedValue(op->getResult(0));
    // A broadcast_to's shape operand gives sizes, not elements.
    SmallVector<Value> inputs =
        toSignless(rewriter, loc,
                   isa<BroadcastToOp>(op) ? op->getOperands().take_front()
                                          : op->getOperands());
    std::optional<SmallVector<Value>> sizes;
    if (auto broadcast = dyn_cast<BroadcastToOp>(op)) {
      if (Value shape = broadcast.getShape()) {
        auto inType = broadcast.getInput().getType();
        int64_t offset = resultType.getRank() - inType.getRank();
        sizes.emplace();
        for (int64_t d = 0; d < resultType.getRank(); ++d) {
          if (!resultType.isDynamicDim(d))
            continue;
          int64_t i = d - offset;
          sizes->push_back(
              i >= 0 && inType.isDynamicDim(i)
                  ? tensor::DimOp::create(rewriter, loc, inputs.front(), i)
                        .getResult()
                  : getShapeEntry(rewriter, loc, shape, d));
        }
      }
    }
    // A broadcast_to (without stretch_dynamic) keeps an input size known
    // only at run time: where the result's size is static, the input's must
    // be that size when it runs (else the copy would read past the input).
    if (auto broadcast = dyn_cast<BroadcastToOp>(op)) {
      auto inType = cast<RankedTensorType>(inputs.front().getType());
      int64_t offset = resultType.getRank() - inType.getRank();
      for (int64_t i = 0; i < inType.getRank(); ++i) {
        if (!inType.isDynamicDim(i) || resultType.isDynamicDim(i + offset))
          continue;
        assertSameSize(
            rewriter, loc, op,
            tensor::DimOp::create(rewriter, loc, inputs.front(), i),
            arith::ConstantIndexOp::create(rewriter, loc,
                                           resultType.getDimSize(i + offset)),
            "the input's size in dimension " + Twine(i) +
                " differs from the result's (" +
                Twine(resultType.getDimSize(i + offset)) +
                ") at run time (a run-time size of 1 is not broadcast)");
      }
    }
    // Operands whose sizes are known only at run time must agree there
    // (a run-time size of 1 is not broadcast): each size of a result
    // dimension is checked against the first.
    // (One operand too: a cast of a run-time size to a static one.)
    if (!isa<BroadcastToOp>(op)) {
      int64_t rank = resultType.getRank();
      for (int64_t d = 0; d < rank; ++d) {
        Value first;
        std::string firstName;
        auto check = [&](Value size, const std::string &name) {
          if (!first) {
            first = size;
            firstName = name;
            return;
          }
          assertSameSize(rewriter, loc, op, size, first,
                         "the size of dimension " + Twine(d) + " of " + name +
                             " differs from that of " + firstName +
                             " at run time (a run-time size of 1 is not "
                             "broadcast)");
        };
        if (!resultType.isDynamicDim(d))
          check(arith::ConstantIndexOp::create(rewriter, loc,
                                               resultType.getDimSize(d)),
                "the result");
        for (auto [k, in] : llvm::enumerate(inputs)) {
          auto t = cast<RankedTensorType>(in.getType());
          int64_t i = d - (rank - t.getRank());
          if (i < 0 || (!t.isDynamicDim(i) && t.getDimSize(i) == 1))
            continue;
          Value size =
              t.isDynamicDim(i)
                  ? tensor::DimOp::create(rewriter, loc, in, i).getResult()
                  : arith::ConstantIndexOp::create(rewriter, loc,
                                                   t.getDimSize(i))
                        .getResult();
          check(size, "operand " + std::to_string(k));
        }
      }
    }
    Value result = buildElementwise(
        rewriter, loc, resultType, inputs,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          if (isa<SelectOp>(op))
            return arith::SelectOp::create(b, l, args[0], args[1], args[2]);
          if (isa<CastOp>(op))
            return scalarCast(b, l, args[0], resultType.getElementType(),
                              isUnsigned, toUnsigned);
          if (isa<BitcastOp>(op)) {
            Type to = resultType.getElementType();
            return args[0].getType() == to
                       ? args[0]
                       : arith::BitcastOp::create(b, l, to, args[0])
                             .getResult();
          }
          if (isa<BroadcastToOp>(op))
            return args[0];
          // f16/bf16 arithmetic computes in f32 and rounds once, here, with
          // a plain extf/truncf pair around every op. Left to the pipelines'
          // upstream widening (arith-emulate-unsupported-floats,
          // math-extend-to-supported-types), the conversions carry the
          // `contract` fast-math flag, and extf(truncf(x)) of two fused ops
          // folds to x: an f16 mul feeding a cos was never rounded to f16.
          if ((family == LoweringFamily::Unary ||
               family == LoweringFamily::Binary) &&
              isNarrowFloat(args[0].getType())) {
            SmallVector<Value> wide;
            for (Value arg : args)
              wide.push_back(scalarCast(b, l, arg, b.getF32Type()));
            Value r = wide.size() == 1
                          ? scalarUnary(op, b, l, wide[0], false)
                          : scalarBinary(op, b, l, wide[0], wide[1], false);
            return r ? scalarCast(b, l, r, args[0].getType()) : Value();
          }
          if (args.size() == 1)
            return scalarUnary(op, b, l, args[0], isUnsigned);
          return scalarBinary(op, b, l, args[0], args[1], isUnsigned);
        },
        sizes);
    if (!result)
      return rewriter.notifyMatchFailure(op, "no scalar code for this op");
    replaceFromSignless(rewriter, op, result);
    return success();
  }
};

struct LowerConstant : OpRewritePattern<ConstantOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConstantOp op,
                                PatternRewriter &rewriter) const override {
    auto value = dyn_cast<TypedAttr>(op.getValue());
    if (!value)
      return rewriter.notifyMatchFailure(op, "not a typed attribute");
    // arith.constant takes signless integers: the same bits, signless.
    auto type = cast<ShapedType>(value.getType());
    auto signlessType = cast<ShapedType>(signless(type));
    if (signlessType != type) {
      if (auto dense = dyn_cast<DenseElementsAttr>(value))
        value = dense.bitcast(signlessType.getElementType());
      else if (auto resource = dyn_cast<DenseResourceElementsAttr>(value))
        value = DenseResourceElementsAttr::get(signlessType,
                                               resource.getRawHandle());
      else
        return rewriter.notifyMatchFailure(op, "an unsigned constant that is "
                                               "neither dense nor a resource");
    }
    Value c = arith::ConstantOp::create(rewriter, op.getLoc(), value);
    replaceFromSignless(rewriter, op, c);
    return success();
  }
};

/// Identity value of a reduction in `type`.
Value reductionInit(OpBuilder &b, Location loc, Operation *op, Type type,
                    bool isUnsigned) {
  bool f = isFloat(type);
  unsigned width = f ? 0 : type.getIntOrFloatBitWidth();
  auto negInf = [&]() -> Value {
    if (f)
      return arith::ConstantOp::create(
          b, loc,
          b.getFloatAttr(
              type, APFloat::getInf(cast<FloatType>(type).getFloatSemantics(),
                                    /*Negative=*/true)));
    return arith::ConstantOp::create(
        b, loc,
        b.getIntegerAttr(type, isUnsigned ? APInt::getZero(width)
                                          : APInt::getSignedMinValue(width)));
  };
  auto posInf = [&]() -> Value {
    if (f)
      return arith::ConstantOp::create(
          b, loc,
          b.getFloatAttr(
              type, APFloat::getInf(cast<FloatType>(type).getFloatSemantics(),
                                    /*Negative=*/false)));
    return arith::ConstantOp::create(
        b, loc,
        b.getIntegerAttr(type, isUnsigned ? APInt::getAllOnes(width)
                                          : APInt::getSignedMaxValue(width)));
  };
  if (isa<ReduceMaxOp, ArgmaxOp>(op))
    return negInf();
  if (isa<ReduceMinOp, ArgminOp>(op))
    return posInf();
  if (isa<ReduceProdOp>(op))
    return constantOf(b, loc, type, 1);
  return constantOf(b, loc, type, 0);
}

/// Reductions and arg-reductions: one linalg.generic with reduction loops.
template <typename OpTy>
struct LowerReduction : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    bool isUnsigned = isUnsignedValue(op.getInput());
    Value input = toSignless(rewriter, loc, op.getInput()).front();
    auto inType = cast<RankedTensorType>(input.getType());
    auto resultType = cast<RankedTensorType>(signless(op.getType()));
    Type element = inType.getElementType();
    int64_t rank = inType.getRank();
    SmallVector<int64_t> axes = op.getNormalizedAxes();
    bool keep = op.getKeepdims();
    constexpr bool isArg =
        std::is_same_v<OpTy, ArgmaxOp> || std::is_same_v<OpTy, ArgminOp>;

    // Loop d iterates input dim d; the output map drops reduced dims (or pins
    // them to 0 with keepdims).
    SmallVector<AffineExpr> outExprs;
    SmallVector<utils::IteratorType> iterators;
    SmallVector<Value> outDynSizes;
    for (int64_t d = 0; d < rank; ++d) {
      bool reduced = llvm::is_contained(axes, d);
      iterators.push_back(reduced ? utils::IteratorType::reduction
                                  : utils::IteratorType::parallel);
      if (reduced) {
        if (keep)
          outExprs.push_back(getAffineConstantExpr(0, ctx));
        continue;
      }
      outExprs.push_back(getAffineDimExpr(d, ctx));
      if (inType.isDynamicDim(d))
        outDynSizes.push_back(tensor::DimOp::create(rewriter, loc, input, d));
    }
    AffineMap inMap = rewriter.getMultiDimIdentityMap(rank);
    AffineMap outMap = AffineMap::get(rank, 0, outExprs, ctx);

    // Sums, products and means of f16/bf16 accumulate in f32; max, min and
    // arg-reductions keep an input element (exact in its type).
    Type acc = accumulatorType(op, element);
    auto valueType = resultType.clone(acc);
    Value valueInit =
        linalg::FillOp::create(
            rewriter, loc, reductionInit(rewriter, loc, op, acc, isUnsigned),
            tensor::EmptyOp::create(rewriter, loc, valueType.getShape(), acc,
                                    outDynSizes)
                .getResult())
            .getResult(0);
    if constexpr (isArg) {
      Type i64 = rewriter.getI64Type();
      Value indexInit =
          linalg::FillOp::create(
              rewriter, loc, constantOf(rewriter, loc, i64, 0),
              tensor::EmptyOp::create(rewriter, loc, resultType.getShape(), i64,
                                      outDynSizes)
                  .getResult())
              .getResult(0);
      int64_t axis = axes.front();
      bool isMax = std::is_same_v<OpTy, ArgmaxOp>;
      auto generic = linalg::GenericOp::create(
          rewriter, loc, TypeRange{valueType, resultType}, ValueRange{input},
          ValueRange{valueInit, indexInit},
          ArrayRef<AffineMap>{inMap, outMap, outMap}, iterators,
          [&](OpBuilder &b, Location l, ValueRange args) {
            Value x = args[0], best = args[1], bestIdx = args[2];
            Value idx = arith::IndexCastOp::create(
                b, l, i64, linalg::IndexOp::create(b, l, axis));
            Value better;
            if (isFloat(element)) {
              // NaN is the extreme, as in NumPy: the first NaN wins and
              // nothing replaces it.
              Value strict = arith::CmpFOp::create(
                  b, l,
                  isMax ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT,
                  x, best);
              Value xNaN =
                  arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, x, x);
              Value bestOrdered = arith::CmpFOp::create(
                  b, l, arith::CmpFPredicate::ORD, best, best);
              better = arith::AndIOp::create(
                  b, l, bestOrdered, arith::OrIOp::create(b, l, strict, xNaN));
            } else {
              arith::CmpIPredicate p =
                  isUnsigned ? (isMax ? arith::CmpIPredicate::ugt
                                      : arith::CmpIPredicate::ult)
                             : (isMax ? arith::CmpIPredicate::sgt
                                      : arith::CmpIPredicate::slt);
              better = arith::CmpIOp::create(b, l, p, x, best);
            }
            // The first element always wins, so all-equal rows give 0 and
            // -inf/+inf inputs are handled.
            Value first = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                                idx, constantOf(b, l, i64, 0));
            better = arith::OrIOp::create(b, l, better, first);
            linalg::YieldOp::create(
                b, l,
                ValueRange{
                    arith::SelectOp::create(b, l, better, x, best),
                    arith::SelectOp::create(b, l, better, idx, bestIdx)});
          });
      replaceFromSignless(rewriter, op, generic.getResult(1));
      return success();
    } else {
      auto reassoc = arith::FastMathFlagsAttr::get(
          rewriter.getContext(), arith::FastMathFlags::reassoc);
      // The maximum a softmax subtracts may ignore NaN (maxnumf, which the
      // loop vectorizer reduces with several accumulators): a row with a
      // NaN is all NaN either way (exp(NaN - m) makes its sum NaN), and
      // without one the two maxima are equal. nnan and nsz then let LLVM
      // reduce with a plain vector maximum (without them it tests every
      // vector for NaN and leaves the loop on one).
      auto noNaN = arith::FastMathFlagsAttr::get(rewriter.getContext(),
                                                 arith::FastMathFlags::nnan |
                                                     arith::FastMathFlags::nsz);
      auto origin = op->template getAttrOfType<StringAttr>(kDecomposedAttrName);
      bool nanIgnoring = origin && (origin.getValue() == "softmax" ||
                                    origin.getValue() == "log_softmax");
      auto generic = linalg::GenericOp::create(
          rewriter, loc, TypeRange{valueType}, ValueRange{input},
          ValueRange{valueInit}, ArrayRef<AffineMap>{inMap, outMap}, iterators,
          [&](OpBuilder &b, Location l, ValueRange args) {
            Value x = scalarCast(b, l, args[0], args[1].getType());
            Value acc = args[1];
            bool f = isFloat(element);
            Value r;
            if (isa<ReduceMaxOp>(op) && f && nanIgnoring)
              r = arith::MaxNumFOp::create(b, l, x, acc, noNaN);
            else if (isa<ReduceMaxOp>(op))
              r = f ? arith::MaximumFOp::create(b, l, x, acc).getResult()
                  : isUnsigned
                      ? arith::MaxUIOp::create(b, l, x, acc).getResult()
                      : arith::MaxSIOp::create(b, l, x, acc).getResult();
            else if (isa<ReduceMinOp>(op))
              r = f ? arith::MinimumFOp::create(b, l, x, acc).getResult()
                  : isUnsigned
                      ? arith::MinUIOp::create(b, l, x, acc).getResult()
                      : arith::MinSIOp::create(b, l, x, acc).getResult();
            // Float sums and products may be reassociated: the loop
            // vectorizer then keeps several partial accumulators (closer to
            // NumPy's pairwise summation than one running sum, and the GPU
            // reduces in a tree anyway). Nothing else is relaxed.
            else if (isa<ReduceProdOp>(op))
              r = f ? arith::MulFOp::create(b, l, x, acc, reassoc).getResult()
                    : arith::MulIOp::create(b, l, x, acc).getResult();
            else
              r = f ? arith::AddFOp::create(b, l, x, acc, reassoc).getResult()
                    : arith::AddIOp::create(b, l, x, acc).getResult();
            linalg::YieldOp::create(b, l, r);
          });
      Value result = generic.getResult(0);
      if (isa<ReduceMeanOp>(op)) {
        // Divide by the number of reduced elements (known at run time), in
        // the accumulator's type, then round once to the element type.
        Value count = arith::ConstantIndexOp::create(rewriter, loc, 1);
        for (int64_t axis : axes)
          count = arith::MulIOp::create(
              rewriter, loc, count,
              tensor::DimOp::create(rewriter, loc, input, axis));
        Value countF = arith::UIToFPOp::create(
            rewriter, loc, acc,
            arith::IndexCastUIOp::create(rewriter, loc, rewriter.getI64Type(),
                                         count));
        result = buildElementwise(
            rewriter, loc, resultType, ValueRange{result},
            [&](OpBuilder &b, Location l, ValueRange args) -> Value {
              return scalarCast(
                  b, l, arith::DivFOp::create(b, l, args[0], countF), element);
            });
      } else if (acc != element) {
        result = buildElementwise(
            rewriter, loc, resultType, ValueRange{result},
            [&](OpBuilder &b, Location l, ValueRange args) -> Value {
              return scalarCast(b, l, args[0], element);
            });
      }
      replaceFromSignless(rewriter, op, result);
      return success();
    }
  }
};

struct LowerMatmul : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    // Integer products and sums wrap alike for signed and unsigned.
    SmallVector<Value> operands =
        toSignless(rewriter, loc, ValueRange{op.getLhs(), op.getRhs()});
    Value lhs = operands[0], rhs = operands[1];
    auto lhsType = cast<RankedTensorType>(lhs.getType());
    auto rhsType = cast<RankedTensorType>(rhs.getType());
    auto resultType = cast<RankedTensorType>(signless(op.getType()));
    Type element = resultType.getElementType();
    int64_t rank = resultType.getRank();
    // The contracted sizes, and batch sizes both operands have, must agree
    // at run time.
    auto sizeOf = [&](Value v, RankedTensorType t, int64_t i) -> Value {
      if (t.isDynamicDim(i))
        return tensor::DimOp::create(rewriter, loc, v, i);
      return arith::ConstantIndexOp::create(rewriter, loc, t.getDimSize(i));
    };
    if (lhsType.isDynamicDim(lhsType.getRank() - 1) ||
        rhsType.isDynamicDim(rhsType.getRank() - 2))
      assertSameSize(rewriter, loc, op,
                     sizeOf(lhs, lhsType, lhsType.getRank() - 1),
                     sizeOf(rhs, rhsType, rhsType.getRank() - 2),
                     "the contracted sizes (the lhs's columns, the rhs's "
                     "rows) differ at run time");
    for (int64_t d = 0; d + 2 < rank; ++d) {
      int64_t i = d - (rank - lhsType.getRank()),
              j = d - (rank - rhsType.getRank());
      if (i < 0 || j < 0 ||
          !(lhsType.isDynamicDim(i) || rhsType.isDynamicDim(j)) ||
          lhsType.getDimSize(i) == 1 || rhsType.getDimSize(j) == 1)
        continue;
      assertSameSize(rewriter, loc, op, sizeOf(lhs, lhsType, i),
                     sizeOf(rhs, rhsType, j),
                     "the batch sizes of dimension " + Twine(d) +
                         " differ at run time (a run-time size of 1 is not "
                         "broadcast)");
    }
    // Dynamic sizes: M from lhs, N from rhs, batch dims from whichever
    // operand has them.
    SmallVector<Value> dyn;
    for (int64_t d = 0; d < rank; ++d) {
      if (!resultType.isDynamicDim(d))
        continue;
      Value size;
      if (d == rank - 2)
        size = tensor::DimOp::create(rewriter, loc, lhs, lhsType.getRank() - 2);
      else if (d == rank - 1)
        size = tensor::DimOp::create(rewriter, loc, rhs, rhsType.getRank() - 1);
      else
        for (Value operand : {lhs, rhs}) {
          auto t = cast<RankedTensorType>(operand.getType());
          int64_t i = d - (rank - t.getRank());
          if (i >= 0 && i < t.getRank() - 2 && t.isDynamicDim(i)) {
            size = tensor::DimOp::create(rewriter, loc, operand, i);
            break;
          }
        }
      dyn.push_back(size);
    }
    // f16/bf16 products accumulate in f32 (linalg.matmul extends its
    // operands to the accumulator's type), rounded once at the end.
    Type acc = accumulatorType(op, element);
    auto accType = resultType.clone(acc);
    auto finish = [&](Value product) {
      if (acc != element)
        product = buildElementwise(
            rewriter, loc, resultType, ValueRange{product},
            [&](OpBuilder &b, Location l, ValueRange args) -> Value {
              return scalarCast(b, l, args[0], element);
            });
      replaceFromSignless(rewriter, op, product);
      return success();
    };
    Value zero = constantOf(rewriter, loc, acc, 0);
    Value init = linalg::FillOp::create(
                     rewriter, loc, zero,
                     tensor::EmptyOp::create(rewriter, loc,
                                             resultType.getShape(), acc, dyn)
                         .getResult())
                     .getResult(0);
    if (rank == 2)
      return finish(linalg::MatmulOp::create(rewriter, loc, TypeRange{accType},
                                             ValueRange{lhs, rhs},
                                             ValueRange{init})
                        .getResult(0));
    // Batched: loops (batch..., m, n, k).
    int64_t loops = rank + 1, m = rank - 2, n = rank - 1, k = rank;
    auto operandMap = [&](RankedTensorType t, int64_t row, int64_t col) {
      SmallVector<AffineExpr> exprs;
      int64_t batchRank = t.getRank() - 2, offset = (rank - 2) - batchRank;
      for (int64_t i = 0; i < batchRank; ++i) {
        int64_t d = i + offset;
        if (t.getDimSize(i) == 1 && resultType.getDimSize(d) != 1)
          exprs.push_back(getAffineConstantExpr(0, ctx));
        else
          exprs.push_back(getAffineDimExpr(d, ctx));
      }
      exprs.push_back(getAffineDimExpr(row, ctx));
      exprs.push_back(getAffineDimExpr(col, ctx));
      return AffineMap::get(loops, 0, exprs, ctx);
    };
    SmallVector<AffineExpr> outExprs;
    for (int64_t d = 0; d < rank; ++d)
      outExprs.push_back(getAffineDimExpr(d, ctx));
    SmallVector<utils::IteratorType> iterators(loops,
                                               utils::IteratorType::parallel);
    iterators.back() = utils::IteratorType::reduction;
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{accType}, ValueRange{lhs, rhs},
        ValueRange{init},
        ArrayRef<AffineMap>{operandMap(lhsType, m, k),
                            operandMap(rhsType, k, n),
                            AffineMap::get(loops, 0, outExprs, ctx)},
        iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = scalarCast(b, l, args[0], acc);
          Value y = scalarCast(b, l, args[1], acc);
          Value r;
          if (isFloat(element))
            r = arith::AddFOp::create(b, l, args[2],
                                      arith::MulFOp::create(b, l, x, y));
          else
            r = arith::AddIOp::create(b, l, args[2],
                                      arith::MulIOp::create(b, l, x, y));
          linalg::YieldOp::create(b, l, r);
        });
    return finish(generic.getResult(0));
  }
};

/// cumsum and cumprod: a linalg.generic with the result's loops plus one
/// reduction loop `j` over the axis; element `i` adds (multiplies) the inputs
/// whose `j` is in its range (`j <= i`, `j < i` when exclusive, `j >= i` /
/// `j > i` when reversed), the others counting as 0 (1). f16/bf16
/// accumulate in f32 and are rounded once.
template <typename OpTy>
struct LowerCumulative : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  static constexpr bool kProduct = std::is_same_v<OpTy, CumprodOp>;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    // Sums and products wrap alike for signed and unsigned integers.
    Value input = toSignless(rewriter, loc, op.getInput()).front();
    auto type = cast<RankedTensorType>(signless(op.getType()));
    Type element = type.getElementType();
    Type acc = isNarrowFloat(element) ? rewriter.getF32Type() : element;
    int64_t rank = type.getRank(), axis = op.getNormalizedAxis();
    SmallVector<Value> dyn;
    for (int64_t d = 0; d < rank; ++d)
      if (type.isDynamicDim(d))
        dyn.push_back(tensor::DimOp::create(rewriter, loc, input, d));
    Value init =
        linalg::FillOp::create(
            rewriter, loc, constantOf(rewriter, loc, acc, kProduct ? 1 : 0),
            tensor::EmptyOp::create(rewriter, loc, type.getShape(), acc, dyn)
                .getResult())
            .getResult(0);
    // Loops d0..d(rank-1) over the result, d(rank) = j over the axis.
    SmallVector<AffineExpr> inExprs, outExprs;
    for (int64_t d = 0; d < rank; ++d) {
      inExprs.push_back(getAffineDimExpr(d == axis ? rank : d, ctx));
      outExprs.push_back(getAffineDimExpr(d, ctx));
    }
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    arith::CmpIPredicate in =
        op.getReverse() ? (op.getExclusive() ? arith::CmpIPredicate::sgt
                                             : arith::CmpIPredicate::sge)
                        : (op.getExclusive() ? arith::CmpIPredicate::slt
                                             : arith::CmpIPredicate::sle);
    bool f = isFloat(element);
    auto combine = [&](OpBuilder &b, Location l, Value a, Value x) -> Value {
      if (kProduct)
        return f ? arith::MulFOp::create(b, l, a, x).getResult()
                 : arith::MulIOp::create(b, l, a, x).getResult();
      return f ? arith::AddFOp::create(b, l, a, x).getResult()
               : arith::AddIOp::create(b, l, a, x).getResult();
    };
    Value result;
    if (!placedOnGPU(op)) {
      // Host code: one pass along the axis per row, the running value in a
      // register (n work a row; the parallel form below, for the GPU, does
      // n^2 / 2). Its order is the scan's (from the end when reversed).
      Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
      Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
      Value n = tensor::DimOp::create(rewriter, loc, input, axis);
      Value identity = constantOf(rewriter, loc, acc, kProduct ? 1 : 0);
      std::function<Value(OpBuilder &, int64_t, SmallVector<Value>, Value)>
          nest = [&](OpBuilder &b, int64_t d, SmallVector<Value> ivs,
                     Value out) -> Value {
        if (d == axis)
          return nest(b, d + 1, ivs, out);
        if (d < rank) {
          Value size = tensor::DimOp::create(b, loc, input, d);
          auto loop = scf::ForOp::create(
              b, loc, zero, size, one, ValueRange{out},
              [&](OpBuilder &lb, Location l, Value iv, ValueRange args) {
                SmallVector<Value> inner = ivs;
                inner.push_back(iv);
                scf::YieldOp::create(lb, l, nest(lb, d + 1, inner, args[0]));
              });
          return loop.getResult(0);
        }
        auto scan = scf::ForOp::create(
            b, loc, zero, n, one, ValueRange{out, identity},
            [&](OpBuilder &lb, Location l, Value t, ValueRange args) {
              Value pos =
                  op.getReverse()
                      ? arith::SubIOp::create(
                            lb, l, arith::SubIOp::create(lb, l, n, t), one)
                            .getResult()
                      : t;
              SmallVector<Value> coords = ivs;
              coords.insert(coords.begin() + axis, pos);
              Value x = scalarCast(
                  lb, l, tensor::ExtractOp::create(lb, l, input, coords), acc);
              Value next = combine(lb, l, args[1], x);
              Value written = tensor::InsertOp::create(
                  lb, l, op.getExclusive() ? args[1] : next, args[0], coords);
              scf::YieldOp::create(lb, l, ValueRange{written, next});
            });
        return scan.getResult(0);
      };
      result = nest(rewriter, 0, {}, init);
    } else {
      auto generic = linalg::GenericOp::create(
          rewriter, loc, TypeRange{type.clone(acc)}, ValueRange{input},
          ValueRange{init},
          ArrayRef<AffineMap>{AffineMap::get(rank + 1, 0, inExprs, ctx),
                              AffineMap::get(rank + 1, 0, outExprs, ctx)},
          iterators, [&](OpBuilder &b, Location l, ValueRange args) {
            Value i = linalg::IndexOp::create(b, l, axis);
            Value j = linalg::IndexOp::create(b, l, rank);
            Value take = arith::CmpIOp::create(b, l, in, j, i);
            Value x = arith::SelectOp::create(
                b, l, take, scalarCast(b, l, args[0], acc),
                constantOf(b, l, acc, kProduct ? 1 : 0));
            linalg::YieldOp::create(b, l, combine(b, l, args[1], x));
          });
      result = generic.getResult(0);
    }
    if (acc != element)
      result = buildElementwise(
          rewriter, loc, type, ValueRange{result},
          [&](OpBuilder &b, Location l, ValueRange args) -> Value {
            return scalarCast(b, l, args[0], element);
          });
    replaceFromSignless(rewriter, op, result);
    return success();
  }
};

/// `x` (N, C, spatial...; or N, spatial..., C with `firstSpatial` 1) with
/// `begin[i]` and `end[i]` elements of `value` around spatial dimension `i`:
/// a fill of the padded shape with `x` inserted.
Value padSpatial(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> begin,
                 ArrayRef<int64_t> end, Value value, int64_t firstSpatial = 2) {
  if (llvm::all_of(begin, [](int64_t v) { return v == 0; }) &&
      llvm::all_of(end, [](int64_t v) { return v == 0; }))
    return x;
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  SmallVector<OpFoldResult> padded(sizes), offsets(rank, b.getIndexAttr(0)),
      strides(rank, b.getIndexAttr(1));
  for (size_t i = 0; i < begin.size(); ++i) {
    int64_t d = firstSpatial + i;
    if (type.isDynamicDim(d))
      padded[d] = arith::AddIOp::create(
                      b, loc, cast<Value>(sizes[d]),
                      arith::ConstantIndexOp::create(b, loc, begin[i] + end[i]))
                      .getResult();
    else
      padded[d] = b.getIndexAttr(type.getDimSize(d) + begin[i] + end[i]);
    offsets[d] = b.getIndexAttr(begin[i]);
  }
  Value empty = tensor::EmptyOp::create(b, loc, padded, type.getElementType());
  Value filled = linalg::FillOp::create(b, loc, value, empty).getResult(0);
  // An input with a static size 0 has nothing to insert (and
  // tensor.insert_slice rejects any offset into a dimension of size 0).
  if (llvm::is_contained(type.getShape(), 0))
    return filled;
  return tensor::InsertSliceOp::create(b, loc, x, filled, offsets, sizes,
                                       strides);
}

/// A tensor of `shape` (dynamic sizes read from `like`'s same dimensions)
/// filled with `value`.
Value filledLike(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                 Value like, Value value) {
  SmallVector<Value> dyn;
  for (auto [d, size] : llvm::enumerate(shape))
    if (ShapedType::isDynamic(size))
      dyn.push_back(tensor::DimOp::create(b, loc, like, d));
  Value empty = tensor::EmptyOp::create(b, loc, shape, value.getType(), dyn);
  return linalg::FillOp::create(b, loc, value, empty).getResult(0);
}

/// For a conv the GPU runs through cuDNN (a float conv placed on a GPU, 1-3-D,
/// grouped only in 2-D), the named linalg convolution over the padded input
/// `x`, the weights `w` (both split into groups when grouped) and `init`,
/// with the conv's own padding recorded as `tide.conv_pads` so that the GPU
/// lowering can hand cuDNN the unpadded input. f16/bf16 inputs accumulate
/// into an f32 `init` (the named ops cast to the output type). Null for
/// every other conv.
Operation *buildLibraryConv(OpBuilder &b, ConvOp op, Value x, Value w,
                            Value init, bool cpuLibrary) {
  auto type = op.getType();
  Type element = type.getElementType();
  int64_t k = type.getRank() - 2;
  bool grouped = op.getGroups() != 1;
  auto weightType = op.getWeight().getType();
  if (!(placedOnGPU(op) || cpuLibrary) || !isa<FloatType>(element) ||
      !(element.isF16() || element.isBF16() || element.isF32() ||
        element.isF64()) ||
      (grouped && k != 2) || !weightType.hasStaticShape() ||
      weightType.getNumElements() == 0)
    return nullptr;
  Location loc = op.getLoc();
  SmallVector<Type> results = {init.getType()};
  SmallVector<Value> inputs = {x, w}, outputs = {init};
  Attribute strides = b.getI64TensorAttr(op.getStrides());
  Attribute dilations = b.getI64TensorAttr(op.getDilations());
  Operation *named;
  if (grouped)
    named = linalg::Conv2DNgchwGfchwOp::create(b, loc, results, inputs, outputs,
                                               strides, dilations);
  else if (k == 1)
    named = linalg::Conv1DNcwFcwOp::create(b, loc, results, inputs, outputs,
                                           strides, dilations);
  else if (k == 2)
    named = linalg::Conv2DNchwFchwOp::create(b, loc, results, inputs, outputs,
                                             strides, dilations);
  else
    named = linalg::Conv3DNcdhwFcdhwOp::create(b, loc, results, inputs, outputs,
                                               strides, dilations);
  named->setAttr(TideDialect::getConvPadsAttrName(),
                 b.getDenseI64ArrayAttr(op.getPads()));
  return named;
}

/// Whether cuDNN runs the channels-last conv `op` in that layout: an
/// ungrouped 2-D f16/bf16/f32 conv placed on a GPU with static, non-empty
/// weights (f64 keeps the NCHW kernels cuDNN has for it).
bool isChannelsLastLibraryConv(ConvOp op) {
  Type element = op.getType().getElementType();
  auto weightType = op.getWeight().getType();
  return op.getChannelsLast() && placedOnGPU(op) && op.getGroups() == 1 &&
         op.getType().getRank() == 4 &&
         (element.isF16() || element.isBF16() || element.isF32()) &&
         weightType.hasStaticShape() && weightType.getNumElements() != 0;
}

/// A channels-last conv cuDNN runs (isChannelsLastLibraryConv), or oneDNN on
/// the CPU (an f32 one, see ConvCpu.cpp): the named
/// linalg.conv_2d_nhwc_fhwc over the zero-padded input, marked with the
/// conv's padding (`tide.conv_pads`) as the NCHW library convs are.
LogicalResult lowerChannelsLastLibraryConv(PatternRewriter &rewriter,
                                           ConvOp op) {
  Location loc = op.getLoc();
  auto type = op.getType();
  Type element = type.getElementType();
  Type acc = isNarrowFloat(element) ? rewriter.getF32Type() : element;
  ArrayRef<int64_t> pads = op.getPads();
  int64_t k = type.getRank() - 2;
  Value x =
      padSpatial(rewriter, loc, op.getInput(), pads.take_front(k),
                 pads.drop_front(k), constantOf(rewriter, loc, element, 0),
                 /*firstSpatial=*/1);
  int64_t groups = op.getGroups();
  ArrayRef<int64_t> kernel =
      op.getWeight().getType().getShape().drop_front().drop_back();
  SmallVector<OpFoldResult> sizes = windowResultSizes(
      rewriter, loc, op.getInput(), type.getShape(), /*firstSpatial=*/1, kernel,
      op.getStrides(), op.getDilations(), pads, /*ceilMode=*/false);
  if (groups == 1) {
    Value init =
        filledOfSizes(rewriter, loc, sizes, constantOf(rewriter, loc, acc, 0));
    Operation *named = linalg::Conv2DNhwcFhwcOp::create(
        rewriter, loc, TypeRange{init.getType()}, ValueRange{x, op.getWeight()},
        ValueRange{init}, rewriter.getI64TensorAttr(op.getStrides()),
        rewriter.getI64TensorAttr(op.getDilations()));
    named->setAttr(TideDialect::getConvPadsAttrName(),
                   rewriter.getDenseI64ArrayAttr(pads));
    Value result = named->getResult(0);
    if (acc != element)
      result = buildElementwise(
          rewriter, loc, type, ValueRange{result},
          [&](OpBuilder &b, Location l, ValueRange args) -> Value {
            return scalarCast(b, l, args[0], element);
          });
    rewriter.replaceOp(op, result);
    return success();
  }
  // Grouped (oneDNN on the CPU, f32): linalg.conv_2d_nhwgc_gfhwc over the
  // channels split into (groups, channels per group): (N, H, W, C) ->
  // (N, H, W, G, C/G), (F, KH, KW, C/G) -> (G, F/G, KH, KW, C/G), and the
  // result (N, OH, OW, G, F/G) collapsed back.
  auto xType = cast<RankedTensorType>(x.getType());
  auto wType = op.getWeight().getType();
  SmallVector<int64_t> xShape(xType.getShape().take_front(3));
  xShape.append({groups, xType.getDimSize(3) / groups});
  SmallVector<int64_t> wShape = {groups, wType.getDimSize(0) / groups,
                                 wType.getDimSize(1), wType.getDimSize(2),
                                 wType.getDimSize(3)};
  SmallVector<ReassociationIndices> lastSplit = {{0}, {1}, {2}, {3, 4}},
                                    firstSplit = {{0, 1}, {2}, {3}, {4}};
  Value xg = tensor::ExpandShapeOp::create(
      rewriter, loc, RankedTensorType::get(xShape, element), x, lastSplit);
  Value wg = tensor::ExpandShapeOp::create(
      rewriter, loc, RankedTensorType::get(wShape, element), op.getWeight(),
      firstSplit);
  SmallVector<OpFoldResult> ySizes(ArrayRef(sizes).take_front(3));
  ySizes.append({rewriter.getIndexAttr(groups),
                 rewriter.getIndexAttr(type.getDimSize(3) / groups)});
  Value init =
      filledOfSizes(rewriter, loc, ySizes, constantOf(rewriter, loc, acc, 0));
  Operation *named = linalg::Conv2DNhwgcGfhwcOp::create(
      rewriter, loc, TypeRange{init.getType()}, ValueRange{xg, wg},
      ValueRange{init}, rewriter.getI64TensorAttr(op.getStrides()),
      rewriter.getI64TensorAttr(op.getDilations()));
  named->setAttr(TideDialect::getConvPadsAttrName(),
                 rewriter.getDenseI64ArrayAttr(pads));
  Value result = tensor::CollapseShapeOp::create(
      rewriter, loc, RankedTensorType::get(type.getShape(), acc),
      named->getResult(0), lastSplit);
  if (acc != element)
    result = buildElementwise(
        rewriter, loc, type, ValueRange{result},
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          return scalarCast(b, l, args[0], element);
        });
  rewriter.replaceOp(op, result);
  return success();
}

/// Every other channels-last conv: the NCHW conv of its transposed operands,
/// transposed back (tide ops, lowered in turn).
LogicalResult decomposeChannelsLastConv(PatternRewriter &rewriter, ConvOp op) {
  Location loc = op.getLoc();
  int64_t rank = op.getType().getRank();
  SmallVector<int64_t> toFirst = {0, rank - 1}, toLast = {0};
  for (int64_t d = 1; d < rank - 1; ++d)
    toFirst.push_back(d);
  for (int64_t d = 2; d < rank; ++d)
    toLast.push_back(d);
  toLast.push_back(1);
  Value x = TransposeOp::create(rewriter, loc, op.getInput(), toFirst);
  Value w = TransposeOp::create(rewriter, loc, op.getWeight(), toFirst);
  Value y = ConvOp::create(rewriter, loc, x, w, op.getStrides(),
                           op.getDilations(), op.getPads(), op.getGroups(),
                           /*channels_last=*/false);
  rewriter.replaceOpWithNewOp<TransposeOp>(op, y, toLast);
  return success();
}

/// conv: zero padding, then one linalg.generic with loops (n, [g,] f,
/// o_1..o_k) parallel and (c, k_1..k_k) reduction, reading
/// input[n, [g,] c, o_i * stride_i + k_i * dilation_i] and
/// weight[[g,] f, c, k_i], accumulating into a zero fill. With groups the
/// channels are split into (groups, channels per group) by expand_shape, and
/// the result collapsed back. f16/bf16 accumulate in f32 and are rounded once.
/// The result sizes of an (ungrouped, channels-first) conv whose weight has
/// run-time sizes, with the checks static sizes would have had while
/// compiling: the weight's channels are the input's, each kernel size is
/// positive and each window fits the padded input.
SmallVector<OpFoldResult> runTimeWeightSizes(OpBuilder &b, Location loc,
                                             ConvOp op) {
  auto type = op.getType();
  Value input = op.getInput(), weight = op.getWeight();
  auto inType = cast<RankedTensorType>(input.getType());
  auto wType = cast<RankedTensorType>(weight.getType());
  int64_t k = type.getRank() - 2;
  auto idx = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto size = [&](Value v, RankedTensorType t, int64_t d) -> Value {
    return t.isDynamicDim(d) ? tensor::DimOp::create(b, loc, v, d).getResult()
                             : idx(t.getDimSize(d));
  };
  if (inType.isDynamicDim(1) || wType.isDynamicDim(1))
    assertSameSize(b, loc, op, size(weight, wType, 1), size(input, inType, 1),
                   "the weight's input channels (dimension 1) are not the "
                   "input's channels");
  SmallVector<OpFoldResult> sizes = {
      type.isDynamicDim(0) ? OpFoldResult(size(input, inType, 0))
                           : OpFoldResult(b.getIndexAttr(type.getDimSize(0))),
      type.isDynamicDim(1) ? OpFoldResult(size(weight, wType, 0))
                           : OpFoldResult(b.getIndexAttr(type.getDimSize(1)))};
  ArrayRef<int64_t> strides = op.getStrides(), dilations = op.getDilations(),
                    pads = op.getPads();
  for (int64_t i = 0; i < k; ++i) {
    if (!type.isDynamicDim(2 + i)) {
      sizes.push_back(b.getIndexAttr(type.getDimSize(2 + i)));
      continue;
    }
    Value kernel = size(weight, wType, 2 + i);
    if (wType.isDynamicDim(2 + i))
      assertThat(b, loc, op,
                 arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                       kernel, idx(1)),
                 "the weight's kernel size along spatial dimension " +
                     Twine(i) + " is 0");
    // extent = dilation * (kernel - 1) + 1; span = size + pads - extent.
    Value extent = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc,
                              arith::SubIOp::create(b, loc, kernel, idx(1)),
                              idx(dilations[i])),
        idx(1));
    Value span = arith::SubIOp::create(
        b, loc,
        arith::AddIOp::create(b, loc, size(input, inType, 2 + i),
                              idx(pads[i] + pads[k + i])),
        extent);
    assertThat(
        b, loc, op,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, span, idx(0)),
        "the window is larger than the padded input in spatial "
        "dimension " +
            Twine(i));
    sizes.push_back(arith::AddIOp::create(
                        b, loc,
                        arith::DivUIOp::create(b, loc, span, idx(strides[i])),
                        idx(1))
                        .getResult());
  }
  return sizes;
}

struct LowerConv : OpRewritePattern<ConvOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvOp op,
                                PatternRewriter &rewriter) const override {
    return lowerConv(rewriter, op, /*cpuLibrary=*/false);
  }
};
} // namespace

LogicalResult to_linalg::lowerConv(PatternRewriter &rewriter, ConvOp op,
                                   bool cpuLibrary) {
  // (A channels-last conv reaches here with `cpuLibrary` only when oneDNN
  // runs it: see ConvCpu.cpp.)
  if (op.getChannelsLast())
    return isChannelsLastLibraryConv(op) || cpuLibrary
               ? lowerChannelsLastLibraryConv(rewriter, op)
               : decomposeChannelsLastConv(rewriter, op);
  {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = op.getType();
    Type element = type.getElementType();
    Type acc = isNarrowFloat(element) ? rewriter.getF32Type() : element;
    auto weightType = op.getWeight().getType();
    int64_t k = type.getRank() - 2, groups = op.getGroups();
    ArrayRef<int64_t> strides = op.getStrides(), dilations = op.getDilations(),
                      pads = op.getPads();
    Value x =
        padSpatial(rewriter, loc, op.getInput(), pads.take_front(k),
                   pads.drop_front(k), constantOf(rewriter, loc, element, 0));
    Value w = op.getWeight();
    bool grouped = groups != 1;
    SmallVector<int64_t> outShape(type.getShape());
    if (grouped) {
      // (N, C, ...) -> (N, G, C/G, ...); (F, C/G, ...) -> (G, F/G, C/G, ...).
      auto xType = cast<RankedTensorType>(x.getType());
      SmallVector<int64_t> xShape = {xType.getDimSize(0), groups,
                                     xType.getDimSize(1) / groups};
      SmallVector<int64_t> wShape = {groups, weightType.getDimSize(0) / groups};
      SmallVector<ReassociationIndices> xMap = {{0}, {1, 2}}, wMap = {{0, 1}};
      for (int64_t d = 2; d < xType.getRank(); ++d) {
        xShape.push_back(xType.getDimSize(d));
        xMap.push_back({d + 1});
      }
      for (int64_t d = 1; d < weightType.getRank(); ++d) {
        wShape.push_back(weightType.getDimSize(d));
        wMap.push_back({d + 1});
      }
      x = tensor::ExpandShapeOp::create(
          rewriter, loc, RankedTensorType::get(xShape, element), x, xMap);
      w = tensor::ExpandShapeOp::create(
          rewriter, loc, RankedTensorType::get(wShape, element), w, wMap);
      outShape = {type.getDimSize(0), groups, type.getDimSize(1) / groups};
      llvm::append_range(outShape, type.getShape().drop_front(2));
    }
    // Loops: n, [g,] f, o_1..o_k, c, k_1..k_k.
    int64_t lead = grouped ? 3 : 2, numLoops = lead + 2 * k + 1;
    auto dim = [&](int64_t d) { return getAffineDimExpr(d, ctx); };
    SmallVector<AffineExpr> inExprs = {dim(0)}, wExprs, outExprs = {dim(0)};
    if (grouped) {
      inExprs.push_back(dim(1));
      wExprs.push_back(dim(1));
      outExprs.push_back(dim(1));
    }
    int64_t f = lead - 1, c = lead + k;
    inExprs.push_back(dim(c));
    wExprs.append({dim(f), dim(c)});
    outExprs.push_back(dim(f));
    for (int64_t i = 0; i < k; ++i) {
      inExprs.push_back(dim(lead + i) * strides[i] +
                        dim(c + 1 + i) * dilations[i]);
      wExprs.push_back(dim(c + 1 + i));
      outExprs.push_back(dim(lead + i));
    }
    SmallVector<utils::IteratorType> iterators(lead + k,
                                               utils::IteratorType::parallel);
    iterators.append(k + 1, utils::IteratorType::reduction);
    SmallVector<OpFoldResult> sizes =
        weightType.hasStaticShape()
            ? windowResultSizes(rewriter, loc, op.getInput(), type.getShape(),
                                /*firstSpatial=*/2,
                                weightType.getShape().drop_front(2), strides,
                                dilations, pads, /*ceilMode=*/false)
            : runTimeWeightSizes(rewriter, loc, op);
    if (grouped) {
      // (N, F, ...) -> (N, G, F/G, ...).
      sizes[1] = rewriter.getIndexAttr(type.getDimSize(1) / groups);
      sizes.insert(sizes.begin() + 1, rewriter.getIndexAttr(groups));
    }
    Value init =
        filledOfSizes(rewriter, loc, sizes, constantOf(rewriter, loc, acc, 0));
    Value result;
    if (Operation *named =
            buildLibraryConv(rewriter, op, x, w, init, cpuLibrary)) {
      result = named->getResult(0);
    } else {
      auto generic = linalg::GenericOp::create(
          rewriter, loc, TypeRange{init.getType()}, ValueRange{x, w},
          ValueRange{init},
          ArrayRef<AffineMap>{AffineMap::get(numLoops, 0, inExprs, ctx),
                              AffineMap::get(numLoops, 0, wExprs, ctx),
                              AffineMap::get(numLoops, 0, outExprs, ctx)},
          iterators, [&](OpBuilder &b, Location l, ValueRange args) {
            Value product =
                arith::MulFOp::create(b, l, scalarCast(b, l, args[0], acc),
                                      scalarCast(b, l, args[1], acc));
            linalg::YieldOp::create(
                b, l,
                arith::AddFOp::create(b, l, args[2], product).getResult());
          });
      result = generic.getResult(0);
    }
    if (acc != element)
      result = buildElementwise(
          rewriter, loc, RankedTensorType::get(outShape, element),
          ValueRange{result},
          [&](OpBuilder &b, Location l, ValueRange args) -> Value {
            return scalarCast(b, l, args[0], element);
          });
    if (grouped) {
      SmallVector<ReassociationIndices> map = {{0}, {1, 2}};
      for (int64_t i = 0; i < k; ++i)
        map.push_back({3 + i});
      result =
          tensor::CollapseShapeOp::create(rewriter, loc, type, result, map);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
}

namespace {
/// max_pool and avg_pool: padding (-inf or the lowest integer for max, zeros
/// for avg; as far as the last window reaches, which ceil_mode may take past
/// `pads`), then one linalg.generic with loops (n, c, o_1..o_k) parallel and
/// (k_1..k_k) reduction over input[n, c, o_i * stride_i + k_i * dilation_i]
/// (channels-last: loops (n, o_1..o_k, c), the channels innermost as they
/// are in memory, over input[n, o_i * stride_i + k_i * dilation_i, c]);
/// an empty tensor of the kernel's shape gives the window loops their sizes
/// (as linalg's named pooling ops do). avg_pool then divides each sum by its
/// count of elements (a constant, or computed from the output index where
/// windows overlap padding). f16/bf16 sums accumulate in f32.
template <typename OpTy>
struct LowerPool : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    constexpr bool isMax = std::is_same_v<OpTy, MaxPoolOp>;
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    // Unsigned integers (max_pool) compute on signless types.
    bool u = isUnsignedValue(op.getInput());
    auto type = cast<RankedTensorType>(signless(op.getType()));
    Value input =
        castTo(rewriter, loc, op.getInput(), signless(op.getInput().getType()));
    auto inType = cast<RankedTensorType>(input.getType());
    Type element = type.getElementType();
    Type acc =
        !isMax && isNarrowFloat(element) ? rewriter.getF32Type() : element;
    int64_t k = type.getRank() - 2;
    bool last = op.getChannelsLast();
    int64_t first = op.getFirstSpatialDim();
    ArrayRef<int64_t> kernel = op.getKernel(), strides = op.getStrides(),
                      dilations = op.getDilations(), pads = op.getPads();
    // Padding read by the windows: `pads` before, up to the last window's
    // end after.
    // (A run-time size pads what any size may need: the end pad, and with
    // ceil_mode up to a stride less one more; no window reads further.)
    SmallVector<int64_t> begin(pads.take_front(k)), end;
    for (int64_t i = 0; i < k; ++i) {
      int64_t extent = dilations[i] * (kernel[i] - 1) + 1;
      if (type.isDynamicDim(first + i) || inType.isDynamicDim(first + i))
        end.push_back(pads[k + i] + (op.getCeilMode() ? strides[i] - 1 : 0));
      else
        end.push_back(std::max<int64_t>(
            0, (type.getDimSize(first + i) - 1) * strides[i] + extent -
                   inType.getDimSize(first + i) - begin[i]));
    }
    Value pad = isMax && !u ? lowestOf(rewriter, loc, element)
                            : constantOf(rewriter, loc, element, 0);
    // On the GPU, a max pool with unit dilations whose every window starts
    // less than a kernel before the input (so reaches into it: ONNX and
    // PyTorch drop windows that would start in the end padding) reads the
    // input at coordinates clamped into it instead of a padded copy: a
    // clamped read repeats an element of the same window, which cannot
    // change a maximum. That saves a fill and a copy of the whole input.
    bool clamped = isMax && placedOnGPU(op) &&
                   llvm::all_of(dilations, [](int64_t d) { return d == 1; }) &&
                   llvm::any_of(llvm::concat<const int64_t>(begin, end),
                                [](int64_t v) { return v != 0; });
    // Every window must overlap the input: the first starts less than a
    // kernel before it, the last starts inside it, and the input is not
    // empty along the axis (a window over padding alone is the lowest value;
    // clamping into an empty axis would read outside the buffer).
    for (int64_t i = 0; i < k && clamped; ++i) {
      int64_t size = inType.getDimSize(first + i);
      int64_t lastStart =
          (type.getDimSize(first + i) - 1) * strides[i] - begin[i];
      clamped = !ShapedType::isDynamic(size) && size > 0 &&
                !type.isDynamicDim(first + i) && begin[i] < kernel[i] &&
                lastStart <= size - 1;
    }
    if (clamped) {
      lowerClamped(rewriter, op, input, type, begin);
      return success();
    }
    Value x = padSpatial(rewriter, loc, input, begin, end, pad, first);
    Value window = tensor::EmptyOp::create(rewriter, loc, kernel, acc);
    int64_t numLoops = 2 + 2 * k;
    auto dim = [&](int64_t d) { return getAffineDimExpr(d, ctx); };
    // Loops: n, then c and the outputs' spatial loops in memory order, then
    // the window's. Channels-last on the host: the window's loops before the
    // channels, which stay innermost (contiguous in the input and the
    // result: each window element is combined into a row of channels, a loop
    // the vectorizer takes, where a window loop of a few steps innermost
    // stays scalar).
    bool channelsInnermost = last && !placedOnGPU(op);
    AffineExpr channel = dim(channelsInnermost ? 1 + 2 * k : last ? 1 + k : 1);
    auto windowLoop = [&](int64_t i) {
      return dim(channelsInnermost ? 1 + k + i : 2 + k + i);
    };
    SmallVector<AffineExpr> inExprs = {dim(0)}, winExprs, outExprs = {dim(0)};
    if (!last) {
      inExprs.push_back(channel);
      outExprs.push_back(channel);
    }
    for (int64_t i = 0; i < k; ++i) {
      AffineExpr o = dim(spatialLoop(op, i));
      inExprs.push_back(o * strides[i] + windowLoop(i) * dilations[i]);
      winExprs.push_back(windowLoop(i));
      outExprs.push_back(o);
    }
    if (last) {
      inExprs.push_back(channel);
      outExprs.push_back(channel);
    }
    SmallVector<utils::IteratorType> iterators(
        channelsInnermost ? 1 + k : 2 + k, utils::IteratorType::parallel);
    iterators.append(k, utils::IteratorType::reduction);
    if (channelsInnermost)
      iterators.push_back(utils::IteratorType::parallel);
    Value init = filledOfSizes(
        rewriter, loc,
        windowResultSizes(rewriter, loc, input, type.getShape(), first, kernel,
                          strides, dilations, pads, op.getCeilMode()),
        isMax && !u ? lowestOf(rewriter, loc, acc)
                    : constantOf(rewriter, loc, acc, 0));
    bool f = isFloat(element);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{init.getType()}, ValueRange{x, window},
        ValueRange{init},
        ArrayRef<AffineMap>{AffineMap::get(numLoops, 0, inExprs, ctx),
                            AffineMap::get(numLoops, 0, winExprs, ctx),
                            AffineMap::get(numLoops, 0, outExprs, ctx)},
        iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          Value v = scalarCast(b, l, args[0], acc);
          Value r;
          if (isMax)
            r = f   ? arith::MaximumFOp::create(b, l, args[2], v).getResult()
                : u ? arith::MaxUIOp::create(b, l, args[2], v).getResult()
                    : arith::MaxSIOp::create(b, l, args[2], v).getResult();
          else
            r = arith::AddFOp::create(b, l, args[2], v);
          linalg::YieldOp::create(b, l, r);
        });
    Value result = generic.getResult(0);
    if constexpr (!isMax)
      result = divideByCount(rewriter, loc, op, result, end);
    replaceFromSignless(rewriter, op, result);
    return success();
  }

  /// The loop of the generic over output spatial dimension `i`.
  static int64_t spatialLoop(OpTy op, int64_t i) {
    return op.getChannelsLast() ? 1 + i : 2 + i;
  }

  /// max_pool (unit dilations, padding less than the kernel) as one generic
  /// over the output and the window whose body reads the unpadded input at
  /// clamped coordinates (tensor.extract).
  static void lowerClamped(PatternRewriter &rewriter, OpTy op, Value input,
                           RankedTensorType type, ArrayRef<int64_t> begin) {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    bool u = isUnsignedValue(op.getInput());
    Type element = type.getElementType();
    auto inType = cast<RankedTensorType>(input.getType());
    int64_t rank = type.getRank(), k = rank - 2;
    bool last = op.getChannelsLast();
    int64_t first = op.getFirstSpatialDim();
    ArrayRef<int64_t> kernel = op.getKernel(), strides = op.getStrides();
    Value window = tensor::EmptyOp::create(rewriter, loc, kernel, element);
    int64_t numLoops = 2 + 2 * k;
    auto dim = [&](int64_t d) { return getAffineDimExpr(d, ctx); };
    SmallVector<AffineExpr> winExprs, outExprs;
    for (int64_t d = 0; d < rank; ++d)
      outExprs.push_back(dim(d)); // loops in the result's dimension order
    for (int64_t i = 0; i < k; ++i)
      winExprs.push_back(dim(2 + k + i));
    SmallVector<utils::IteratorType> iterators(2 + k,
                                               utils::IteratorType::parallel);
    iterators.append(k, utils::IteratorType::reduction);
    Value init = filledLike(rewriter, loc, type.getShape(), input,
                            u ? constantOf(rewriter, loc, element, 0)
                              : lowestOf(rewriter, loc, element));
    bool f = isFloat(element);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{init.getType()}, ValueRange{window},
        ValueRange{init},
        ArrayRef<AffineMap>{AffineMap::get(numLoops, 0, winExprs, ctx),
                            AffineMap::get(numLoops, 0, outExprs, ctx)},
        iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          auto idx = [&](int64_t v) -> Value {
            return arith::ConstantIndexOp::create(b, l, v);
          };
          SmallVector<Value> coords(rank);
          coords[0] = linalg::IndexOp::create(b, l, 0);
          int64_t channel = last ? rank - 1 : 1;
          coords[channel] = linalg::IndexOp::create(b, l, channel);
          for (int64_t i = 0; i < k; ++i) {
            // clamp(o * stride + w - begin, 0, size - 1)
            Value at = arith::AddIOp::create(
                b, l,
                arith::MulIOp::create(b, l,
                                      linalg::IndexOp::create(b, l, first + i),
                                      idx(strides[i])),
                linalg::IndexOp::create(b, l, 2 + k + i));
            at = arith::SubIOp::create(b, l, at, idx(begin[i]));
            at = arith::MaxSIOp::create(b, l, at, idx(0));
            at = arith::MinSIOp::create(b, l, at,
                                        idx(inType.getDimSize(first + i) - 1));
            coords[first + i] = at;
          }
          Value v = tensor::ExtractOp::create(b, l, input, coords);
          Value r = f ? arith::MaximumFOp::create(b, l, args[1], v).getResult()
                    : u ? arith::MaxUIOp::create(b, l, args[1], v).getResult()
                        : arith::MaxSIOp::create(b, l, args[1], v).getResult();
          linalg::YieldOp::create(b, l, r);
        });
    replaceFromSignless(rewriter, op, generic.getResult(0));
  }

  /// avg_pool: each window's sum divided by its number of elements (inside
  /// the input, or with count_include_pad inside the padded input), rounded
  /// to the result's type.
  static Value divideByCount(PatternRewriter &rewriter, Location loc,
                             AvgPoolOp op, Value sums,
                             ArrayRef<int64_t> reach) {
    auto type = op.getType();
    auto inType = op.getInput().getType();
    Type element = type.getElementType();
    Type acc = cast<RankedTensorType>(sums.getType()).getElementType();
    int64_t k = type.getRank() - 2;
    ArrayRef<int64_t> kernel = op.getKernel(), strides = op.getStrides(),
                      dilations = op.getDilations(), pads = op.getPads();
    bool include = op.getCountIncludePad();
    int64_t first = op.getFirstSpatialDim();
    // Per dimension, the range [lo, hi) of padded coordinates that count
    // (hi computed at run time for a run-time size).
    SmallVector<int64_t> lo;
    SmallVector<OpFoldResult> hi;
    bool constant = true;
    for (int64_t i = 0; i < k; ++i) {
      int64_t size = inType.getDimSize(first + i);
      int64_t after = include ? pads[i] + pads[k + i] : pads[i];
      lo.push_back(include ? 0 : pads[i]);
      if (ShapedType::isDynamic(size)) {
        hi.push_back(
            arith::AddIOp::create(
                rewriter, loc,
                tensor::DimOp::create(rewriter, loc, op.getInput(), first + i),
                arith::ConstantIndexOp::create(rewriter, loc, after))
                .getResult());
        constant = false;
        continue;
      }
      hi.push_back(rewriter.getIndexAttr(size + after));
      // Every window is inside [lo, hi) when nothing outside it is read.
      constant &= lo.back() == 0 && pads[i] + size + reach[i] <= size + after;
    }
    return buildElementwise(
        rewriter, loc, type, ValueRange{sums},
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value count;
          if (constant) {
            int64_t n = 1;
            for (int64_t size : kernel)
              n *= size;
            count = constantOf(b, l, acc, static_cast<double>(n));
          } else {
            auto idx = [&](int64_t v) -> Value {
              return arith::ConstantIndexOp::create(b, l, v);
            };
            // ceil(max(v, 0) / d) for the first/last window element in range.
            auto ceilDiv = [&](Value v, int64_t d) -> Value {
              v = arith::MaxSIOp::create(b, l, v, idx(0));
              return arith::DivUIOp::create(
                  b, l, arith::AddIOp::create(b, l, v, idx(d - 1)), idx(d));
            };
            Value n = idx(1);
            for (int64_t i = 0; i < k; ++i) {
              Value start = arith::MulIOp::create(
                  b, l, linalg::IndexOp::create(b, l, spatialLoop(op, i)),
                  idx(strides[i]));
              // Window elements j with lo <= start + j * dilation < hi.
              Value first = ceilDiv(
                  arith::SubIOp::create(b, l, idx(lo[i]), start), dilations[i]);
              Value end = isa<Value>(hi[i]) ? cast<Value>(hi[i])
                                            : idx(*getConstantIntValue(hi[i]));
              Value last = arith::MinSIOp::create(
                  b, l,
                  ceilDiv(arith::SubIOp::create(b, l, end, start),
                          dilations[i]),
                  idx(kernel[i]));
              Value inside = arith::MaxSIOp::create(
                  b, l, arith::SubIOp::create(b, l, last, first), idx(0));
              n = arith::MulIOp::create(b, l, n, inside);
            }
            count = arith::SIToFPOp::create(
                b, l, acc, arith::IndexCastOp::create(b, l, b.getI64Type(), n));
          }
          return scalarCast(b, l, arith::DivFOp::create(b, l, args[0], count),
                            element);
        });
  }
};

struct LowerTranspose : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(signless(op.getType()));
    Value input = toSignless(rewriter, loc, op.getInput()).front();
    SmallVector<Value> dyn;
    for (auto [i, p] : llvm::enumerate(op.getPerm()))
      if (resultType.isDynamicDim(i))
        dyn.push_back(tensor::DimOp::create(rewriter, loc, input, p));
    Value init = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                         resultType.getElementType(), dyn);
    replaceFromSignless(
        rewriter, op,
        linalg::TransposeOp::create(rewriter, loc, input, init, op.getPerm())
            .getResult());
    return success();
  }
};

struct LowerConcat : OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(signless(op.getType()));
    SmallVector<Value> all = toSignless(rewriter, loc, op.getInputs());
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += resultType.getRank();
    // The inputs' other sizes must agree at run time (the first input's, or
    // the result's static size, against every other).
    for (int64_t d = 0; d < resultType.getRank(); ++d) {
      if (d == axis)
        continue;
      bool resultKnows = !resultType.isDynamicDim(d);
      Value first = resultKnows ? arith::ConstantIndexOp::create(
                                      rewriter, loc, resultType.getDimSize(d))
                                      .getResult()
                                : Value();
      for (auto [k, input] : llvm::enumerate(all)) {
        auto t = cast<RankedTensorType>(input.getType());
        Value size =
            t.isDynamicDim(d)
                ? tensor::DimOp::create(rewriter, loc, input, d).getResult()
                : arith::ConstantIndexOp::create(rewriter, loc, t.getDimSize(d))
                      .getResult();
        if (!first) {
          first = size;
          continue;
        }
        assertSameSize(rewriter, loc, op, size, first,
                       "the size of dimension " + Twine(d) + " of input " +
                           Twine(k) + " differs from " +
                           (resultKnows ? "the result's" : "input 0's") +
                           " at run time");
      }
    }
    // Inputs of static size 0 along the axis add nothing; tensor.concat would
    // insert them at an offset past the end (a verifier error).
    SmallVector<Value> inputs;
    for (Value input : all)
      if (cast<RankedTensorType>(input.getType()).getDimSize(axis) != 0)
        inputs.push_back(input);
    // A result with no elements (a static 0 in any dimension; upstream also
    // rejects inserting into one) is an empty tensor of the right sizes.
    if (inputs.empty() || llvm::is_contained(resultType.getShape(), 0)) {
      SmallVector<Value> dyn;
      for (int64_t d = 0; d < resultType.getRank(); ++d) {
        if (!resultType.isDynamicDim(d))
          continue;
        if (d != axis) {
          dyn.push_back(tensor::DimOp::create(rewriter, loc, all.front(), d));
          continue;
        }
        Value sum = arith::ConstantIndexOp::create(rewriter, loc, 0);
        for (Value input : all)
          sum = arith::AddIOp::create(
              rewriter, loc, sum,
              tensor::DimOp::create(rewriter, loc, input, d));
        dyn.push_back(sum);
      }
      replaceFromSignless(
          rewriter, op,
          tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                  resultType.getElementType(), dyn)
              .getResult());
      return success();
    }
    replaceFromSignless(
        rewriter, op,
        tensor::ConcatOp::create(rewriter, loc, resultType, axis, inputs)
            .getResult());
    return success();
  }
};

struct LowerSlice : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(signless(op.getType()));
    SmallVector<int64_t> sizes(type.getShape());
    // An empty slice reads nothing (tensor.extract_slice wants offsets inside
    // the input's dimensions, which a size-0 dimension has none of).
    if (llvm::is_contained(sizes, 0)) {
      replaceFromSignless(
          rewriter, op,
          tensor::EmptyOp::create(rewriter, loc, sizes, type.getElementType())
              .getResult());
      return success();
    }
    SmallVector<int64_t> offsets(op.getStart());
    Value input = toSignless(rewriter, loc, op.getInput()).front();
    // On a dimension known only at run time, the last element the slice
    // reads must be inside the input when it runs.
    auto inType = cast<RankedTensorType>(input.getType());
    for (int64_t d = 0; d < inType.getRank(); ++d) {
      if (!inType.isDynamicDim(d))
        continue;
      int64_t last = offsets[d] + (sizes[d] - 1) * op.getStrides()[d];
      Value inside = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::slt,
          arith::ConstantIndexOp::create(rewriter, loc, last),
          tensor::DimOp::create(rewriter, loc, input, d));
      assertThat(rewriter, loc, op, inside,
                 "the slice's bounds on dimension " + Twine(d) +
                     " lie outside the input at run time");
    }
    replaceFromSignless(rewriter, op,
                        tensor::ExtractSliceOp::create(
                            rewriter, loc, type, input, ValueRange{},
                            ValueRange{}, ValueRange{},
                            rewriter.getDenseI64ArrayAttr(offsets),
                            rewriter.getDenseI64ArrayAttr(sizes),
                            rewriter.getDenseI64ArrayAttr(op.getStrides()))
                            .getResult());
    return success();
  }
};

struct LowerReshape : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(signless(op.getType()));
    Value input = toSignless(rewriter, loc, op.getInput()).front();
    auto inType = cast<RankedTensorType>(input.getType());
    int64_t dynamicCount = resultType.getNumDynamicDims();
    Value shapeOperand = op.getShape();
    // A reshape that only inserts or drops size-1 dimensions keeps the other
    // sizes in order: each dynamic result size is an input's (einsum's and
    // broadcasting's unit dimensions need no shape operand).
    SmallVector<int64_t> fromInput;
    if (!shapeOperand && dynamicCount > 1) {
      SmallVector<int64_t> kept;
      for (int64_t d = 0; d < inType.getRank(); ++d)
        if (inType.getDimSize(d) != 1)
          kept.push_back(d);
      size_t next = 0;
      for (int64_t size : resultType.getShape()) {
        if (size == 1) {
          fromInput.push_back(-1);
          continue;
        }
        if (next == kept.size() || inType.getDimSize(kept[next]) != size) {
          fromInput.clear();
          break;
        }
        fromInput.push_back(kept[next++]);
      }
      if (next != kept.size())
        fromInput.clear();
    }
    if (dynamicCount > 1 && !shapeOperand && fromInput.empty())
      return op.emitOpError("cannot lower: more than one dynamic result "
                            "dimension and no shape operand; make all but one "
                            "static or pass the sizes");
    // Static shapes: a view (collapse and/or expand), no shape operand (on a
    // GPU, a shape tensor would be copied to the device on every call).
    if (inType.hasStaticShape() && resultType.hasStaticShape() &&
        inType.getRank() >= 1 && resultType.getRank() >= 1) {
      Value result = input;
      if (inType.getShape() != resultType.getShape()) {
        std::optional<SmallVector<ReassociationIndices>> reassociation =
            getReassociationIndicesForReshape(inType, resultType);
        if (reassociation && inType.getRank() > resultType.getRank()) {
          result = tensor::CollapseShapeOp::create(rewriter, loc, resultType,
                                                   input, *reassociation);
        } else if (reassociation) {
          result = tensor::ExpandShapeOp::create(rewriter, loc, resultType,
                                                 input, *reassociation);
        } else {
          // Through 1-D: both views.
          auto flat = RankedTensorType::get({inType.getNumElements()},
                                            inType.getElementType());
          ReassociationIndices in, out;
          for (int64_t d = 0; d < inType.getRank(); ++d)
            in.push_back(d);
          for (int64_t d = 0; d < resultType.getRank(); ++d)
            out.push_back(d);
          Value collapsed = tensor::CollapseShapeOp::create(
              rewriter, loc, flat, input, ArrayRef<ReassociationIndices>{in});
          result = tensor::ExpandShapeOp::create(
              rewriter, loc, resultType, collapsed,
              ArrayRef<ReassociationIndices>{out});
        }
      }
      replaceFromSignless(rewriter, op, result);
      return success();
    }
    Value total = arith::ConstantIndexOp::create(rewriter, loc, 1);
    for (int64_t d = 0; d < inType.getRank(); ++d)
      total = arith::MulIOp::create(
          rewriter, loc, total, tensor::DimOp::create(rewriter, loc, input, d));
    SmallVector<Value> dims;
    for (auto [d, size] : llvm::enumerate(resultType.getShape())) {
      if (!ShapedType::isDynamic(size))
        dims.push_back(arith::ConstantIndexOp::create(rewriter, loc, size));
      else if (shapeOperand)
        dims.push_back(getShapeEntry(rewriter, loc, shapeOperand, d));
      else if (!fromInput.empty())
        dims.push_back(
            tensor::DimOp::create(rewriter, loc, input, fromInput[d]));
      else
        dims.push_back(Value());
    }
    // A dynamic size not given (no shape operand) or possibly -1 at run
    // time is the element count over the other sizes.
    SmallVector<Value> sizes(dims);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    for (auto [d, size] : llvm::enumerate(dims)) {
      if (size && isKnownNonNegative(size))
        continue;
      // The other sizes' product (at least 1: no division by 0).
      int64_t known = 1;
      Value others;
      for (auto [e, other] : llvm::enumerate(dims)) {
        if (e == d || !other)
          continue;
        if (!resultType.isDynamicDim(e))
          known *= resultType.getDimSize(e);
        else
          others = others ? arith::MulIOp::create(rewriter, loc, others, other)
                                .getResult()
                          : other;
      }
      if (!others) {
        others = arith::ConstantIndexOp::create(rewriter, loc,
                                                std::max<int64_t>(known, 1));
      } else {
        if (known != 1)
          others = arith::MulIOp::create(
              rewriter, loc, others,
              arith::ConstantIndexOp::create(rewriter, loc, known));
        others = arith::MaxSIOp::create(rewriter, loc, others, one);
      }
      Value fill = arith::DivUIOp::create(rewriter, loc, total, others);
      if (!size) {
        sizes[d] = fill;
        continue;
      }
      Value inferred = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::eq, size,
          arith::ConstantIndexOp::create(rewriter, loc, -1));
      sizes[d] = arith::SelectOp::create(rewriter, loc, inferred, fill, size);
    }
    // The sizes must keep the element count (a wrong shape operand, or a
    // run-time input of another size).
    Value count = arith::ConstantIndexOp::create(rewriter, loc, 1);
    for (Value size : sizes)
      count = arith::MulIOp::create(rewriter, loc, count, size);
    assertSameSize(rewriter, loc, op, count, total,
                   "the result's sizes do not keep the input's element count "
                   "at run time");
    Value shape = tensor::FromElementsOp::create(
        rewriter, loc,
        RankedTensorType::get({resultType.getRank()}, rewriter.getIndexType()),
        sizes);
    replaceFromSignless(
        rewriter, op,
        tensor::ReshapeOp::create(rewriter, loc, resultType, input, shape)
            .getResult());
    return success();
  }
};

/// A transfer is a copy into a new buffer in the destination's memory space
/// (see getMemorySpace); one-shot bufferization turns it into an allocation
/// and a memref.copy, which the GPU lowering turns into a device copy.
struct LowerTransfer : OpRewritePattern<TransferOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransferOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(signless(op.getType()));
    Value input = toSignless(rewriter, op.getLoc(), op.getInput()).front();
    replaceFromSignless(rewriter, op,
                        bufferization::AllocTensorOp::create(
                            rewriter, op.getLoc(), type, ValueRange(), input,
                            /*size_hint=*/Value(), getMemorySpace(op.getTo()))
                            .getResult());
    return success();
  }
};

/// A softmax over the last axis placed on a GPU stays one op
/// (linalg.softmax), which the GPU lowering turns into one fused row kernel;
/// elsewhere softmax is decomposed.
struct LowerGpuSoftmax : OpRewritePattern<SoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SoftmaxOp op,
                                PatternRewriter &rewriter) const override {
    DeviceAttr device = getDevice(op);
    auto type = cast<RankedTensorType>(op.getType());
    int64_t axis = op.getAxis();
    if (axis < 0)
      axis += type.getRank();
    if (!device || !device.isGPU() || axis != type.getRank() - 1)
      return rewriter.notifyMatchFailure(op, "not a last-axis GPU softmax");
    SmallVector<Value> dyn;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d))
        dyn.push_back(
            tensor::DimOp::create(rewriter, op.getLoc(), op.getInput(), d));
    Value init = tensor::EmptyOp::create(rewriter, op.getLoc(), type.getShape(),
                                         type.getElementType(), dyn);
    rewriter.replaceOpWithNewOp<linalg::SoftmaxOp>(op, type, op.getInput(),
                                                   init, axis);
    return success();
  }
};

/// f16/bf16 softmax and log_softmax compute in f32 and round once: cast to
/// f32, the same op in f32 (then decomposed), cast back. (A last-axis GPU
/// softmax stays one linalg.softmax, whose kernel computes in f32:
/// LowerGpuSoftmax is tried first.)
template <typename OpTy>
struct WidenNarrowSoftmax : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    if (!isNarrowFloat(type.getElementType()))
      return rewriter.notifyMatchFailure(op, "not f16/bf16");
    Location loc = op.getLoc();
    auto wide = type.clone(rewriter.getF32Type());
    Value x = CastOp::create(rewriter, loc, wide, op.getInput());
    Value y = OpTy::create(rewriter, loc, wide, x, op.getAxisAttr());
    rewriter.replaceOpWithNewOp<CastOp>(op, type, y);
    return success();
  }
};

/// Carries `tide.device` from the tide op a pattern rewrites onto the ops
/// the pattern creates beside it (not onto ops inside their regions, such as
/// linalg payloads): later passes need to know where linalg ops run.
struct DeviceCarrier : public RewriterBase::Listener {
  /// The ops being rewritten, innermost last, with their devices.
  SmallVector<std::pair<Operation *, DeviceAttr>> roots;

  void notifyPatternBegin(const Pattern &, Operation *op) override {
    DeviceAttr device = isa<TransferOp>(op) ? DeviceAttr() : getDevice(op);
    roots.emplace_back(op, device);
  }
  void notifyPatternEnd(const Pattern &, LogicalResult) override {
    roots.pop_back();
  }
  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
    if (roots.empty())
      return;
    auto [root, device] = roots.back();
    if (device && op->getBlock() == root->getBlock() &&
        !op->hasAttr(TideDialect::getDeviceAttrName()))
      op->setAttr(TideDialect::getDeviceAttrName(), device);
  }
};

/// Whether `type` (or a type inside a function type) has unsigned integers.
bool hasUnsigned(Type type) {
  if (auto fn = dyn_cast<FunctionType>(type))
    return llvm::any_of(fn.getInputs(), hasUnsigned) ||
           llvm::any_of(fn.getResults(), hasUnsigned);
  return signless(type) != type;
}

/// Makes the function boundary signless: signatures, returns and calls of
/// uiN tensors become iN tensors, and the casts the patterns left between
/// the two cancel. Nothing is done (and nothing changes) when no unsigned
/// type is left.
LogicalResult convertUnsignedBoundary(Operation *root) {
  bool any = false;
  root->walk([&](Operation *op) {
    if (auto fn = dyn_cast<FunctionOpInterface>(op))
      any |= hasUnsigned(fn.getFunctionType());
    any |= llvm::any_of(op->getResultTypes(), hasUnsigned) ||
           llvm::any_of(op->getOperandTypes(), hasUnsigned);
  });
  if (!any)
    return success();
  MLIRContext *ctx = root->getContext();
  TypeConverter converter;
  converter.addConversion([](Type type) { return signless(type); });
  auto materialize = [](OpBuilder &b, Type type, ValueRange inputs,
                        Location loc) -> Value {
    return UnrealizedConversionCastOp::create(b, loc, type, inputs)
        .getResult(0);
  };
  converter.addSourceMaterialization(materialize);
  converter.addTargetMaterialization(materialize);
  ConversionTarget target(*ctx);
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp op) {
    return converter.isSignatureLegal(op.getFunctionType()) &&
           converter.isLegal(&op.getBody());
  });
  target.addDynamicallyLegalOp<func::ReturnOp, func::CallOp>(
      [&](Operation *op) { return converter.isLegal(op); });
  target.addLegalOp<UnrealizedConversionCastOp>();
  RewritePatternSet patterns(ctx);
  populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                 converter);
  populateReturnOpTypeConversionPattern(patterns, converter);
  populateCallOpTypeConversionPattern(patterns, converter);
  if (failed(applyPartialConversion(root, target, std::move(patterns))))
    return failure();
  SmallVector<UnrealizedConversionCastOp> casts;
  root->walk([&](UnrealizedConversionCastOp op) { casts.push_back(op); });
  reconcileUnrealizedCasts(casts);
  WalkResult left = root->walk([&](Operation *op) {
    if (llvm::any_of(op->getResultTypes(), hasUnsigned)) {
      op->emitError("an unsigned integer type is left after lowering; only "
                    "func.func, func.return and func.call are converted at "
                    "the boundary");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(left.wasInterrupted());
}

struct ConvertTideToLinalgPass
    : public tide::impl::ConvertTideToLinalgPassBase<ConvertTideToLinalgPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *ctx) override {
    RewritePatternSet set(ctx);
    populateTideToLinalgPatterns(set);
    SmallVector<std::string> disabled;
    if (!convGemm)
      disabled.push_back(kCpuConvPatternLabel);
    if (!dnnl)
      disabled.push_back(kCpuLibraryConvPatternLabel);
    patterns = FrozenRewritePatternSet(std::move(set), disabled);
    return success();
  }

  void runOnOperation() override {
    Operation *root = getOperation();
    if (!gpu) {
      // The CPU pipeline cannot run GPU-placed ops.
      bool ok = true;
      root->walk([&](Operation *op) {
        if (!isa<TideDialect>(op->getDialect()))
          return;
        DeviceAttr device =
            isa<TransferOp>(op) ? cast<TransferOp>(op).getTo() : getDevice(op);
        if (device && device.isGPU()) {
          const char *fix = ": compile it with the GPU pipeline "
                            "(tide-gpu-pipeline; tide-compile picks it), or "
                            "place with target=cpu";
          if (isa<TransferOp>(op))
            op->emitError() << "a copy to " << device.str() << fix;
          else
            op->emitOpError() << "is placed on " << device.str() << fix;
          ok = false;
        }
      });
      if (!ok)
        return signalPassFailure();
    }
    // MLIR's greedy driver, restricted to rewriting: no folding, no region
    // simplification, no constant CSE. Ops a pattern creates are visited too
    // (a composite decomposed into tide ops is lowered in turn).
    DeviceCarrier carrier;
    GreedyRewriteConfig config;
    config.enableFolding(false)
        .enableConstantCSE(false)
        .setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled)
        .setListener(&carrier);
    // A convolution's run-time channel count must be its weight's times the
    // groups, whichever pattern lowers it (oneDNN, im2col, loops, cuDNN).
    root->walk([&](ConvOp op) {
      auto inType = op.getInput().getType(), wType = op.getWeight().getType();
      if (op.getChannelsLast() || !inType.isDynamicDim(1) ||
          wType.isDynamicDim(1))
        return;
      OpBuilder b(op);
      Location loc = op.getLoc();
      to_linalg::assertSameSize(
          b, loc, op, tensor::DimOp::create(b, loc, op.getInput(), 1),
          arith::ConstantIndexOp::create(b, loc,
                                         wType.getDimSize(1) * op.getGroups()),
          "the input's channel count differs from the weight's (times the "
          "groups) at run time");
    });
    // Run-time sizes are computed from the tide ops that define them, before
    // those ops are lowered.
    scalarizeHostOperands(root);
    (void)applyPatternsGreedily(root, patterns, config);
    WalkResult left = root->walk([&](Operation *op) {
      if (!isa<TideDialect>(op->getDialect()))
        return WalkResult::advance();
      op->emitError("cannot be lowered to linalg");
      return WalkResult::interrupt();
    });
    if (left.wasInterrupted() || failed(convertUnsignedBoundary(root)))
      signalPassFailure();
  }

private:
  FrozenRewritePatternSet patterns;
};

} // namespace

void mlir::tide::populateTideToLinalgPatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  // Tried before the decomposition (patterns are tried in order).
  patterns.add<LowerGpuSoftmax, WidenNarrowSoftmax<SoftmaxOp>,
               WidenNarrowSoftmax<LogSoftmaxOp>>(ctx);
  populateDecompositionPatterns(patterns);
  patterns.add<LowerElementwise, LowerConstant, LowerMatmul, LowerTranspose,
               LowerConcat, LowerSlice, LowerReshape, LowerTransfer,
               LowerCumulative<CumsumOp>, LowerCumulative<CumprodOp>, LowerConv,
               LowerPool<MaxPoolOp>, LowerPool<AvgPoolOp>,
               LowerReduction<ReduceSumOp>, LowerReduction<ReduceMeanOp>,
               LowerReduction<ReduceMaxOp>, LowerReduction<ReduceMinOp>,
               LowerReduction<ReduceProdOp>, LowerReduction<ArgmaxOp>,
               LowerReduction<ArgminOp>>(ctx);
  populateIndexingPatterns(patterns);
  populateShapeOperandPatterns(patterns);
  populateDataDependentPatterns(patterns);
  populateSelectionPatterns(patterns);
  populateScanPatterns(patterns);
  populateIfPatterns(patterns);
  populateCpuConvPatterns(patterns);
}
