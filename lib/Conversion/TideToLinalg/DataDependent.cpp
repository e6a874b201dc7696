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
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

#include <array>

using namespace mlir;
using namespace mlir::tide;
using namespace mlir::tide::to_linalg;

namespace {

using NestBody = function_ref<SmallVector<Value>(OpBuilder &, Location,
                                                 ValueRange ivs, ValueRange)>;

/// A nest of scf.for loops over `sizes` (row-major order) carrying
/// `iterArgs`; `body` returns the values to carry on. No loops for no sizes
/// (the body runs once).
SmallVector<Value> buildNest(OpBuilder &b, Location loc, ArrayRef<Value> sizes,
                             ValueRange iterArgs, NestBody body,
                             SmallVector<Value> ivs = {}) {
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
    auto at = [&](OpBuilder &b, Value t, ValueRange i) {
      return tensor::ExtractOp::create(b, loc, t, i).getResult();
    };
    SmallVector<Value> done = buildNest(
        rewriter, loc, {batches, classes},
        ValueRange{selected, zero, scoresInit, listInit, boxesInit, flagsInit},
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
              b, l, {m}, ValueRange{args[4], args[5]},
              [&](OpBuilder &ab, Location al, ValueRange i, ValueRange a) {
                Value box = at(ab, sorted[1], i[0]);
                Extents e = extents(ab, batch, box);
                Value out = a[0];
                for (auto [row, v] : llvm::enumerate(std::array<Value, 5>{
                         e[0], e[1], e[2], e[3], area(ab, e)}))
                  out = tensor::InsertOp::create(
                      ab, al, v, out, ValueRange{index(ab, row), i[0]});
                Value flags = tensor::InsertOp::create(
                    ab, al, arith::ConstantIntOp::create(ab, al, 0, 8), a[1],
                    i[0]);
                return SmallVector<Value>{out, flags};
              });
          Value laidBoxes = laid[0];
          auto boxAt = [&](OpBuilder &ab,
                           Value i) -> std::pair<Extents, Value> {
            Extents e;
            for (int64_t row = 0; row < 4; ++row)
              e[row] = at(ab, laidBoxes, {index(ab, row), i});
            return {e, at(ab, laidBoxes, {index(ab, 4), i})};
          };
          // In sorted order: a candidate no box selected before it
          // suppressed is selected (while fewer than the limit are), and
          // marks the later ones it suppresses.
          SmallVector<Value> steps = buildNest(
              b, l, {m}, ValueRange{args[0], args[1], laid[1]},
              [&](OpBuilder &sb, Location sl, ValueRange t, ValueRange s) {
                Value free = arith::CmpIOp::create(
                    sb, sl, arith::CmpIPredicate::eq, at(sb, s[2], t[0]),
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
                      auto pass = scf::ForOp::create(
                          pb, pl, next, m, one, ValueRange{s[2]},
                          [&](OpBuilder &qb, Location ql, Value u,
                              ValueRange q) {
                            auto [other, otherArea] = boxAt(qb, u);
                            Value gone = arith::OrIOp::create(
                                qb, ql, at(qb, q[0], u),
                                arith::ExtUIOp::create(
                                    qb, ql, qb.getI8Type(),
                                    suppresses(qb, other, otherArea, chosen,
                                               chosenArea)));
                            scf::YieldOp::create(
                                qb, ql,
                                tensor::InsertOp::create(qb, ql, gone, q[0], u)
                                    .getResult());
                          });
                      scf::YieldOp::create(
                          pb, pl,
                          ValueRange{out,
                                     arith::AddIOp::create(pb, pl, row, one),
                                     pass.getResult(0)});
                    },
                    [&](OpBuilder &nb, Location nl) {
                      scf::YieldOp::create(nb, nl, s);
                    });
                return SmallVector<Value>(step.getResults());
              });
          return SmallVector<Value>{steps[0],  steps[1], sorted[0],
                                    sorted[1], laid[0],  steps[2]};
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
