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

/// tide.non_max_suppression, ONNX Runtime's algorithm in its greedy form:
/// per batch entry and class, the boxes above the score threshold are
/// candidates; while fewer than the limit are selected, the candidate of
/// the highest score (the lowest index among equals) is selected, and every
/// candidate it suppresses (intersection over union above the threshold)
/// leaves. The candidates left are a list compacted in place by each pass,
/// which also finds the next best: a step costs the candidates left, not
/// all the boxes. That selects what ONNX Runtime's sorted pass selects: a box
/// is kept exactly when no box selected before it (of a higher score)
/// suppresses it.
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
    // SuppressByIOU with the candidate first; every "<= 0: no" test is an
    // unordered-or-greater compare, so NaN goes on as it does there).
    auto suppresses = [&](OpBuilder &b, const Extents &c, const Extents &s) {
      using P = arith::CmpFPredicate;
      Value ixMin = maxOf(b, c[0], s[0]), ixMax = minOf(b, c[1], s[1]);
      Value iyMin = maxOf(b, c[2], s[2]), iyMax = minOf(b, c[3], s[3]);
      // Boxes that do not intersect (most pairs) stop here.
      Value overlap = arith::AndIOp::create(
          b, loc, cmp(b, P::UGT, ixMax, ixMin), cmp(b, P::UGT, iyMax, iyMin));
      auto ratioTest = scf::IfOp::create(
          b, loc, overlap,
          [&](OpBuilder &tb, Location tl) {
            Value zeroF = constantOf(tb, tl, compute, 0);
            Value inter = arith::MulFOp::create(
                tb, tl, arith::SubFOp::create(tb, tl, ixMax, ixMin),
                arith::SubFOp::create(tb, tl, iyMax, iyMin));
            auto area = [&](const Extents &e) -> Value {
              return arith::MulFOp::create(
                  tb, tl, arith::SubFOp::create(tb, tl, e[1], e[0]),
                  arith::SubFOp::create(tb, tl, e[3], e[2]));
            };
            Value areaC = area(c), areaS = area(s);
            Value uni = arith::SubFOp::create(
                tb, tl, arith::AddFOp::create(tb, tl, areaC, areaS), inter);
            Value ratio = arith::DivFOp::create(tb, tl, inter, uni);
            Value ok = cmp(tb, P::UGT, inter, zeroF);
            for (Value t :
                 {cmp(tb, P::UGT, areaC, zeroF), cmp(tb, P::UGT, areaS, zeroF),
                  cmp(tb, P::UGT, uni, zeroF), cmp(tb, P::OGT, ratio, iou)})
              ok = arith::AndIOp::create(tb, tl, ok, t);
            scf::YieldOp::create(tb, tl, ok);
          },
          [&](OpBuilder &eb, Location el) {
            scf::YieldOp::create(
                eb, el, arith::ConstantIntOp::create(eb, el, 0, 1).getResult());
          });
      return ratioTest.getResult(0);
    };

    Value lowest = lowestOf(rewriter, loc, compute);
    Value none = index(rewriter, -1);
    Type indexType = rewriter.getIndexType();
    // (One slot more than the boxes: never a static size of 0, into which
    // the never-run appends would fold to an out-of-bounds insert.)
    Value listInit = tensor::EmptyOp::create(
        rewriter, loc, ArrayRef<int64_t>{ShapedType::kDynamic}, indexType,
        ValueRange{arith::AddIOp::create(rewriter, loc, count, one)});
    auto selectI = [&](OpBuilder &b, Value c, Value x, Value y) {
      return arith::SelectOp::create(b, loc, c, x, y).getResult();
    };
    // Appends `item` (with `score`) to the list `list` of length `len` when
    // `keep`, tracking the first of the highest score (`best`, `bestScore`):
    // the writes go at the length, never past the item being read, so the
    // list compacts in place.
    auto append = [&](OpBuilder &b, Location l, Value keep, Value item,
                      Value score, Value list, Value len, Value best,
                      Value bestScore) -> SmallVector<Value> {
      Value written = tensor::InsertOp::create(b, l, item, list, len);
      Value grown = arith::AddIOp::create(b, l, len, one);
      Value noneYet =
          arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, best, none);
      Value higher = cmp(b, arith::CmpFPredicate::OGT, score, bestScore);
      Value take = arith::AndIOp::create(
          b, l, keep, arith::OrIOp::create(b, l, noneYet, higher));
      return {written, selectI(b, keep, grown, len),
              selectI(b, take, item, best), sel(b, take, score, bestScore)};
    };
    SmallVector<Value> done = buildNest(
        rewriter, loc, {batches, classes}, ValueRange{selected, zero},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange args) {
          Value batch = ivs[0], cls = ivs[1];
          auto scoreAt = [&](OpBuilder &sb, Value i) {
            return widen(sb, tensor::ExtractOp::create(
                                 sb, l, scores, ValueRange{batch, cls, i}));
          };
          // The candidates (above the score threshold, when there is one),
          // in index order, and the first of the highest score among them.
          SmallVector<Value> candidates = buildNest(
              b, l, {count}, ValueRange{listInit, zero, none, lowest},
              [&](OpBuilder &ab, Location al, ValueRange i, ValueRange a) {
                Value score = scoreAt(ab, i[0]);
                Value keep = scoreThreshold
                                 ? cmp(ab, arith::CmpFPredicate::OGT, score,
                                       scoreThreshold)
                                 : arith::ConstantIntOp::create(ab, al, 1, 1)
                                       .getResult();
                return append(ab, al, keep, i[0], score, a[0], a[1], a[2],
                              a[3]);
              });
          Value notDone = arith::ConstantIntOp::create(b, l, 0, 1);
          // One selection per step: the best candidate left; one pass over
          // the candidates left drops it and those it suppresses, keeps the
          // rest in index order and finds the next best. `finished` once no
          // candidate is left.
          SmallVector<Value> steps = buildNest(
              b, l, {limit},
              ValueRange{args[0], args[1], candidates[0], candidates[1],
                         candidates[2], notDone},
              [&](OpBuilder &sb, Location sl, ValueRange, ValueRange s) {
                auto step = scf::IfOp::create(
                    sb, sl, s[5],
                    [&](OpBuilder &tb, Location tl) {
                      scf::YieldOp::create(tb, tl, s);
                    },
                    [&](OpBuilder &eb, Location el) {
                      Value best = s[4];
                      Value found = arith::CmpIOp::create(
                          eb, el, arith::CmpIPredicate::ne, best, none);
                      auto pick = scf::IfOp::create(
                          eb, el, found,
                          [&](OpBuilder &pb, Location pl) {
                            Value out = s[0], row = s[1];
                            for (auto [j, v] : llvm::enumerate(
                                     std::array<Value, 3>{batch, cls, best}))
                              out = tensor::InsertOp::create(
                                  pb, pl,
                                  arith::IndexCastOp::create(pb, pl, i64, v),
                                  out, ValueRange{row, index(pb, j)});
                            Extents chosen = extents(pb, batch, best);
                            SmallVector<Value> left = buildNest(
                                pb, pl, {s[3]},
                                ValueRange{s[2], zero, none, lowest},
                                [&](OpBuilder &qb, Location ql, ValueRange i,
                                    ValueRange q) {
                                  Value c = tensor::ExtractOp::create(
                                      qb, ql, q[0], i[0]);
                                  Value gone = arith::OrIOp::create(
                                      qb, ql,
                                      suppresses(qb, extents(qb, batch, c),
                                                 chosen),
                                      arith::CmpIOp::create(
                                          qb, ql, arith::CmpIPredicate::eq, c,
                                          best));
                                  Value stays = arith::XOrIOp::create(
                                      qb, ql, gone,
                                      arith::ConstantIntOp::create(qb, ql, 1,
                                                                   1));
                                  return append(qb, ql, stays, c,
                                                scoreAt(qb, c), q[0], q[1],
                                                q[2], q[3]);
                                });
                            Value next =
                                arith::AddIOp::create(pb, pl, row, one);
                            scf::YieldOp::create(pb, pl,
                                                 ValueRange{out, next, left[0],
                                                            left[1], left[2],
                                                            s[5]});
                          },
                          [&](OpBuilder &nb, Location nl) {
                            Value finished =
                                arith::ConstantIntOp::create(nb, nl, 1, 1);
                            scf::YieldOp::create(nb, nl,
                                                 ValueRange{s[0], s[1], s[2],
                                                            s[3], s[4],
                                                            finished});
                          });
                      scf::YieldOp::create(eb, el, pick.getResults());
                    });
                return SmallVector<Value>(step.getResults());
              });
          return SmallVector<Value>{steps[0], steps[1]};
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
