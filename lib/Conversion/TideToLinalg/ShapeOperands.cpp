//===- ShapeOperands.cpp - Run-time sizes: tide.dim, iota, dynamic_slice --===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// Ops whose result sizes are known only at run time read them from `host`
// operands (Tide_OperandRoles): small i64 vectors built from tide.dim,
// constants, tide.concat and integer arithmetic. Before any op is lowered,
// scalarizeHostOperands turns each such operand into a tensor.from_elements
// of scalars computed directly from tensor.dim and constants, following the
// vector's tide ops element by element (like onnx-mlir's IndexExpr and
// torch-mlir's scalarize-shapes); an element it cannot follow is read from
// the vector at run time (tensor.extract, on the host: placement keeps host
// operands on the CPU). The patterns then read entry i as an index, and
// canonicalization folds the vectors away, so the shape subgraph usually
// leaves no code but a few tensor.dim and integer ops on the host.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "tide/IR/TideOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tide;
using namespace mlir::tide::to_linalg;

namespace {

/// Shape vectors longer than this are read at run time, element by element.
constexpr int64_t kMaxShapeElements = 64;
/// How deep the element-wise evaluation follows a chain of ops.
constexpr int kMaxDepth = 32;

/// Row-major strides of `shape`.
SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

/// The flat index into `operand` (NumPy-broadcast to `resultShape`) of the
/// result element at flat index `flat`.
int64_t broadcastIndex(ArrayRef<int64_t> resultShape, RankedTensorType operand,
                       int64_t flat) {
  SmallVector<int64_t> rs = stridesOf(resultShape);
  SmallVector<int64_t> os = stridesOf(operand.getShape());
  int64_t offset = resultShape.size() - operand.getRank(), index = 0;
  for (int64_t d = 0; d < static_cast<int64_t>(resultShape.size()); ++d) {
    int64_t i = flat / rs[d];
    flat %= rs[d];
    int64_t od = d - offset;
    if (od >= 0 && operand.getDimSize(od) != 1)
      index += i * os[od];
  }
  return index;
}

/// Computes single elements of small integer tensors as host scalars.
class ElementEvaluator {
public:
  ElementEvaluator(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  /// Element `flat` of `v` as a signless scalar of its element type, or null
  /// when it depends on something other than sizes and constants.
  Value get(Value v, int64_t flat, int depth = 0) {
    auto key = std::make_pair(v, flat);
    auto it = memo.find(key);
    if (it != memo.end())
      return it->second;
    Value r = compute(v, flat, depth);
    memo[key] = r;
    return r;
  }

private:
  OpBuilder &b;
  Location loc;
  DenseMap<std::pair<Value, int64_t>, Value> memo;

  Value constant(Type type, const APInt &value) {
    return arith::ConstantOp::create(b, loc, type,
                                     b.getIntegerAttr(type, value));
  }

  Value compute(Value v, int64_t flat, int depth) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type || !type.hasStaticShape() || depth > kMaxDepth ||
        type.getNumElements() > kMaxShapeElements)
      return {};
    auto element = dyn_cast<IntegerType>(type.getElementType());
    Operation *op = v.getDefiningOp();
    if (!element || !op)
      return {};
    Type scalar = b.getIntegerType(element.getWidth());
    bool isUnsigned = !element.isSignless();
    auto operand = [&](unsigned i) {
      return get(op->getOperand(i),
                 broadcastIndex(
                     type.getShape(),
                     cast<RankedTensorType>(op->getOperand(i).getType()), flat),
                 depth + 1);
    };
    DenseIntElementsAttr dense;
    if (matchPattern(v, m_Constant(&dense)))
      return constant(scalar, dense.getValues<APInt>()[flat]);
    return TypeSwitch<Operation *, Value>(op)
        .Case([&](DimOp dim) -> Value {
          // On the signless view of the tensor, like every lowered op.
          Value input = castTo(b, loc, dim.getInput(),
                               signless(dim.getInput().getType()));
          Value size = tensor::DimOp::create(b, loc, input, dim.getAxis());
          return arith::IndexCastOp::create(b, loc, scalar, size);
        })
        .Case([&](ConcatOp concat) -> Value {
          int64_t axis = concat.getAxis();
          if (axis < 0)
            axis += type.getRank();
          SmallVector<int64_t> strides = stridesOf(type.getShape());
          SmallVector<int64_t> index;
          for (int64_t d = 0, rest = flat; d < type.getRank(); ++d) {
            index.push_back(rest / strides[d]);
            rest %= strides[d];
          }
          for (Value input : concat.getInputs()) {
            auto inType = cast<RankedTensorType>(input.getType());
            int64_t size = inType.getDimSize(axis);
            if (index[axis] < size) {
              int64_t at = 0;
              SmallVector<int64_t> inStrides = stridesOf(inType.getShape());
              for (int64_t d = 0; d < type.getRank(); ++d)
                at += index[d] * inStrides[d];
              return get(input, at, depth + 1);
            }
            index[axis] -= size;
          }
          return {};
        })
        .Case([&](ReshapeOp reshape) -> Value {
          return get(reshape.getInput(), flat, depth + 1);
        })
        .Case([&](BroadcastToOp) -> Value { return operand(0); })
        .Case([&](SliceOp slice) -> Value {
          SmallVector<int64_t> strides = stridesOf(type.getShape());
          auto inType = slice.getInput().getType();
          SmallVector<int64_t> inStrides = stridesOf(inType.getShape());
          int64_t at = 0;
          for (int64_t d = 0, rest = flat; d < type.getRank(); ++d) {
            int64_t i = rest / strides[d];
            rest %= strides[d];
            at += (slice.getStart()[d] + i * slice.getStrides()[d]) *
                  inStrides[d];
          }
          return get(slice.getInput(), at, depth + 1);
        })
        .Case([&](CastOp cast) -> Value {
          auto from =
              dyn_cast<IntegerType>(cast.getInput().getType().getElementType());
          if (!from)
            return {};
          Value x = get(cast.getInput(), flat, depth + 1);
          if (!x || from.getWidth() == element.getWidth())
            return x;
          if (from.getWidth() > element.getWidth())
            return arith::TruncIOp::create(b, loc, scalar, x);
          if (from.isSignless() && from.getWidth() > 1)
            return arith::ExtSIOp::create(b, loc, scalar, x);
          return arith::ExtUIOp::create(b, loc, scalar, x);
        })
        .Case<AddOp, SubOp, MulOp, MaximumOp, MinimumOp, AndOp,
              OrOp>([&](Operation *) -> Value {
          if (isUnsigned && isa<MaximumOp, MinimumOp>(op))
            return {};
          Value x = operand(0), y = x ? operand(1) : Value();
          if (!y)
            return {};
          return TypeSwitch<Operation *, Value>(op)
              .Case([&](AddOp) { return arith::AddIOp::create(b, loc, x, y); })
              .Case([&](SubOp) { return arith::SubIOp::create(b, loc, x, y); })
              .Case([&](MulOp) { return arith::MulIOp::create(b, loc, x, y); })
              .Case([&](MaximumOp) {
                return arith::MaxSIOp::create(b, loc, x, y);
              })
              .Case([&](MinimumOp) {
                return arith::MinSIOp::create(b, loc, x, y);
              })
              .Case([&](AndOp) { return arith::AndIOp::create(b, loc, x, y); })
              .Case([&](OrOp) { return arith::OrIOp::create(b, loc, x, y); })
              .Default([](Operation *) { return Value(); });
        })
        .Case([&](DivOp) -> Value {
          // Only by a positive constant: tide.div's result for a divisor of 0
          // is 0, arith.divsi's is undefined.
          Value x = operand(0), y = x ? operand(1) : Value();
          APInt divisor;
          if (!y || isUnsigned || !matchPattern(y, m_ConstantInt(&divisor)) ||
              !divisor.isStrictlyPositive())
            return {};
          return arith::DivSIOp::create(b, loc, x, y);
        })
        .Case([&](NegOp) -> Value {
          Value x = operand(0);
          if (!x)
            return {};
          return arith::SubIOp::create(
              b, loc, constant(scalar, APInt(element.getWidth(), 0)), x);
        })
        .Case([&](AbsOp) -> Value {
          Value x = operand(0);
          if (!x || isUnsigned)
            return x;
          Value zero = constant(scalar, APInt(element.getWidth(), 0));
          Value negative =
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, zero);
          return arith::SelectOp::create(
              b, loc, negative, arith::SubIOp::create(b, loc, zero, x), x);
        })
        .Case([&](CmpOp cmp) -> Value {
          auto inElement = dyn_cast<IntegerType>(
              cast<RankedTensorType>(cmp.getLhs().getType()).getElementType());
          Value x = operand(0), y = x ? operand(1) : Value();
          if (!y || !inElement)
            return {};
          bool u = !inElement.isSignless() || inElement.getWidth() == 1;
          arith::CmpIPredicate predicate;
          switch (cmp.getPredicate()) {
          case CmpPredicate::eq:
            predicate = arith::CmpIPredicate::eq;
            break;
          case CmpPredicate::ne:
            predicate = arith::CmpIPredicate::ne;
            break;
          case CmpPredicate::lt:
            predicate =
                u ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt;
            break;
          case CmpPredicate::le:
            predicate =
                u ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle;
            break;
          case CmpPredicate::gt:
            predicate =
                u ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt;
            break;
          case CmpPredicate::ge:
            predicate =
                u ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge;
            break;
          }
          return arith::CmpIOp::create(b, loc, predicate, x, y);
        })
        .Case([&](SelectOp) -> Value {
          Value c = operand(0), x = c ? operand(1) : Value(),
                y = x ? operand(2) : Value();
          if (!y)
            return {};
          return arith::SelectOp::create(b, loc, c, x, y);
        })
        .Default([](Operation *) { return Value(); });
  }
};

/// The index of `i64` value `v` if it is an index_cast of one.
Value indexSource(Value v) {
  if (auto cast = v.getDefiningOp<arith::IndexCastOp>())
    if (cast.getIn().getType().isIndex())
      return cast.getIn();
  return {};
}

} // namespace

void mlir::tide::to_linalg::scalarizeHostOperands(Operation *root) {
  SmallVector<OpOperand *> hostOperands;
  root->walk([&](Operation *op) {
    if (!isa<TideDialect>(op->getDialect()))
      return;
    for (OpOperand &operand : op->getOpOperands())
      if (getOperandRole(op, operand.getOperandNumber()) == OperandRole::Host)
        hostOperands.push_back(&operand);
  });
  for (OpOperand *operand : hostOperands) {
    Value shape = operand->get();
    auto type = dyn_cast<RankedTensorType>(shape.getType());
    if (!type || !type.hasStaticShape() ||
        type.getNumElements() > kMaxShapeElements ||
        shape.getDefiningOp<tensor::FromElementsOp>() ||
        matchPattern(shape, m_Constant()))
      continue;
    OpBuilder b(operand->getOwner());
    Location loc = operand->getOwner()->getLoc();
    ElementEvaluator evaluate(b, loc);
    SmallVector<Value> elements;
    for (int64_t i = 0; i < type.getNumElements(); ++i) {
      Value e = evaluate.get(shape, i);
      if (!e) {
        // Read at run time from the vector itself.
        SmallVector<Value> index;
        SmallVector<int64_t> strides = stridesOf(type.getShape());
        for (int64_t d = 0, rest = i; d < type.getRank(); ++d) {
          index.push_back(
              arith::ConstantIndexOp::create(b, loc, rest / strides[d]));
          rest %= strides[d];
        }
        e = tensor::ExtractOp::create(b, loc, shape, index);
      }
      elements.push_back(e);
    }
    operand->set(tensor::FromElementsOp::create(b, loc, type, elements));
  }
}

Value mlir::tide::to_linalg::getShapeEntry(OpBuilder &b, Location loc,
                                           Value shape, int64_t i) {
  Value entry;
  if (auto elements = shape.getDefiningOp<tensor::FromElementsOp>()) {
    entry = elements.getElements()[i];
  } else {
    DenseIntElementsAttr dense;
    if (matchPattern(shape, m_Constant(&dense)))
      return arith::ConstantIndexOp::create(
          b, loc, dense.getValues<APInt>()[i].getSExtValue());
    entry = tensor::ExtractOp::create(
        b, loc, shape, ValueRange{arith::ConstantIndexOp::create(b, loc, i)});
  }
  if (Value index = indexSource(entry))
    return index;
  APInt value;
  if (matchPattern(entry, m_ConstantInt(&value)))
    return arith::ConstantIndexOp::create(b, loc, value.getSExtValue());
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), entry);
}

bool mlir::tide::to_linalg::isKnownNonNegative(Value v, int depth) {
  if (depth > kMaxDepth)
    return false;
  APInt value;
  if (matchPattern(v, m_ConstantInt(&value)))
    return !value.isNegative();
  if (v.getType().isIndex() && v.getDefiningOp<tensor::DimOp>())
    return true;
  if (Value index = indexSource(v))
    return isKnownNonNegative(index, depth + 1);
  Operation *op = v.getDefiningOp();
  if (!op)
    return false;
  auto all = [&] {
    return llvm::all_of(op->getOperands(), [&](Value x) {
      return isKnownNonNegative(x, depth + 1);
    });
  };
  if (isa<arith::AddIOp, arith::MulIOp, arith::DivSIOp, arith::MinSIOp,
          arith::CeilDivSIOp>(op))
    return all();
  if (isa<arith::MaxSIOp>(op))
    return llvm::any_of(op->getOperands(), [&](Value x) {
      return isKnownNonNegative(x, depth + 1);
    });
  if (auto select = dyn_cast<arith::SelectOp>(op))
    return isKnownNonNegative(select.getTrueValue(), depth + 1) &&
           isKnownNonNegative(select.getFalseValue(), depth + 1);
  return false;
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

namespace {

/// tide.dim: tensor.dim, as a one-element i64 tensor.
struct LowerDim : OpRewritePattern<DimOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DimOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = toSignless(rewriter, loc, op.getInput()).front();
    Value size = tensor::DimOp::create(rewriter, loc, input, op.getAxis());
    Value i64 =
        arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(), size);
    rewriter.replaceOpWithNewOp<tensor::FromElementsOp>(op, op.getType(),
                                                        ValueRange{i64});
    return success();
  }
};

/// The sizes of `type`'s dynamic dimensions, from entries of `shape`.
SmallVector<Value> dynamicSizesFrom(OpBuilder &b, Location loc,
                                    RankedTensorType type, Value shape) {
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      sizes.push_back(getShapeEntry(b, loc, shape, d));
  return sizes;
}

/// tide.iota: a linalg.generic writing the index along the axis.
struct LowerIota : OpRewritePattern<IotaOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(IotaOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(signless(op.getType()));
    Value init = tensor::EmptyOp::create(
        rewriter, loc, type.getShape(), type.getElementType(),
        dynamicSizesFrom(rewriter, loc, type, op.getShape()));
    int64_t rank = type.getRank(), axis = op.getAxis();
    Type element = type.getElementType();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, type, ValueRange{}, ValueRange{init},
        SmallVector<AffineMap>{rewriter.getMultiDimIdentityMap(rank)},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange) {
          Value index = linalg::IndexOp::create(b, l, axis);
          Value i64 = arith::IndexCastOp::create(b, l, b.getI64Type(), index);
          Value v;
          if (isa<FloatType>(element))
            v = arith::SIToFPOp::create(b, l, element, i64);
          else if (element.getIntOrFloatBitWidth() < 64)
            v = arith::TruncIOp::create(b, l, element, i64);
          else
            v = i64;
          linalg::YieldOp::create(b, l, v);
        });
    replaceFromSignless(rewriter, op, generic.getResult(0));
    return success();
  }
};

/// tide.dynamic_slice: tensor.extract_slice with offsets and sizes read at
/// run time (sizes static where the result's are).
struct LowerDynamicSlice : OpRewritePattern<DynamicSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DynamicSliceOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(signless(op.getType()));
    Value input = toSignless(rewriter, loc, op.getInput()).front();
    SmallVector<OpFoldResult> offsets, sizes, strides;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      int64_t stride = op.getStrides()[d];
      Value start = getShapeEntry(rewriter, loc, op.getStart(), d);
      offsets.push_back(start);
      strides.push_back(rewriter.getIndexAttr(stride));
      if (!type.isDynamicDim(d)) {
        sizes.push_back(rewriter.getIndexAttr(type.getDimSize(d)));
        continue;
      }
      // max(0, ceil((limit - start) / stride)).
      Value limit = getShapeEntry(rewriter, loc, op.getLimit(), d);
      Value span = arith::SubIOp::create(rewriter, loc, limit, start);
      Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
      span = arith::MaxSIOp::create(rewriter, loc, span, zero);
      if (stride != 1)
        span = arith::CeilDivSIOp::create(
            rewriter, loc, span,
            arith::ConstantIndexOp::create(rewriter, loc, stride));
      sizes.push_back(span);
    }
    // The bounds must lie in the input (the importer clamps them): checked at
    // run time where they are not constants, so that a wrong bound is an
    // error of the call, not a read outside the tensor. A dimension taking
    // no element reads nothing.
    for (int64_t d = 0; d < type.getRank(); ++d) {
      Value count = getValueOrCreateConstantIndexOp(rewriter, loc, sizes[d]);
      Value start = cast<Value>(offsets[d]);
      Value dim = tensor::DimOp::create(rewriter, loc, input, d);
      Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
      Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
      Value stride =
          arith::ConstantIndexOp::create(rewriter, loc, op.getStrides()[d]);
      // start + (count - 1) * stride <= dim - 1, and start >= 0.
      Value last = arith::AddIOp::create(
          rewriter, loc, start,
          arith::MulIOp::create(
              rewriter, loc, arith::SubIOp::create(rewriter, loc, count, one),
              stride));
      Value inside = arith::AndIOp::create(
          rewriter, loc,
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sge, start,
                                zero),
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt, last,
                                dim));
      Value none = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::sle, count, zero);
      Value ok = arith::OrIOp::create(rewriter, loc, none, inside);
      if (std::optional<int64_t> c = getConstantIntValue(ok); c && *c)
        continue;
      assertThat(rewriter, loc, op, ok,
                 "the slice's bounds on dimension " + Twine(d) +
                     " lie outside the input at run time");
    }
    // A slice that reads nothing must not read at an offset past the end.
    if (llvm::is_contained(type.getShape(), 0)) {
      SmallVector<Value> dyn;
      for (auto [d, size] : llvm::enumerate(sizes))
        if (type.isDynamicDim(d))
          dyn.push_back(cast<Value>(size));
      replaceFromSignless(rewriter, op,
                          tensor::EmptyOp::create(rewriter, loc,
                                                  type.getShape(),
                                                  type.getElementType(), dyn)
                              .getResult());
      return success();
    }
    // Along a dimension whose size is known only at run time, a slice that
    // takes no element there reads at offset 0: its start may be the
    // input's size (an empty slice at the end), which the slice's verifier
    // rejects once canonicalization makes both static (found by the random
    // programs: a top_k of k = 1 sliced from 1).
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (!type.isDynamicDim(d))
        continue;
      Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
      Value none = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::eq, cast<Value>(sizes[d]), zero);
      offsets[d] = arith::SelectOp::create(rewriter, loc, none, zero,
                                           cast<Value>(offsets[d]))
                       .getResult();
    }
    replaceFromSignless(rewriter, op,
                        tensor::ExtractSliceOp::create(
                            rewriter, loc, type, input, offsets, sizes, strides)
                            .getResult());
    return success();
  }
};

/// tide.check: the host reads the condition and asserts it (a failed
/// assert ends the call with the message); the input passes on unchanged.
struct LowerCheck : OpRewritePattern<CheckOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CheckOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value holds = op.getHolds();
    auto type = cast<RankedTensorType>(holds.getType());
    SmallVector<Value> index(type.getRank(),
                             arith::ConstantIndexOp::create(rewriter, loc, 0));
    Value c = tensor::ExtractOp::create(rewriter, loc, holds, index);
    std::string where;
    llvm::raw_string_ostream os(where);
    op.getLoc().print(os);
    StringRef place(where);
    if (place.consume_front("loc(") && place.ends_with(")"))
      place = place.drop_back();
    cf::AssertOp::create(rewriter, loc, c,
                         ("at " + place + ": " + op.getMessage()).str());
    rewriter.replaceOp(op, op.getInput());
    return success();
  }
};

} // namespace

void mlir::tide::populateShapeOperandPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerCheck, LowerDim, LowerIota, LowerDynamicSlice>(
      patterns.getContext());
}
