//===- Selection.cpp - tide.top_k as a heap per row ----------------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// tide.top_k on the CPU: for each row along the axis, a heap of the k best
// elements seen so far whose root is the worst of them (one compare per
// element against it, a sift down when an element displaces it), then a
// heap sort of the kept ones into the result: n log k work for a row of n,
// where the all-pairs decomposition the GPU takes costs n^2. Host code
// written as scf loops over tensors, as DataDependent.cpp's, which
// bufferization turns into loops over the buffers in place.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "tide/IR/TideOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

#include <functional>

using namespace mlir;
using namespace mlir::tide;
using namespace mlir::tide::to_linalg;

namespace {

/// A loop from `lower` to `upper` carrying `args`; `body` returns the values
/// to carry on.
SmallVector<Value>
forLoop(OpBuilder &b, Location loc, Value lower, Value upper, ValueRange args,
        function_ref<SmallVector<Value>(OpBuilder &, Value, ValueRange)> body) {
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = scf::ForOp::create(
      b, loc, lower, upper, one, args,
      [&](OpBuilder &lb, Location l, Value iv, ValueRange carried) {
        scf::YieldOp::create(lb, l, body(lb, iv, carried));
      });
  return SmallVector<Value>(loop.getResults());
}

/// `then` when `cond`, else the values unchanged.
SmallVector<Value> ifThen(OpBuilder &b, Location loc, Value cond,
                          ValueRange values,
                          function_ref<SmallVector<Value>(OpBuilder &)> then) {
  auto op = scf::IfOp::create(
      b, loc, cond,
      [&](OpBuilder &tb, Location l) { scf::YieldOp::create(tb, l, then(tb)); },
      [&](OpBuilder &eb, Location l) { scf::YieldOp::create(eb, l, values); });
  return SmallVector<Value>(op.getResults());
}

} // namespace

PairHeap::PairHeap(OpBuilder &b, Location loc, Value capacity, Before before)
    : loc(loc), before(std::move(before)) {
  // The levels of a heap of `capacity` (its bit length): the bound of a
  // sift.
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  auto levels = scf::WhileOp::create(
      b, loc, TypeRange{b.getIndexType(), b.getIndexType()},
      ValueRange{capacity, zero},
      [&](OpBuilder &wb, Location l, ValueRange args) {
        Value more =
            arith::CmpIOp::create(wb, l, arith::CmpIPredicate::sgt, args[0],
                                  arith::ConstantIndexOp::create(wb, l, 0));
        scf::ConditionOp::create(wb, l, more, args);
      },
      [&](OpBuilder &wb, Location l, ValueRange args) {
        Value one = arith::ConstantIndexOp::create(wb, l, 1);
        scf::YieldOp::create(
            wb, l,
            ValueRange{arith::ShRUIOp::create(wb, l, args[0], one),
                       arith::AddIOp::create(wb, l, args[1], one)});
      });
  depth = levels.getResult(1);
}

SmallVector<Value> PairHeap::siftDown(OpBuilder &b, Value start, Value size,
                                      ValueRange heap) const {
  auto index = [&](OpBuilder &ib, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(ib, loc, v);
  };
  auto at = [&](OpBuilder &ab, Value t, Value i) {
    return tensor::ExtractOp::create(ab, loc, t, i).getResult();
  };
  Value zero = index(b, 0);
  Value active = arith::ConstantIntOp::create(b, loc, 1, 1);
  SmallVector<Value> done = forLoop(
      b, loc, zero, depth, ValueRange{heap[0], heap[1], start, active},
      [&](OpBuilder &lb, Value, ValueRange s) {
        return ifThen(lb, loc, s[3], s, [&](OpBuilder &ab) {
          Value p = s[2];
          Value left = arith::AddIOp::create(
              ab, loc, arith::ShLIOp::create(ab, loc, p, index(ab, 1)),
              index(ab, 1));
          Value hasLeft = arith::CmpIOp::create(
              ab, loc, arith::CmpIPredicate::slt, left, size);
          SmallVector<Value> stopped{
              s[0], s[1], p, arith::ConstantIntOp::create(ab, loc, 0, 1)};
          auto step = scf::IfOp::create(
              ab, loc, hasLeft,
              [&](OpBuilder &tb, Location l) {
                Value right = arith::AddIOp::create(tb, l, left, index(tb, 1));
                Value hasRight = arith::CmpIOp::create(
                    tb, l, arith::CmpIPredicate::slt, right, size);
                // The worse child: the right one when it exists and the
                // left one comes before it (read only when it exists).
                auto rightWorse = scf::IfOp::create(
                    tb, l, hasRight,
                    [&](OpBuilder &rb, Location rl) {
                      Value w =
                          before(rb, at(rb, s[0], left), at(rb, s[1], left),
                                 at(rb, s[0], right), at(rb, s[1], right));
                      scf::YieldOp::create(rb, rl, w);
                    },
                    [&](OpBuilder &rb, Location rl) {
                      scf::YieldOp::create(
                          rb, rl,
                          arith::ConstantIntOp::create(rb, rl, 0, 1)
                              .getResult());
                    });
                Value child = arith::SelectOp::create(
                    tb, l, rightWorse.getResult(0), right, left);
                Value pv = at(tb, s[0], p), pi = at(tb, s[1], p);
                Value cv = at(tb, s[0], child), ci = at(tb, s[1], child);
                Value swap = before(tb, pv, pi, cv, ci);
                SmallVector<Value> swapped = ifThen(
                    tb, l, swap, ValueRange{s[0], s[1], p, swap},
                    [&](OpBuilder &sb) -> SmallVector<Value> {
                      Value values =
                          tensor::InsertOp::create(sb, l, cv, s[0], p);
                      values =
                          tensor::InsertOp::create(sb, l, pv, values, child);
                      Value indices =
                          tensor::InsertOp::create(sb, l, ci, s[1], p);
                      indices =
                          tensor::InsertOp::create(sb, l, pi, indices, child);
                      return {values, indices, child, swap};
                    });
                scf::YieldOp::create(tb, l, swapped);
              },
              [&](OpBuilder &eb, Location l) {
                scf::YieldOp::create(eb, l, stopped);
              });
          return SmallVector<Value>(step.getResults());
        });
      });
  return {done[0], done[1]};
}

SmallVector<Value> PairHeap::heapify(OpBuilder &b, Value size,
                                     ValueRange heap) const {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value parents = arith::ShRUIOp::create(b, loc, size, one);
  return forLoop(b, loc, zero, parents, heap,
                 [&](OpBuilder &lb, Value t, ValueRange h) {
                   Value p = arith::SubIOp::create(
                       lb, loc, arith::SubIOp::create(lb, loc, parents, t),
                       arith::ConstantIndexOp::create(lb, loc, 1));
                   return siftDown(lb, p, size, h);
                 });
}

SmallVector<Value> PairHeap::sort(OpBuilder &b, Value size,
                                  ValueRange heap) const {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  SmallVector<Value> pairs = heapify(b, size, heap);
  // The root, the worst of those left, swaps with the last of them.
  return forLoop(
      b, loc, zero, size, pairs, [&](OpBuilder &lb, Value t, ValueRange h) {
        Value m = arith::SubIOp::create(
            lb, loc, arith::SubIOp::create(lb, loc, size, t),
            arith::ConstantIndexOp::create(lb, loc, 1));
        SmallVector<Value> swapped;
        for (Value tensor : h) {
          Value first = tensor::ExtractOp::create(lb, loc, tensor, zero);
          Value last = tensor::ExtractOp::create(lb, loc, tensor, m);
          Value w = tensor::InsertOp::create(lb, loc, last, tensor, zero);
          swapped.push_back(tensor::InsertOp::create(lb, loc, first, w, m));
        }
        return siftDown(lb, zero, m, swapped);
      });
}

namespace {

/// The elements top_k tests against the root at once.
constexpr int64_t kScanBlock = 32;

struct LowerTopK : OpRewritePattern<TopKOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TopKOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    bool isUnsigned = isUnsignedValue(op.getInput());
    Value input = toSignless(rewriter, loc, op.getInput()).front();
    auto inType = cast<RankedTensorType>(input.getType());
    Type element = inType.getElementType();
    bool smallest = op.getSmallest();
    int64_t rank = inType.getRank();
    int64_t axis = op.getNormalizedAxis();
    Type i64 = rewriter.getI64Type();
    Type indexType = rewriter.getIndexType();
    auto index = [&](OpBuilder &b, int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    Value zero = index(rewriter, 0), one = index(rewriter, 1);

    // The result's size along the axis: its static size, or k read at run
    // time (0 if negative). The heap keeps min(that, n).
    auto outType = cast<RankedTensorType>(op.getType());
    Value count;
    if (outType.isDynamicDim(axis)) {
      int64_t kRank = cast<RankedTensorType>(op.getK().getType()).getRank();
      Value k = tensor::ExtractOp::create(rewriter, loc, op.getK(),
                                          SmallVector<Value>(kRank, zero));
      count = arith::MaxSIOp::create(
          rewriter, loc,
          arith::IndexCastOp::create(rewriter, loc, indexType, k), zero);
    } else {
      count = index(rewriter, outType.getDimSize(axis));
    }
    Value n = tensor::DimOp::create(rewriter, loc, input, axis);
    Value kept = arith::MinSIOp::create(rewriter, loc, count, n);

    SmallVector<Value> outSizes, rowSizes;
    for (int64_t d = 0; d < rank; ++d) {
      Value size =
          d == axis
              ? count
              : tensor::DimOp::create(rewriter, loc, input, d).getResult();
      if (outType.isDynamicDim(d))
        outSizes.push_back(size);
      if (d != axis)
        rowSizes.push_back(size);
    }
    Value out = tensor::EmptyOp::create(rewriter, loc, outType.getShape(), i64,
                                        outSizes);
    // Positions past the axis length hold 0.
    out = linalg::FillOp::create(rewriter, loc,
                                 ValueRange{constantOf(rewriter, loc, i64, 0)},
                                 ValueRange{out})
              .getResult(0);
    // The heap (values and indices; one slot more, never a static size 0).
    // Indices as `index`: never the type of the values, so CSE cannot make
    // the two scratch tensors one.
    Value slots = arith::AddIOp::create(rewriter, loc, kept, one);
    Value heapValues = tensor::EmptyOp::create(
        rewriter, loc, ArrayRef<int64_t>{ShapedType::kDynamic}, element,
        ValueRange{slots});
    Value heapIndices = tensor::EmptyOp::create(
        rewriter, loc, ArrayRef<int64_t>{ShapedType::kDynamic}, indexType,
        ValueRange{slots});

    // Whether element (va, ia) comes before (vb, ib) in the result: a larger
    // value (smaller with `smallest`), NaN the largest, ties by index.
    auto before = [&](OpBuilder &b, Value va, Value ia, Value vb,
                      Value ib) -> Value {
      Value better, same;
      if (isa<FloatType>(element)) {
        using P = arith::CmpFPredicate;
        auto cmp = [&](P p, Value x, Value y) {
          return arith::CmpFOp::create(b, loc, p, x, y).getResult();
        };
        Value nanA = cmp(P::UNO, va, va), nanB = cmp(P::UNO, vb, vb);
        if (smallest)
          // Numbers first, NaN last.
          better = arith::OrIOp::create(
              b, loc, cmp(P::OLT, va, vb),
              arith::AndIOp::create(b, loc, cmp(P::ORD, va, va), nanB));
        else
          better = arith::OrIOp::create(
              b, loc, cmp(P::OGT, va, vb),
              arith::AndIOp::create(b, loc, nanA, cmp(P::ORD, vb, vb)));
        same = arith::OrIOp::create(b, loc, cmp(P::OEQ, va, vb),
                                    arith::AndIOp::create(b, loc, nanA, nanB));
      } else {
        using P = arith::CmpIPredicate;
        P order = smallest ? (isUnsigned ? P::ult : P::slt)
                           : (isUnsigned ? P::ugt : P::sgt);
        better = arith::CmpIOp::create(b, loc, order, va, vb);
        same = arith::CmpIOp::create(b, loc, P::eq, va, vb);
      }
      Value earlier =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, ia, ib);
      return arith::OrIOp::create(b, loc, better,
                                  arith::AndIOp::create(b, loc, same, earlier));
    };
    // Whether value `v` comes before value `root` when its index is larger:
    // strictly better, or a NaN against a number (largest) or a number
    // against a NaN (smallest).
    auto betterValue = [&](OpBuilder &b, Value v, Value root) -> Value {
      if (!isa<FloatType>(element)) {
        using P = arith::CmpIPredicate;
        P order = smallest ? (isUnsigned ? P::ult : P::slt)
                           : (isUnsigned ? P::ugt : P::sgt);
        return arith::CmpIOp::create(b, loc, order, v, root);
      }
      using P = arith::CmpFPredicate;
      if (smallest)
        // v < root, or root NaN and v a number: "unordered or less" is true
        // for either NaN, so v must be a number.
        return arith::AndIOp::create(
            b, loc, arith::CmpFOp::create(b, loc, P::ULT, v, root),
            arith::CmpFOp::create(b, loc, P::ORD, v, v));
      // v > root, or v NaN and root a number.
      return arith::AndIOp::create(
          b, loc, arith::CmpFOp::create(b, loc, P::UGT, v, root),
          arith::CmpFOp::create(b, loc, P::ORD, root, root));
    };
    auto at = [&](OpBuilder &b, Value t, Value i) {
      return tensor::ExtractOp::create(b, loc, t, i).getResult();
    };
    PairHeap heap(rewriter, loc, kept, before);
    // Most of a row kept (and rows of some length): a merge sort of the row,
    // n log n in sequential passes, where the heap's sort of k elements jumps
    // about memory. Its scratch (two buffers of values and indices, one slot
    // past the row) are allocations of their own, so that CSE cannot merge
    // them with each other or with the heap's.
    Value useMerge = arith::AndIOp::create(
        rewriter, loc,
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::uge,
                              arith::AddIOp::create(rewriter, loc, kept, kept),
                              n),
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::uge, n,
                              index(rewriter, 64)));
    Value rowSlots = arith::AddIOp::create(rewriter, loc, n, one);
    auto scratch = [&](Type type) -> Value {
      return bufferization::AllocTensorOp::create(
          rewriter, loc, RankedTensorType::get({ShapedType::kDynamic}, type),
          ValueRange{rowSlots});
    };
    // One row: its elements along the axis at `ivs` elsewhere.
    std::function<SmallVector<Value>(OpBuilder &, size_t, SmallVector<Value>,
                                     ValueRange)>
        nest = [&](OpBuilder &b, size_t d, SmallVector<Value> ivs,
                   ValueRange carried) -> SmallVector<Value> {
      if (d < rowSizes.size())
        return forLoop(b, loc, zero, rowSizes[d], carried,
                       [&](OpBuilder &lb, Value iv, ValueRange args) {
                         SmallVector<Value> inner = ivs;
                         inner.push_back(iv);
                         return nest(lb, d + 1, inner, args);
                       });
      auto coords = [&](OpBuilder &, Value j) {
        SmallVector<Value> c(ivs.begin(), ivs.end());
        c.insert(c.begin() + axis, j);
        return c;
      };
      auto element = [&](OpBuilder &eb, Value j) {
        return tensor::ExtractOp::create(eb, loc, input, coords(eb, j))
            .getResult();
      };
      // A merge sort of the whole row when most of it is kept.
      auto mergeRow = [&](OpBuilder &b,
                          ValueRange carried) -> SmallVector<Value> {
        SmallVector<Value> runs = forLoop(
            b, loc, zero, n, ValueRange{carried[3], carried[4]},
            [&](OpBuilder &lb, Value j, ValueRange a) -> SmallVector<Value> {
              return {
                  tensor::InsertOp::create(lb, loc, element(lb, j), a[0], j),
                  tensor::InsertOp::create(lb, loc, j, a[1], j)};
            });
        // Runs of `width` in (srcV, srcI) merged in pairs into (dstV, dstI);
        // slot n (past the row) is read but never taken.
        auto pass = [&](OpBuilder &pb, Value width, ValueRange src,
                        ValueRange dst) -> SmallVector<Value> {
          Value pair = arith::AddIOp::create(pb, loc, width, width);
          Value pairs = arith::CeilDivUIOp::create(pb, loc, n, pair);
          return forLoop(
              pb, loc, zero, pairs, dst,
              [&](OpBuilder &lb, Value p, ValueRange d) -> SmallVector<Value> {
                Value lo = arith::MulIOp::create(lb, loc, p, pair);
                Value mid = arith::MinUIOp::create(
                    lb, loc, arith::AddIOp::create(lb, loc, lo, width), n);
                Value hi = arith::MinUIOp::create(
                    lb, loc, arith::AddIOp::create(lb, loc, lo, pair), n);
                SmallVector<Value> merged = forLoop(
                    lb, loc, lo, hi, ValueRange{d[0], d[1], lo, mid},
                    [&](OpBuilder &mb, Value t,
                        ValueRange m) -> SmallVector<Value> {
                      Value i = m[2], j = m[3];
                      Value vi = at(mb, src[0], i), ii = at(mb, src[1], i);
                      Value vj = at(mb, src[0], j), ij = at(mb, src[1], j);
                      Value leftLeft = arith::CmpIOp::create(
                          mb, loc, arith::CmpIPredicate::ult, i, mid);
                      Value rightDone = arith::CmpIOp::create(
                          mb, loc, arith::CmpIPredicate::uge, j, hi);
                      Value left = arith::AndIOp::create(
                          mb, loc, leftLeft,
                          arith::OrIOp::create(mb, loc, rightDone,
                                               before(mb, vi, ii, vj, ij)));
                      Value v = arith::SelectOp::create(mb, loc, left, vi, vj);
                      Value x = arith::SelectOp::create(mb, loc, left, ii, ij);
                      Value step = arith::IndexCastOp::create(
                          mb, loc, indexType,
                          arith::ExtUIOp::create(mb, loc, mb.getI64Type(),
                                                 left));
                      return {tensor::InsertOp::create(mb, loc, v, m[0], t),
                              tensor::InsertOp::create(mb, loc, x, m[1], t),
                              arith::AddIOp::create(mb, loc, i, step),
                              arith::SubIOp::create(
                                  mb, loc,
                                  arith::AddIOp::create(mb, loc, j, one),
                                  step)};
                    });
                return {merged[0], merged[1]};
              });
        };
        // Two passes a step (A to B, B to A), so that each buffer stays in
        // its place; the sorted row ends in A.
        auto sortLoop = scf::WhileOp::create(
            b, loc,
            TypeRange{indexType, runs[0].getType(), runs[1].getType(),
                      carried[5].getType(), carried[6].getType()},
            ValueRange{one, runs[0], runs[1], carried[5], carried[6]},
            [&](OpBuilder &wb, Location l, ValueRange a) {
              Value more = arith::CmpIOp::create(
                  wb, l, arith::CmpIPredicate::ult, a[0], n);
              scf::ConditionOp::create(wb, l, more, a);
            },
            [&](OpBuilder &wb, Location l, ValueRange a) {
              SmallVector<Value> toB =
                  pass(wb, a[0], {a[1], a[2]}, {a[3], a[4]});
              Value twice = arith::AddIOp::create(wb, l, a[0], a[0]);
              SmallVector<Value> toA = pass(wb, twice, toB, {a[1], a[2]});
              scf::YieldOp::create(
                  wb, l,
                  ValueRange{arith::AddIOp::create(wb, l, twice, twice), toA[0],
                             toA[1], toB[0], toB[1]});
            });
        Value sortedIndices = sortLoop.getResult(2);
        SmallVector<Value> written = forLoop(
            b, loc, zero, kept, ValueRange{carried[0]},
            [&](OpBuilder &lb, Value t, ValueRange w) -> SmallVector<Value> {
              return {tensor::InsertOp::create(
                  lb, loc,
                  arith::IndexCastOp::create(lb, loc, i64,
                                             at(lb, sortedIndices, t)),
                  w[0], coords(lb, t))};
            });
        return {written[0],
                carried[1],
                carried[2],
                sortLoop.getResult(1),
                sortLoop.getResult(2),
                sortLoop.getResult(3),
                sortLoop.getResult(4)};
      };
      auto heapRow = [&](OpBuilder &b,
                         ValueRange carried) -> SmallVector<Value> {
        // The first `kept` elements, then a heap of them.
        SmallVector<Value> pairs = forLoop(
            b, loc, zero, kept, ValueRange{carried[1], carried[2]},
            [&](OpBuilder &lb, Value j, ValueRange h) -> SmallVector<Value> {
              return {
                  tensor::InsertOp::create(lb, loc, element(lb, j), h[0], j),
                  tensor::InsertOp::create(lb, loc, j, h[1], j)};
            });
        pairs = heap.heapify(b, kept, pairs);
        // Every other element replaces the root (the worst kept) when it comes
        // before it. Its index is larger than every kept one, so it does only
        // when its value is better: one compare with the root's value, kept
        // in a register. Most elements are not: blocks of kScanBlock are first
        // tested as a whole, a branch-free loop the vectorizer takes.
        auto scanOne = [&](OpBuilder &lb, Value j,
                           ValueRange h) -> SmallVector<Value> {
          Value v = element(lb, j);
          Value better = betterValue(lb, v, h[2]);
          return ifThen(lb, loc, better, h, [&](OpBuilder &tb) {
            SmallVector<Value> replaced{
                tensor::InsertOp::create(tb, loc, v, h[0], zero),
                tensor::InsertOp::create(tb, loc, j, h[1], zero)};
            SmallVector<Value> sifted = heap.siftDown(tb, zero, kept, replaced);
            return SmallVector<Value>{sifted[0], sifted[1],
                                      at(tb, sifted[0], zero)};
          });
        };
        Value block = index(b, kScanBlock);
        Value rest = arith::SubIOp::create(b, loc, n, kept);
        Value blocks = arith::DivUIOp::create(b, loc, rest, block);
        Value tail = arith::AddIOp::create(
            b, loc, kept, arith::MulIOp::create(b, loc, blocks, block));
        SmallVector<Value> scanned = forLoop(
            b, loc, zero, blocks,
            ValueRange{pairs[0], pairs[1], at(b, pairs[0], zero)},
            [&](OpBuilder &lb, Value c, ValueRange h) -> SmallVector<Value> {
              Value start = arith::AddIOp::create(
                  lb, loc, kept, arith::MulIOp::create(lb, loc, c, block));
              Value end = arith::AddIOp::create(lb, loc, start, block);
              Value none = arith::ConstantIntOp::create(lb, loc, 0, 1);
              Value any =
                  forLoop(lb, loc, start, end, ValueRange{none},
                          [&](OpBuilder &ib, Value j, ValueRange a) {
                            Value better =
                                betterValue(ib, element(ib, j), h[2]);
                            return SmallVector<Value>{
                                arith::OrIOp::create(ib, loc, a[0], better)};
                          })
                      .front();
              return ifThen(lb, loc, any, h, [&](OpBuilder &tb) {
                return forLoop(tb, loc, start, end, h,
                               [&](OpBuilder &eb, Value j, ValueRange e) {
                                 return scanOne(eb, j, e);
                               });
              });
            });
        scanned = forLoop(b, loc, tail, n, scanned,
                          [&](OpBuilder &lb, Value j, ValueRange h) {
                            return scanOne(lb, j, h);
                          });
        pairs = {scanned[0], scanned[1]};
        // The root is the worst of those left: it goes last; the last leaf
        // takes its place.
        SmallVector<Value> sorted = forLoop(
            b, loc, zero, kept, ValueRange{carried[0], pairs[0], pairs[1]},
            [&](OpBuilder &lb, Value t, ValueRange s) {
              Value m = arith::SubIOp::create(
                  lb, loc, arith::SubIOp::create(lb, loc, kept, t),
                  index(lb, 1));
              Value written = tensor::InsertOp::create(
                  lb, loc,
                  arith::IndexCastOp::create(lb, loc, i64, at(lb, s[2], zero)),
                  s[0], coords(lb, m));
              Value values = tensor::InsertOp::create(lb, loc, at(lb, s[1], m),
                                                      s[1], zero);
              Value indices = tensor::InsertOp::create(lb, loc, at(lb, s[2], m),
                                                       s[2], zero);
              SmallVector<Value> h =
                  heap.siftDown(lb, zero, m, {values, indices});
              return SmallVector<Value>{written, h[0], h[1]};
            });
        sorted.append(carried.begin() + 3, carried.end());
        return sorted;
      };
      auto row = scf::IfOp::create(
          b, loc, useMerge,
          [&](OpBuilder &tb, Location l) {
            scf::YieldOp::create(tb, l, mergeRow(tb, carried));
          },
          [&](OpBuilder &eb, Location l) {
            scf::YieldOp::create(eb, l, heapRow(eb, carried));
          });
      return SmallVector<Value>(row.getResults());
    };
    SmallVector<Value> done = nest(
        rewriter, 0, {},
        ValueRange{out, heapValues, heapIndices, scratch(element),
                   scratch(indexType), scratch(element), scratch(indexType)});
    rewriter.replaceOp(op, done[0]);
    return success();
  }
};

} // namespace

void mlir::tide::populateSelectionPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerTopK>(patterns.getContext());
}
