//===- DataDependent.cpp - Results sized by the data: nonzero, NMS --------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// tide.nonzero and tide.non_max_suppression produce results whose size is
// known only once their inputs' values are. Both are host code (placement
// runs them on the CPU): scf loops over tensors, which bufferization turns
// into loops over the buffers in place. The result is allocated once its
// size is counted (nonzero), or written into a buffer of the largest
// possible size and copied out at its final size (non-maximum suppression,
// whose count is known only at the end of the greedy passes).
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "tide/IR/TideOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

#include <array>
#include <limits>

using namespace mlir;
using namespace mlir::tide;
using namespace mlir::tide::to_linalg;

SmallVector<Value> mlir::tide::to_linalg::buildNest(OpBuilder &b, Location loc,
                                                    ArrayRef<Value> sizes,
                                                    ValueRange iterArgs,
                                                    NestBody body,
                                                    SmallVector<Value> ivs) {
  if (ivs.size() == sizes.size())
    return body(b, loc, ivs, iterArgs);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = scf::ForOp::create(
      b, loc, zero, sizes[ivs.size()], one, iterArgs,
      [&](OpBuilder &lb, Location l, Value iv, ValueRange args) {
        SmallVector<Value> inner = ivs;
        inner.push_back(iv);
        scf::YieldOp::create(lb, l, buildNest(lb, l, sizes, args, body, inner));
      });
  return SmallVector<Value>(loop.getResults());
}

namespace {

/// Whether the scalar `v` is not zero (NaN is not zero, -0.0 is).
Value isNonZero(OpBuilder &b, Location loc, Value v) {
  Type t = v.getType();
  if (isa<FloatType>(t))
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v,
                                 constantOf(b, loc, t, 0));
  if (t.isInteger(1))
    return v;
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v,
                               constantOf(b, loc, t, 0));
}

/// tide.nonzero: a pass that counts, the result allocated at that size, a
/// pass that writes each non-zero element's coordinates into its column.
struct LowerNonZero : OpRewritePattern<NonZeroOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(NonZeroOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = toSignless(rewriter, loc, op.getInput()).front();
    auto type = cast<RankedTensorType>(input.getType());
    int64_t rank = type.getRank();
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < rank; ++d)
      sizes.push_back(tensor::DimOp::create(rewriter, loc, input, d));
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);

    SmallVector<Value> counted = buildNest(
        rewriter, loc, sizes, ValueRange{zero},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange args) {
          Value v = tensor::ExtractOp::create(b, l, input, ivs);
          Value next = arith::AddIOp::create(b, l, args[0], one);
          return SmallVector<Value>{
              arith::SelectOp::create(b, l, isNonZero(b, l, v), next, args[0])};
        });
    Value count = counted.front();
    auto resultType = cast<RankedTensorType>(op.getType());
    Value result =
        tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                resultType.getElementType(), ValueRange{count});
    if (rank == 0) {
      // No coordinates to write: the result is 0 x count.
      rewriter.replaceOp(op, result);
      return success();
    }
    SmallVector<Value> filled = buildNest(
        rewriter, loc, sizes, ValueRange{zero, result},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange args) {
          Value v = tensor::ExtractOp::create(b, l, input, ivs);
          auto ifOp = scf::IfOp::create(
              b, l, isNonZero(b, l, v),
              [&](OpBuilder &tb, Location tl) {
                Value column = args[0], out = args[1];
                for (auto [d, iv] : llvm::enumerate(ivs)) {
                  Value coordinate =
                      arith::IndexCastOp::create(tb, tl, tb.getI64Type(), iv);
                  Value row = arith::ConstantIndexOp::create(tb, tl, d);
                  out = tensor::InsertOp::create(tb, tl, coordinate, out,
                                                 ValueRange{row, column});
                }
                Value next = arith::AddIOp::create(tb, tl, column, one);
                scf::YieldOp::create(tb, tl, ValueRange{next, out});
              },
              [&](OpBuilder &eb, Location el) {
                scf::YieldOp::create(eb, el, args);
              });
          return SmallVector<Value>(ifOp.getResults());
        });
    rewriter.replaceOp(op, filled[1]);
    return success();
  }
};

/// A box as its extents: x min, x max, y min, y max.
using Extents = std::array<Value, 4>;

/// tide.non_max_suppression, ONNX Runtime's algorithm: per batch entry and
/// class, the boxes above the score threshold are candidates, sorted by
/// decreasing score (the lower index first among equals; a heap sort); each
/// candidate in that order is selected unless a box selected before it
/// suppresses it (intersection over union above the threshold), until the
/// limit. Here a selected box marks every later candidate it suppresses, in
/// one pass over their extents, laid out contiguously after the sort: a
/// branch-free loop the vectorizer takes, where ONNX Runtime compares each
/// candidate with the boxes selected so far.
struct LowerNonMaxSuppression : OpRewritePattern<NonMaxSuppressionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(NonMaxSuppressionOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value boxes = op.getBoxes(), scores = op.getScores();
    Type element = cast<RankedTensorType>(boxes.getType()).getElementType();
    Type compute = isNarrowFloat(element) ? rewriter.getF32Type() : element;
    bool center = op.getCenterPointBox();
    Type i64 = rewriter.getI64Type();
    auto index = [&](OpBuilder &b, int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    Value zero = index(rewriter, 0), one = index(rewriter, 1);
    auto widen = [&](OpBuilder &b, Value v) -> Value {
      return v.getType() == compute
                 ? v
                 : arith::ExtFOp::create(b, loc, compute, v).getResult();
    };
    auto first = [&](Value t) -> Value {
      int64_t rank = cast<RankedTensorType>(t.getType()).getRank();
      return tensor::ExtractOp::create(rewriter, loc, t,
                                       SmallVector<Value>(rank, zero));
    };

    // Sizes the two inputs disagree on at run time (dynamic ones, taken to
    // be equal as everywhere in Tide) never read outside either.
    auto common = [&](int64_t scoresDim, int64_t boxesDim) -> Value {
      Value x = tensor::DimOp::create(rewriter, loc, scores, scoresDim);
      Value y = tensor::DimOp::create(rewriter, loc, boxes, boxesDim);
      return arith::MinSIOp::create(rewriter, loc, x, y);
    };
    Value batches = common(0, 0);
    Value classes = tensor::DimOp::create(rewriter, loc, scores, 1);
    Value count = common(2, 1);
    // At most min(max(limit, 0), boxes) selections per class.
    Value limit =
        arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(),
                                   first(op.getMaxOutputBoxesPerClass()));
    limit = arith::MaxSIOp::create(rewriter, loc, limit, zero);
    limit = arith::MinSIOp::create(rewriter, loc, limit, count);
    Value iou = widen(rewriter, first(op.getIouThreshold()));
    Value scoreThreshold;
    if (op.getScoreThreshold())
      scoreThreshold = widen(rewriter, first(op.getScoreThreshold()));
    Value capacity = arith::MulIOp::create(
        rewriter, loc, arith::MulIOp::create(rewriter, loc, batches, classes),
        count);
    // (One row more: never a static size of 0, as the list below.)
    Value selected = tensor::EmptyOp::create(
        rewriter, loc, ArrayRef<int64_t>{ShapedType::kDynamic, 3}, i64,
        ValueRange{arith::AddIOp::create(rewriter, loc, capacity, one)});

    auto cmp = [&](OpBuilder &b, arith::CmpFPredicate p, Value x, Value y) {
      return arith::CmpFOp::create(b, loc, p, x, y).getResult();
    };
    auto sel = [&](OpBuilder &b, Value c, Value x, Value y) {
      return arith::SelectOp::create(b, loc, c, x, y).getResult();
    };
    // std::max(x, y) and std::min(x, y), as ONNX Runtime computes them.
    auto maxOf = [&](OpBuilder &b, Value x, Value y) {
      return sel(b, cmp(b, arith::CmpFPredicate::OLT, x, y), y, x);
    };
    auto minOf = [&](OpBuilder &b, Value x, Value y) {
      return sel(b, cmp(b, arith::CmpFPredicate::OLT, y, x), y, x);
    };
    auto extents = [&](OpBuilder &b, Value batch, Value box) -> Extents {
      std::array<Value, 4> v;
      for (int64_t j = 0; j < 4; ++j)
        v[j] =
            widen(b, tensor::ExtractOp::create(
                         b, loc, boxes, ValueRange{batch, box, index(b, j)}));
      if (center) {
        Value two = constantOf(b, loc, compute, 2);
        Value halfW = arith::DivFOp::create(b, loc, v[2], two);
        Value halfH = arith::DivFOp::create(b, loc, v[3], two);
        return {arith::SubFOp::create(b, loc, v[0], halfW),
                arith::AddFOp::create(b, loc, v[0], halfW),
                arith::SubFOp::create(b, loc, v[1], halfH),
                arith::AddFOp::create(b, loc, v[1], halfH)};
      }
      // [y1, x1, y2, x2]: ONNX Runtime's MaxMin (x >= y: min y, max x).
      auto minMax = [&](Value x, Value y) -> std::pair<Value, Value> {
        Value ge = cmp(b, arith::CmpFPredicate::OGE, x, y);
        return {sel(b, ge, y, x), sel(b, ge, x, y)};
      };
      auto [xMin, xMax] = minMax(v[1], v[3]);
      auto [yMin, yMax] = minMax(v[0], v[2]);
      return {xMin, xMax, yMin, yMax};
    };
    // Whether the selected box `s` suppresses candidate `c` (ONNX Runtime's
    // SuppressByIOU with the candidate first), with the boxes' areas given;
    // straight-line code, so that the pass over the candidates vectorizes.
    // Every "<= 0: no" test is an unordered-or-greater compare, so NaN goes
    // on as it does there.
    auto suppresses = [&](OpBuilder &b, const Extents &c, Value areaC,
                          const Extents &s, Value areaS) {
      using P = arith::CmpFPredicate;
      Value ixMin = maxOf(b, c[0], s[0]), ixMax = minOf(b, c[1], s[1]);
      Value iyMin = maxOf(b, c[2], s[2]), iyMax = minOf(b, c[3], s[3]);
      Value zeroF = constantOf(b, loc, compute, 0);
      Value inter = arith::MulFOp::create(
          b, loc, arith::SubFOp::create(b, loc, ixMax, ixMin),
          arith::SubFOp::create(b, loc, iyMax, iyMin));
      Value uni = arith::SubFOp::create(
          b, loc, arith::AddFOp::create(b, loc, areaC, areaS), inter);
      Value ratio = arith::DivFOp::create(b, loc, inter, uni);
      Value ok = cmp(b, P::UGT, ixMax, ixMin);
      for (Value t :
           {cmp(b, P::UGT, iyMax, iyMin), cmp(b, P::UGT, inter, zeroF),
            cmp(b, P::UGT, areaC, zeroF), cmp(b, P::UGT, areaS, zeroF),
            cmp(b, P::UGT, uni, zeroF), cmp(b, P::OGT, ratio, iou)})
        ok = arith::AndIOp::create(b, loc, ok, t);
      return ok;
    };
    auto area = [&](OpBuilder &b, const Extents &e) -> Value {
      return arith::MulFOp::create(b, loc,
                                   arith::SubFOp::create(b, loc, e[1], e[0]),
                                   arith::SubFOp::create(b, loc, e[3], e[2]));
    };

    Type indexType = rewriter.getIndexType();
    // Scratch, one slot more than the boxes (never a static size of 0, into
    // which the never-run writes would fold to out-of-bounds inserts): the
    // candidates' scores and indices, then their extents and areas in sorted
    // order (one 5-row tensor) and whether each is suppressed (an i8: LLVM does
    // not vectorize the loads and stores of i1).
    Value slots = arith::AddIOp::create(rewriter, loc, count, one);
    Value scoresInit = tensor::EmptyOp::create(
        rewriter, loc, ArrayRef<int64_t>{ShapedType::kDynamic}, compute,
        ValueRange{slots});
    Value listInit = tensor::EmptyOp::create(
        rewriter, loc, ArrayRef<int64_t>{ShapedType::kDynamic}, indexType,
        ValueRange{slots});
    Value boxesInit = tensor::EmptyOp::create(
        rewriter, loc, ArrayRef<int64_t>{5, ShapedType::kDynamic}, compute,
        ValueRange{slots});
    Value flagsInit = tensor::EmptyOp::create(
        rewriter, loc, ArrayRef<int64_t>{ShapedType::kDynamic},
        rewriter.getI8Type(), ValueRange{slots});
    // The same candidates by increasing x min (their x mins and positions in
    // score order, then their extents and areas in that order): a selected
    // box can only suppress a candidate whose x range overlaps its own, a
    // window of this order found by two binary searches.
    // (Fresh allocations: a tensor.empty of the same type as one above
    // would be merged with it, and both loop-carried through one buffer.)
    auto scratch = [&](ArrayRef<int64_t> shape, Type type) -> Value {
      return bufferization::AllocTensorOp::create(
          rewriter, loc, RankedTensorType::get(shape, type), ValueRange{slots});
    };
    Value xMinsInit = scratch({ShapedType::kDynamic}, compute);
    Value xOrderInit = scratch({ShapedType::kDynamic}, indexType);
    Value xBoxesInit = scratch({5, ShapedType::kDynamic}, compute);
    // Marks made through the windows, in x order (a candidate is suppressed
    // when marked in either order), and each candidate's place in x order.
    Value xFlagsInit = scratch({ShapedType::kDynamic}, rewriter.getI8Type());
    Value xRankInit = scratch({ShapedType::kDynamic}, indexType);
    // Sorted best first: a higher score, or an equal one and a lower index.
    PairHeap heap(
        rewriter, loc, count,
        [&](OpBuilder &b, Value va, Value ia, Value vb, Value ib) {
          Value higher = cmp(b, arith::CmpFPredicate::OGT, va, vb);
          Value same = cmp(b, arith::CmpFPredicate::OEQ, va, vb);
          Value lower =
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, ia, ib);
          return arith::OrIOp::create(
                     b, loc, higher, arith::AndIOp::create(b, loc, same, lower))
              .getResult();
        });
    // Increasing x min, the earlier position first among equals.
    PairHeap xHeap(rewriter, loc, count,
                   [&](OpBuilder &b, Value va, Value ia, Value vb, Value ib) {
                     Value lower = cmp(b, arith::CmpFPredicate::OLT, va, vb);
                     Value same = cmp(b, arith::CmpFPredicate::OEQ, va, vb);
                     Value earlier = arith::CmpIOp::create(
                         b, loc, arith::CmpIPredicate::ult, ia, ib);
                     return arith::OrIOp::create(
                                b, loc, lower,
                                arith::AndIOp::create(b, loc, same, earlier))
                         .getResult();
                   });
    auto at = [&](OpBuilder &b, Value t, ValueRange i) {
      return tensor::ExtractOp::create(b, loc, t, i).getResult();
    };
    // The first of the `n` ascending values of `sorted` that is not below
    // `v` (n when none is).
    auto lowerBound = [&](OpBuilder &b, Value sorted, Value n, Value v) {
      auto search = scf::WhileOp::create(
          b, loc, TypeRange{indexType, indexType}, ValueRange{zero, n},
          [&](OpBuilder &wb, Location l, ValueRange a) {
            Value more = arith::CmpIOp::create(wb, l, arith::CmpIPredicate::ult,
                                               a[0], a[1]);
            scf::ConditionOp::create(wb, l, more, a);
          },
          [&](OpBuilder &wb, Location l, ValueRange a) {
            Value mid = arith::ShRUIOp::create(
                wb, l, arith::AddIOp::create(wb, l, a[0], a[1]),
                arith::ConstantIndexOp::create(wb, l, 1));
            Value below =
                cmp(wb, arith::CmpFPredicate::OLT, at(wb, sorted, {mid}), v);
            Value next = arith::AddIOp::create(
                wb, l, mid, arith::ConstantIndexOp::create(wb, l, 1));
            scf::YieldOp::create(wb, l,
                                 ValueRange{sel(wb, below, next, a[0]),
                                            sel(wb, below, a[1], mid)});
          });
      return search.getResult(0);
    };
    SmallVector<Value> done = buildNest(
        rewriter, loc, {batches, classes},
        ValueRange{selected, zero, scoresInit, listInit, boxesInit, flagsInit,
                   xMinsInit, xOrderInit, xBoxesInit, xFlagsInit, xRankInit},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange args) {
          Value batch = ivs[0], cls = ivs[1];
          // The candidates (above the score threshold, when there is one)
          // and their scores, in index order.
          SmallVector<Value> candidates = buildNest(
              b, l, {count}, ValueRange{args[2], args[3], zero},
              [&](OpBuilder &ab, Location al, ValueRange i, ValueRange a) {
                Value score = widen(
                    ab, tensor::ExtractOp::create(
                            ab, al, scores, ValueRange{batch, cls, i[0]}));
                Value keep = scoreThreshold
                                 ? cmp(ab, arith::CmpFPredicate::OGT, score,
                                       scoreThreshold)
                                 : arith::ConstantIntOp::create(ab, al, 1, 1)
                                       .getResult();
                Value scoresW =
                    tensor::InsertOp::create(ab, al, score, a[0], a[2]);
                Value listW =
                    tensor::InsertOp::create(ab, al, i[0], a[1], a[2]);
                Value grown = arith::AddIOp::create(ab, al, a[2], one);
                return SmallVector<Value>{
                    scoresW, listW,
                    arith::SelectOp::create(ab, al, keep, grown, a[2])};
              });
          Value m = candidates[2];
          SmallVector<Value> sorted =
              heap.sort(b, m, {candidates[0], candidates[1]});
          // Their extents and areas in that order, none suppressed yet.
          SmallVector<Value> laid = buildNest(
              b, l, {m}, ValueRange{args[4], args[5], args[9], args[10]},
              [&](OpBuilder &ab, Location al, ValueRange i, ValueRange a) {
                Value box = at(ab, sorted[1], i[0]);
                Extents e = extents(ab, batch, box);
                Value out = a[0];
                for (auto [row, v] : llvm::enumerate(std::array<Value, 5>{
                         e[0], e[1], e[2], e[3], area(ab, e)}))
                  out = tensor::InsertOp::create(
                      ab, al, v, out, ValueRange{index(ab, row), i[0]});
                Value no = arith::ConstantIntOp::create(ab, al, 0, 8);
                return SmallVector<Value>{
                    out, tensor::InsertOp::create(ab, al, no, a[1], i[0]),
                    tensor::InsertOp::create(ab, al, no, a[2], i[0]),
                    tensor::InsertOp::create(ab, al, i[0], a[3], i[0])};
              });
          Value laidBoxes = laid[0];
          auto boxIn = [&](OpBuilder &ab, Value laidOut,
                           Value i) -> std::pair<Extents, Value> {
            Extents e;
            for (int64_t row = 0; row < 4; ++row)
              e[row] = at(ab, laidOut, {index(ab, row), i});
            return {e, at(ab, laidOut, {index(ab, 4), i})};
          };
          auto boxAt = [&](OpBuilder &ab, Value i) {
            return boxIn(ab, laidBoxes, i);
          };
          // The widest box (x max - x min), and whether any x extent is NaN
          // or infinite: then the windows below are not sound, and every
          // selected box tests every later candidate.
          Value inf = constantOf(b, l, compute,
                                 std::numeric_limits<double>::infinity());
          SmallVector<Value> widths = buildNest(
              b, l, {m},
              ValueRange{constantOf(b, l, compute, 0),
                         arith::ConstantIntOp::create(b, l, 0, 1)},
              [&](OpBuilder &ab, Location al, ValueRange i, ValueRange a) {
                Value w = arith::SubFOp::create(
                    ab, al, at(ab, laidBoxes, {index(ab, 1), i[0]}),
                    at(ab, laidBoxes, {index(ab, 0), i[0]}));
                Value odd = cmp(ab, arith::CmpFPredicate::UGE,
                                math::AbsFOp::create(ab, al, w), inf);
                return SmallVector<Value>{
                    maxOf(ab, a[0], w),
                    arith::OrIOp::create(ab, al, a[1], odd).getResult()};
              });
          // Windows pay for their sort from a few hundred candidates on.
          Value windowed = arith::AndIOp::create(
              b, l,
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::uge, m,
                                    index(b, 256)),
              arith::XOrIOp::create(b, l, widths[1],
                                    arith::ConstantIntOp::create(b, l, 1, 1)));
          auto byX = scf::IfOp::create(
              b, l, windowed,
              [&](OpBuilder &tb, Location tl) {
                SmallVector<Value> keys = buildNest(
                    tb, tl, {m}, ValueRange{args[6], args[7]},
                    [&](OpBuilder &ab, Location al, ValueRange i,
                        ValueRange a) {
                      Value x = at(ab, laidBoxes, {index(ab, 0), i[0]});
                      return SmallVector<Value>{
                          tensor::InsertOp::create(ab, al, x, a[0], i[0]),
                          tensor::InsertOp::create(ab, al, i[0], a[1], i[0])};
                    });
                SmallVector<Value> xs = xHeap.sort(tb, m, keys);
                SmallVector<Value> xLaid =
                    buildNest(tb, tl, {m}, ValueRange{args[8], laid[3]},
                              [&](OpBuilder &ab, Location al, ValueRange i,
                                  ValueRange a) {
                                Value from = at(ab, xs[1], {i[0]});
                                Value out = a[0];
                                for (int64_t row = 0; row < 5; ++row) {
                                  Value r = index(ab, row);
                                  out = tensor::InsertOp::create(
                                      ab, al, at(ab, laidBoxes, {r, from}), out,
                                      ValueRange{r, i[0]});
                                }
                                return SmallVector<Value>{
                                    out, tensor::InsertOp::create(ab, al, i[0],
                                                                  a[1], from)};
                              });
                scf::YieldOp::create(
                    tb, tl, ValueRange{xs[0], xLaid[0], xLaid[1], xs[1]});
              },
              [&](OpBuilder &eb, Location el) {
                scf::YieldOp::create(
                    eb, el, ValueRange{args[6], args[8], laid[3], args[7]});
              });
          Value xMins = byX.getResult(0), xBoxes = byX.getResult(1),
                xRank = byX.getResult(2);
          // A candidate c the box s suppresses overlaps it in x:
          // c.xmin < s.xmax, and s.xmin < c.xmax <= c.xmin + (widest), the
          // latter loosened by 2^-10 of the magnitudes for the roundings.
          Value slackScale = constantOf(b, l, compute, 1.0 / 1024);
          auto window = [&](OpBuilder &wb,
                            const Extents &s) -> std::pair<Value, Value> {
            Location wl = loc;
            Value slack = arith::MulFOp::create(
                wb, wl,
                arith::AddFOp::create(wb, wl, widths[0],
                                      math::AbsFOp::create(wb, wl, s[0])),
                slackScale);
            Value from = arith::SubFOp::create(
                wb, wl, arith::SubFOp::create(wb, wl, s[0], widths[0]), slack);
            return {lowerBound(wb, xMins, m, from),
                    lowerBound(wb, xMins, m, s[1])};
          };
          // In sorted order: a candidate no box selected before it
          // suppressed is selected (while fewer than the limit are), and
          // marks the later ones it suppresses.
          SmallVector<Value> steps = buildNest(
              b, l, {m}, ValueRange{args[0], args[1], laid[1], laid[2]},
              [&](OpBuilder &sb, Location sl, ValueRange t, ValueRange s) {
                Value marks =
                    arith::OrIOp::create(sb, sl, at(sb, s[2], t[0]),
                                         at(sb, s[3], at(sb, xRank, t[0])));
                Value free = arith::CmpIOp::create(
                    sb, sl, arith::CmpIPredicate::eq, marks,
                    arith::ConstantIntOp::create(sb, sl, 0, 8));
                Value room = arith::CmpIOp::create(
                    sb, sl, arith::CmpIPredicate::slt,
                    arith::SubIOp::create(sb, sl, s[1], args[1]), limit);
                Value take = arith::AndIOp::create(sb, sl, free, room);
                auto step = scf::IfOp::create(
                    sb, sl, take,
                    [&](OpBuilder &pb, Location pl) {
                      Value box = at(pb, sorted[1], t[0]);
                      Value out = s[0], row = s[1];
                      for (auto [j, v] : llvm::enumerate(
                               std::array<Value, 3>{batch, cls, box}))
                        out = tensor::InsertOp::create(
                            pb, pl, arith::IndexCastOp::create(pb, pl, i64, v),
                            out, ValueRange{row, index(pb, j)});
                      std::pair<Extents, Value> chosenBox = boxAt(pb, t[0]);
                      Extents chosen = chosenBox.first;
                      Value chosenArea = chosenBox.second;
                      Value next = arith::AddIOp::create(pb, pl, t[0], one);
                      // Marks candidate `u` (a position in score order)
                      // when `chosen` suppresses it.
                      auto mark = [&](OpBuilder &qb, Location ql, Value flags,
                                      Value u, const Extents &other,
                                      Value otherArea) -> Value {
                        Value gone = arith::OrIOp::create(
                            qb, ql, at(qb, flags, u),
                            arith::ExtUIOp::create(qb, ql, qb.getI8Type(),
                                                   suppresses(qb, other,
                                                              otherArea, chosen,
                                                              chosenArea)));
                        return tensor::InsertOp::create(qb, ql, gone, flags, u);
                      };
                      // Every later candidate, in one branch-free pass.
                      auto all = [&](OpBuilder &fb, Location fl) {
                        auto pass = scf::ForOp::create(
                            fb, fl, next, m, one, ValueRange{s[2]},
                            [&](OpBuilder &qb, Location ql, Value u,
                                ValueRange q) {
                              auto [other, otherArea] = boxAt(qb, u);
                              scf::YieldOp::create(
                                  qb, ql,
                                  mark(qb, ql, q[0], u, other, otherArea));
                            });
                        scf::YieldOp::create(
                            fb, fl, ValueRange{pass.getResult(0), s[3]});
                      };
                      // Or only those in its x window (earlier ones there
                      // too: their marks are never read), marked in x order,
                      // when the window holds fewer of them.
                      auto inWindow = scf::IfOp::create(
                          pb, pl, windowed,
                          [&](OpBuilder &wb, Location wl) {
                            auto [lo, hi] = window(wb, chosen);
                            Value span = arith::SubIOp::create(
                                wb, wl, arith::MaxUIOp::create(wb, wl, hi, lo),
                                lo);
                            Value later =
                                arith::SubIOp::create(wb, wl, m, next);
                            Value narrow = arith::CmpIOp::create(
                                wb, wl, arith::CmpIPredicate::ult, span, later);
                            scf::YieldOp::create(
                                wb, wl,
                                ValueRange{
                                    narrow, lo,
                                    arith::AddIOp::create(wb, wl, lo, span)});
                          },
                          [&](OpBuilder &wb, Location wl) {
                            scf::YieldOp::create(
                                wb, wl,
                                ValueRange{
                                    arith::ConstantIntOp::create(wb, wl, 0, 1),
                                    zero, zero});
                          });
                      auto pass = scf::IfOp::create(
                          pb, pl, inWindow.getResult(0),
                          [&](OpBuilder &fb, Location fl) {
                            auto part = scf::ForOp::create(
                                fb, fl, inWindow.getResult(1),
                                inWindow.getResult(2), one, ValueRange{s[3]},
                                [&](OpBuilder &qb, Location ql, Value k,
                                    ValueRange q) {
                                  auto [other, otherArea] =
                                      boxIn(qb, xBoxes, k);
                                  scf::YieldOp::create(
                                      qb, ql,
                                      mark(qb, ql, q[0], k, other, otherArea));
                                });
                            scf::YieldOp::create(
                                fb, fl, ValueRange{s[2], part.getResult(0)});
                          },
                          all);
                      scf::YieldOp::create(
                          pb, pl,
                          ValueRange{out,
                                     arith::AddIOp::create(pb, pl, row, one),
                                     pass.getResult(0), pass.getResult(1)});
                    },
                    [&](OpBuilder &nb, Location nl) {
                      scf::YieldOp::create(nb, nl, s);
                    });
                return SmallVector<Value>(step.getResults());
              });
          return SmallVector<Value>{
              steps[0], steps[1], sorted[0], sorted[1],
              laid[0],  steps[2], xMins,     byX.getResult(3),
              xBoxes,   steps[3], xRank};
        });
    // The rows written, copied out at their number.
    Value rows = done[1];
    SmallVector<OpFoldResult> offsets{rewriter.getIndexAttr(0),
                                      rewriter.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes{rows, rewriter.getIndexAttr(3)};
    SmallVector<OpFoldResult> strides{rewriter.getIndexAttr(1),
                                      rewriter.getIndexAttr(1)};
    auto type = cast<RankedTensorType>(op.getType());
    Value part = tensor::ExtractSliceOp::create(rewriter, loc, type, done[0],
                                                offsets, sizes, strides);
    Value result = tensor::EmptyOp::create(rewriter, loc, type.getShape(), i64,
                                           ValueRange{rows});
    rewriter.replaceOp(
        op, linalg::CopyOp::create(rewriter, loc, part, result).getResult(0));
    return success();
  }
};

} // namespace

void mlir::tide::populateDataDependentPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerNonZero, LowerNonMaxSuppression>(patterns.getContext());
}
