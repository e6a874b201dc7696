//===- Indexing.cpp - tide.gather and tide.scatter to linalg --------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// The ops that read or write at indices held in a tensor. Both become
// parallel linalg.generic ops (no data-dependent stores), so the CPU and the
// GPU lowerings take them like any other generic:
// - gather reads the input with tensor.extract at the clamped index;
// - scatter, on a GPU, is computed from the result's side: each result
//   element combines the updates whose index lands on it (a reduction loop
//   over the updates along the axis), which is deterministic and needs no
//   atomics; on the host it is one pass over the updates in order.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "tide/IR/TideOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::tide;
using namespace mlir::tide::to_linalg;

namespace {

/// take_along_axis: a parallel linalg.generic over the indices whose payload
/// reads the input with tensor.extract at the wrapped and clamped index (so
/// it never reads out of bounds). An axis of size 0 has nothing to read: the
/// result is zeros (a static 0 is a fill; a dynamic size is checked in the
/// payload).
struct LowerGather : OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = toSignless(rewriter, loc, op.getInput()).front();
    Value indices = op.getIndices();
    auto inType = cast<RankedTensorType>(input.getType());
    auto resultType = cast<RankedTensorType>(signless(op.getType()));
    Type element = resultType.getElementType();
    int64_t rank = resultType.getRank(), axis = op.getNormalizedAxis();
    SmallVector<Value> dyn;
    for (int64_t d = 0; d < rank; ++d)
      if (resultType.isDynamicDim(d))
        dyn.push_back(tensor::DimOp::create(rewriter, loc, indices, d));
    Value init = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                         element, dyn);
    // Off the axis the indices reach input[.., i, ..] at their own position:
    // sizes the verifier could not compare are checked when the program
    // runs (a larger one would read outside the input).
    auto idxType = cast<RankedTensorType>(indices.getType());
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis && (idxType.isDynamicDim(d) || inType.isDynamicDim(d))) {
        Value got = tensor::DimOp::create(rewriter, loc, indices, d);
        Value limit = tensor::DimOp::create(rewriter, loc, input, d);
        assertThat(rewriter, loc, op,
                   arith::CmpIOp::create(rewriter, loc,
                                         arith::CmpIPredicate::ule, got, limit),
                   "the indices' size in dimension " + Twine(d) +
                       " exceeds the input's at run time");
      }
    int64_t staticSize = inType.getDimSize(axis);
    if (staticSize == 0) {
      replaceFromSignless(
          rewriter, op,
          linalg::FillOp::create(rewriter, loc,
                                 constantOf(rewriter, loc, element, 0), init)
              .getResult(0));
      return success();
    }
    Value size = tensor::DimOp::create(rewriter, loc, input, axis);
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{resultType}, ValueRange{indices},
        ValueRange{init}, ArrayRef<AffineMap>{identity, identity}, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Type indexType = b.getIndexType();
          Value k = arith::IndexCastOp::create(b, l, indexType, args[0]);
          Value zero = arith::ConstantIndexOp::create(b, l, 0);
          // [-n, 0) counts from the end; then clamp to [0, n - 1].
          Value negative =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, k, zero);
          k = arith::SelectOp::create(b, l, negative,
                                      arith::AddIOp::create(b, l, k, size), k);
          Value last = arith::SubIOp::create(
              b, l, size, arith::ConstantIndexOp::create(b, l, 1));
          k = arith::MaxSIOp::create(b, l, k, zero);
          k = arith::MinSIOp::create(b, l, k, last);
          SmallVector<Value> coords;
          for (int64_t d = 0; d < rank; ++d)
            coords.push_back(
                d == axis ? k : linalg::IndexOp::create(b, l, d).getResult());
          Value v;
          if (!ShapedType::isDynamic(staticSize)) {
            v = tensor::ExtractOp::create(b, l, input, coords);
          } else {
            // A dynamic axis may be empty at run time: read only when it is
            // not.
            Value nonEmpty = arith::CmpIOp::create(
                b, l, arith::CmpIPredicate::sgt, size, zero);
            auto ifOp = scf::IfOp::create(
                b, l, nonEmpty,
                [&](OpBuilder &tb, Location tl) {
                  scf::YieldOp::create(
                      tb, tl,
                      tensor::ExtractOp::create(tb, tl, input, coords)
                          .getResult());
                },
                [&](OpBuilder &eb, Location el) {
                  scf::YieldOp::create(eb, el, constantOf(eb, el, element, 0));
                });
            v = ifOp.getResult(0);
          }
          linalg::YieldOp::create(b, l, v);
        });
    replaceFromSignless(rewriter, op, generic.getResult(0));
    return success();
  }
};

/// The highest value of `type`: +inf, or the maximum (un)signed integer.
Value highestOf(OpBuilder &b, Location loc, Type type, bool isUnsigned) {
  if (auto ft = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(
        b, loc, b.getFloatAttr(ft, APFloat::getInf(ft.getFloatSemantics())));
  unsigned width = type.getIntOrFloatBitWidth();
  return arith::ConstantOp::create(
      b, loc,
      b.getIntegerAttr(type, isUnsigned ? APInt::getMaxValue(width)
                                        : APInt::getSignedMaxValue(width)));
}

/// `acc` combined with `u` where `match` holds, by `reduction`.
Value combineUpdate(OpBuilder &b, Location loc, ScatterReduction reduction,
                    Value match, Value u, Value acc, bool isUnsigned) {
  Type t = acc.getType();
  bool f = isFloat(t);
  switch (reduction) {
  case ScatterReduction::None:
    return arith::SelectOp::create(b, loc, match, u, acc);
  case ScatterReduction::Add: {
    Value x =
        arith::SelectOp::create(b, loc, match, u, constantOf(b, loc, t, 0));
    return f ? arith::AddFOp::create(b, loc, acc, x).getResult()
             : arith::AddIOp::create(b, loc, acc, x).getResult();
  }
  case ScatterReduction::Mul: {
    Value x =
        arith::SelectOp::create(b, loc, match, u, constantOf(b, loc, t, 1));
    return f ? arith::MulFOp::create(b, loc, acc, x).getResult()
             : arith::MulIOp::create(b, loc, acc, x).getResult();
  }
  case ScatterReduction::Max: {
    Value lowest =
        f || !isUnsigned ? lowestOf(b, loc, t) : constantOf(b, loc, t, 0);
    Value x = arith::SelectOp::create(b, loc, match, u, lowest);
    if (f)
      return arith::MaximumFOp::create(b, loc, acc, x);
    return isUnsigned ? arith::MaxUIOp::create(b, loc, acc, x).getResult()
                      : arith::MaxSIOp::create(b, loc, acc, x).getResult();
  }
  case ScatterReduction::Min: {
    Value x = arith::SelectOp::create(b, loc, match, u,
                                      highestOf(b, loc, t, isUnsigned));
    if (f)
      return arith::MinimumFOp::create(b, loc, acc, x);
    return isUnsigned ? arith::MinUIOp::create(b, loc, acc, x).getResult()
                      : arith::MinSIOp::create(b, loc, acc, x).getResult();
  }
  }
  llvm_unreachable("unknown scatter reduction");
}

/// `v` converted elementwise to element type `to` (extf/truncf).
Value convertFloats(OpBuilder &b, Location loc, Value v, Type to) {
  auto type = cast<RankedTensorType>(v.getType());
  auto resultType = type.clone(to);
  SmallVector<Value> dyn;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      dyn.push_back(tensor::DimOp::create(b, loc, v, d));
  Value init =
      tensor::EmptyOp::create(b, loc, type.getShape(), to, dyn).getResult();
  AffineMap identity = b.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{resultType}, ValueRange{v}, ValueRange{init},
             ArrayRef<AffineMap>{identity, identity}, iterators,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               Value x = args[0];
               Value r =
                   to.getIntOrFloatBitWidth() >
                           x.getType().getIntOrFloatBitWidth()
                       ? arith::ExtFOp::create(nb, l, to, x).getResult()
                       : arith::TruncFOp::create(nb, l, to, x).getResult();
               linalg::YieldOp::create(nb, l, r);
             })
      .getResult(0);
}

/// scatter: over the part of the data the updates can reach (the updates'
/// extent in every dimension but the axis, all of the axis). On a GPU, a
/// linalg.generic with one more, reduction, loop `j` over the updates along
/// the axis: result element `i` starts from the data and combines update `j`
/// when its index (wrapped from the end when negative) is `i` along the axis.
/// On the host, loops over the updates that combine each into its element.
/// The part is inserted back into the data when it is smaller.
struct LowerScatter : OpRewritePattern<ScatterOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ScatterOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    bool isUnsigned = isUnsignedValue(op.getData()) ||
                      op.getData().getType().getElementType().isInteger(1);
    SmallVector<Value> operands =
        toSignless(rewriter, loc, {op.getData(), op.getUpdates()});
    Value data = operands[0], updates = operands[1];
    Value indices = op.getIndices();
    auto dataType = cast<RankedTensorType>(data.getType());
    auto indicesType = cast<RankedTensorType>(indices.getType());
    Type element = dataType.getElementType();
    ScatterReduction reduction = op.getReduction();
    int64_t rank = dataType.getRank(), axis = op.getNormalizedAxis();
    // Sizes the verifier could not compare, checked when the program runs:
    // the updates have the indices' shape, and off the axis neither exceeds
    // the data (an update there would land outside it).
    auto updatesType = cast<RankedTensorType>(updates.getType());
    for (int64_t d = 0; d < rank; ++d) {
      if (indicesType.isDynamicDim(d) || updatesType.isDynamicDim(d))
        assertSameSize(rewriter, loc, op,
                       tensor::DimOp::create(rewriter, loc, updates, d),
                       tensor::DimOp::create(rewriter, loc, indices, d),
                       "the updates' size in dimension " + Twine(d) +
                           " differs from the indices' at run time");
      if (d != axis &&
          (indicesType.isDynamicDim(d) || dataType.isDynamicDim(d))) {
        Value got = tensor::DimOp::create(rewriter, loc, indices, d);
        Value limit = tensor::DimOp::create(rewriter, loc, data, d);
        assertThat(rewriter, loc, op,
                   arith::CmpIOp::create(rewriter, loc,
                                         arith::CmpIPredicate::ule, got, limit),
                   "the indices' size in dimension " + Twine(d) +
                       " exceeds the data's at run time");
      }
    }
    // No update can land where the data or the indices have a static size 0
    // (and tensor.extract_slice rejects any offset into such a dimension).
    if (llvm::is_contained(dataType.getShape(), 0) ||
        llvm::is_contained(indicesType.getShape(), 0)) {
      replaceFromSignless(rewriter, op, data);
      return success();
    }

    // The reachable part of the data.
    SmallVector<OpFoldResult> sizes;
    SmallVector<int64_t> shape;
    bool whole = true;
    for (int64_t d = 0; d < rank; ++d) {
      Value from = d == axis ? data : indices;
      int64_t size = (d == axis ? dataType : indicesType).getDimSize(d);
      shape.push_back(size);
      if (ShapedType::isDynamic(size))
        sizes.push_back(
            tensor::DimOp::create(rewriter, loc, from, d).getResult());
      else
        sizes.push_back(rewriter.getIndexAttr(size));
      if (d != axis &&
          (size != dataType.getDimSize(d) || ShapedType::isDynamic(size)))
        whole = false;
    }
    // Host code updates the data in place through its loops, which read
    // and write only the reachable elements: no slice. (A slice whose size
    // is dynamic fails verification once folding finds that the data's
    // dimension is 0: nonzero of an empty tensor, say.)
    if (!placedOnGPU(op))
      whole = true;
    // On a GPU, a part of dynamic size is copied out and back by generics
    // that read the data element by element: a slice would fail the same
    // way there (its subview, once the data's size folds to 0).
    bool dynamicPart = false;
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis &&
          (ShapedType::isDynamic(shape[d]) || dataType.isDynamicDim(d)))
        dynamicPart = true;
    SmallVector<OpFoldResult> zeros(rank, rewriter.getIndexAttr(0)),
        ones(rank, rewriter.getIndexAttr(1));
    Value part = data;
    if (!whole && dynamicPart)
      part = copyPart(rewriter, loc, data, shape, sizes);
    else if (!whole)
      part = tensor::ExtractSliceOp::create(
          rewriter, loc, RankedTensorType::get(shape, element), data, zeros,
          sizes, ones);

    // f16/bf16 sums and products combine in f32 and are rounded once.
    bool widen =
        isNarrowFloat(element) && (reduction == ScatterReduction::Add ||
                                   reduction == ScatterReduction::Mul);
    Type acc = widen ? rewriter.getF32Type() : element;
    if (widen)
      part = convertFloats(rewriter, loc, part, acc);

    Value size = tensor::DimOp::create(rewriter, loc, data, axis);
    Value result;
    if (!placedOnGPU(op)) {
      // Host code: one pass over the updates in order, each combined into
      // the element it lands on (the data's size plus the updates' work,
      // where the parallel form below does the reachable part times the
      // updates along the axis). Along the axis the last update wins, as
      // there.
      SmallVector<Value> extents;
      for (int64_t d = 0; d < rank; ++d)
        extents.push_back(tensor::DimOp::create(rewriter, loc, indices, d));
      result =
          buildNest(
              rewriter, loc, extents, ValueRange{part},
              [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange args) {
                Value k = arith::IndexCastOp::create(
                    b, l, b.getIndexType(),
                    tensor::ExtractOp::create(b, l, indices, ivs));
                Value zero = arith::ConstantIndexOp::create(b, l, 0);
                Value negative = arith::CmpIOp::create(
                    b, l, arith::CmpIPredicate::slt, k, zero);
                k = arith::SelectOp::create(
                    b, l, negative, arith::AddIOp::create(b, l, k, size), k);
                Value inside = arith::AndIOp::create(
                    b, l,
                    arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, k,
                                          zero),
                    arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, k,
                                          size));
                auto write = scf::IfOp::create(
                    b, l, inside,
                    [&](OpBuilder &tb, Location tl) {
                      SmallVector<Value> at(ivs.begin(), ivs.end());
                      at[axis] = k;
                      Value u = tensor::ExtractOp::create(tb, tl, updates, ivs);
                      if (widen)
                        u = arith::ExtFOp::create(tb, tl, acc, u);
                      Value old =
                          tensor::ExtractOp::create(tb, tl, args[0], at);
                      Value yes = arith::ConstantIntOp::create(tb, tl, 1, 1);
                      Value combined = combineUpdate(tb, tl, reduction, yes, u,
                                                     old, isUnsigned);
                      scf::YieldOp::create(tb, tl,
                                           tensor::InsertOp::create(
                                               tb, tl, combined, args[0], at)
                                               .getResult());
                    },
                    [&](OpBuilder &eb, Location el) {
                      scf::YieldOp::create(eb, el, args[0]);
                    });
                return SmallVector<Value>(write.getResults());
              })
              .front();
    } else {
      result = parallelScatter(rewriter, op, indices, updates, part, size,
                               reduction, widen, acc, isUnsigned);
    }
    if (widen)
      result = convertFloats(rewriter, loc, result, element);
    if (!whole && dynamicPart)
      result = writeBackPart(rewriter, loc, result, data, axis);
    else if (!whole)
      result = tensor::InsertSliceOp::create(rewriter, loc, result, data, zeros,
                                             sizes, ones);
    replaceFromSignless(rewriter, op, result);
    return success();
  }

  /// The data's elements below `sizes` (a part starting at 0), read one by
  /// one by a parallel generic.
  static Value copyPart(PatternRewriter &rewriter, Location loc, Value data,
                        ArrayRef<int64_t> shape, ArrayRef<OpFoldResult> sizes) {
    int64_t rank = shape.size();
    SmallVector<Value> dyn;
    for (int64_t d = 0; d < rank; ++d)
      if (ShapedType::isDynamic(shape[d]))
        dyn.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, sizes[d]));
    Type element = cast<RankedTensorType>(data.getType()).getElementType();
    Value init = tensor::EmptyOp::create(rewriter, loc, shape, element, dyn);
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    return linalg::GenericOp::create(
               rewriter, loc, TypeRange{init.getType()}, ValueRange{},
               ValueRange{init}, ArrayRef<AffineMap>{identity}, iterators,
               [&](OpBuilder &b, Location l, ValueRange) {
                 SmallVector<Value> coords;
                 for (int64_t d = 0; d < rank; ++d)
                   coords.push_back(linalg::IndexOp::create(b, l, d));
                 linalg::YieldOp::create(
                     b, l,
                     tensor::ExtractOp::create(b, l, data, coords).getResult());
               })
        .getResult(0);
  }

  /// The data with `part` (its elements from 0 along every dimension; all
  /// of `axis`) written over it, by a parallel generic over the data.
  static Value writeBackPart(PatternRewriter &rewriter, Location loc,
                             Value part, Value data, int64_t axis) {
    auto dataType = cast<RankedTensorType>(data.getType());
    int64_t rank = dataType.getRank();
    SmallVector<Value> extents;
    for (int64_t d = 0; d < rank; ++d)
      extents.push_back(tensor::DimOp::create(rewriter, loc, part, d));
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    return linalg::GenericOp::create(
               rewriter, loc, TypeRange{dataType}, ValueRange{},
               ValueRange{data}, ArrayRef<AffineMap>{identity}, iterators,
               [&](OpBuilder &b, Location l, ValueRange args) {
                 SmallVector<Value> coords;
                 Value inside;
                 for (int64_t d = 0; d < rank; ++d) {
                   coords.push_back(linalg::IndexOp::create(b, l, d));
                   if (d == axis)
                     continue;
                   Value below =
                       arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult,
                                             coords.back(), extents[d]);
                   inside = inside ? arith::AndIOp::create(b, l, inside, below)
                                         .getResult()
                                   : below;
                 }
                 auto read = scf::IfOp::create(
                     b, l, inside,
                     [&](OpBuilder &tb, Location tl) {
                       scf::YieldOp::create(
                           tb, tl,
                           tensor::ExtractOp::create(tb, tl, part, coords)
                               .getResult());
                     },
                     [&](OpBuilder &eb, Location el) {
                       scf::YieldOp::create(eb, el, args[0]);
                     });
                 linalg::YieldOp::create(b, l, read.getResult(0));
               })
        .getResult(0);
  }

  /// The result's side: a linalg.generic over the reachable part with one
  /// more, reduction, loop `j` over the updates along the axis.
  static Value parallelScatter(PatternRewriter &rewriter, ScatterOp op,
                               Value indices, Value updates, Value part,
                               Value size, ScatterReduction reduction,
                               bool widen, Type acc, bool isUnsigned) {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    int64_t rank = cast<RankedTensorType>(part.getType()).getRank();
    int64_t axis = op.getNormalizedAxis();
    SmallVector<AffineExpr> inExprs, outExprs;
    for (int64_t d = 0; d < rank; ++d) {
      inExprs.push_back(getAffineDimExpr(d == axis ? rank : d, ctx));
      outExprs.push_back(getAffineDimExpr(d, ctx));
    }
    AffineMap in = AffineMap::get(rank + 1, 0, inExprs, ctx);
    AffineMap out = AffineMap::get(rank + 1, 0, outExprs, ctx);
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{part.getType()}, ValueRange{indices, updates},
        ValueRange{part}, ArrayRef<AffineMap>{in, in, out}, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Type indexType = b.getIndexType();
          Value k = arith::IndexCastOp::create(b, l, indexType, args[0]);
          Value zero = arith::ConstantIndexOp::create(b, l, 0);
          Value negative =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, k, zero);
          k = arith::SelectOp::create(b, l, negative,
                                      arith::AddIOp::create(b, l, k, size), k);
          Value i = linalg::IndexOp::create(b, l, axis);
          Value match =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, k, i);
          Value u = args[1];
          if (widen)
            u = arith::ExtFOp::create(b, l, acc, u);
          linalg::YieldOp::create(
              b, l,
              combineUpdate(b, l, reduction, match, u, args[2], isUnsigned));
        });
    return generic.getResult(0);
  }
};

} // namespace

void mlir::tide::populateIndexingPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerGather, LowerScatter>(patterns.getContext());
}
