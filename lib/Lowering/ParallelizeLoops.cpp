//===- ParallelizeLoops.cpp - Choose the loops that run across threads ----===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Lowering/Passes.h"

#include "LoopWork.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tide {
#define GEN_PASS_DEF_PARALLELIZELOOPSPASS
#include "tide/Lowering/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;
using namespace mlir::tide;

namespace {

/// Fewer known outer iterations than this: one more dimension joins the
/// parallel ones (when it is not the innermost), so that the threads' shares
/// stay balanced.
constexpr int64_t kMinOuterIterations = 64;

/// Replaces dimensions [from, n) of `loop` (no reductions) by an scf.for
/// nest inside it; with from == 0, the whole loop becomes the nest.
void sequentializeFrom(RewriterBase &rewriter, scf::ParallelOp loop,
                       unsigned from) {
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  ValueRange lbs = loop.getLowerBound(), ubs = loop.getUpperBound(),
             steps = loop.getStep();
  Block *body = loop.getBody();
  // The body's terminator is an empty scf.reduce.
  rewriter.eraseOp(body->getTerminator());

  auto buildInner = [&](OpBuilder &builder, Location loc, ValueRange outerIvs) {
    scf::LoopNest nest =
        scf::buildLoopNest(builder, loc, lbs.drop_front(from),
                           ubs.drop_front(from), steps.drop_front(from));
    SmallVector<Value> ivs(outerIvs);
    for (scf::ForOp inner : nest.loops)
      ivs.push_back(inner.getInductionVar());
    Block *dest = nest.loops.empty() ? builder.getInsertionBlock()
                                     : nest.loops.back().getBody();
    Block::iterator point = nest.loops.empty()
                                ? builder.getInsertionPoint()
                                : dest->getTerminator()->getIterator();
    rewriter.inlineBlockBefore(body, dest, point, ivs);
  };

  if (from == 0) {
    OpBuilder::InsertionGuard guard(rewriter);
    buildInner(rewriter, loc, {});
    rewriter.eraseOp(loop);
    return;
  }
  auto outer = scf::ParallelOp::create(
      rewriter, loc, lbs.take_front(from), ubs.take_front(from),
      steps.take_front(from),
      [&](OpBuilder &builder, Location loc, ValueRange ivs) {
        buildInner(builder, loc, ivs);
      });
  (void)outer;
  rewriter.eraseOp(loop);
}

/// How many leading dimensions of `loop` stay parallel.
unsigned countParallelDims(scf::ParallelOp loop) {
  unsigned n = loop.getNumLoops();
  unsigned k = 0;
  int64_t outer = 1;
  // Leading unit dimensions, then the first other one.
  for (; k < n; ++k) {
    std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()[k]),
                           ub = getConstantIntValue(loop.getUpperBound()[k]),
                           st = getConstantIntValue(loop.getStep()[k]);
    if (!lb || !ub || !st || *st <= 0) {
      outer = -1;
      ++k;
      break;
    }
    int64_t trips = *ub > *lb ? (*ub - *lb + *st - 1) / *st : 0;
    outer *= trips;
    if (trips != 1) {
      ++k;
      break;
    }
  }
  // More while few outer iterations are known and the innermost dimension
  // is not reached.
  while (outer >= 0 && outer < kMinOuterIterations && k + 1 < n) {
    std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()[k]),
                           ub = getConstantIntValue(loop.getUpperBound()[k]),
                           st = getConstantIntValue(loop.getStep()[k]);
    ++k;
    if (!lb || !ub || !st || *st <= 0)
      break;
    outer *= *ub > *lb ? (*ub - *lb + *st - 1) / *st : 0;
  }
  return std::max(k, 1u);
}

/// When the innermost dimension of `loop` (a body without loops) stays
/// parallel (an elementwise op over a vector), splits it into chunks of a
/// power of two from 4096 down to 256 elements that divides its static trip
/// count: the chunks stay parallel and each becomes an scf.for, which
/// tide-annotate-inner-loops marks for the loop vectorizer like the inner
/// loops of other nests (interleaved, where an OpenMP loop's body gets
/// LLVM's choice: exp over 230400 f32 on one thread, 61 -> 45 us). A 1-D
/// loop of at least two chunks of 4096 whose count no such chunk divides
/// gets chunks of 4096 and an scf.for over the rest after them (fewer than
/// 4096 iterations, on the calling thread); other such loops are left
/// alone (a chunk with dynamic bounds would hide the work from
/// tide-omp-team-size).
void chunkInnermost(RewriterBase &rewriter, scf::ParallelOp loop) {
  unsigned n = loop.getNumLoops();
  bool hasLoops = false;
  loop.getBody()->walk([&](LoopLikeOpInterface) { hasLoops = true; });
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()[n - 1]),
                         ub = getConstantIntValue(loop.getUpperBound()[n - 1]),
                         st = getConstantIntValue(loop.getStep()[n - 1]);
  if (hasLoops || !lb || !ub || !st || *st != 1 || *ub <= *lb)
    return;
  constexpr int64_t kLargest = 4096;
  int64_t trips = *ub - *lb, chunk = kLargest, rest = 0;
  while (chunk >= 256 && trips % chunk != 0)
    chunk /= 2;
  if (chunk < 256) {
    if (n != 1 || trips < 2 * kLargest)
      return;
    chunk = kLargest;
    rest = trips % chunk;
  }
  if (trips == chunk)
    return;
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  SmallVector<Value> steps(loop.getStep());
  steps[n - 1] = arith::ConstantIndexOp::create(rewriter, loc, chunk);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  Block *body = loop.getBody();
  SmallVector<Value> upper(loop.getUpperBound());
  if (rest) {
    // The rest, after the chunks: a copy of the body in an scf.for.
    Value end = arith::ConstantIndexOp::create(rewriter, loc, *ub - rest);
    upper[n - 1] = end;
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointAfter(loop);
    auto tail = scf::ForOp::create(rewriter, loc, end,
                                   loop.getUpperBound()[n - 1], one);
    rewriter.setInsertionPoint(tail.getBody()->getTerminator());
    IRMapping map;
    map.map(body->getArgument(0), tail.getInductionVar());
    for (Operation &op : body->without_terminator())
      rewriter.clone(op, map);
  }
  rewriter.eraseOp(body->getTerminator()); // an empty scf.reduce
  scf::ParallelOp::create(
      rewriter, loc, loop.getLowerBound(), upper, steps,
      [&](OpBuilder &builder, Location loc, ValueRange ivs) {
        Value end =
            arith::AddIOp::create(builder, loc, ivs.back(), steps[n - 1]);
        auto inner = scf::ForOp::create(builder, loc, ivs.back(), end, one);
        SmallVector<Value> bodyIvs(ivs.drop_back());
        bodyIvs.push_back(inner.getInductionVar());
        rewriter.inlineBlockBefore(body, inner.getBody()->getTerminator(),
                                   bodyIvs);
      });
  rewriter.eraseOp(loop);
}

struct ParallelizeLoopsPass
    : public tide::impl::ParallelizeLoopsPassBase<ParallelizeLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (grain <= 0) {
      emitError(getOperation().getLoc())
          << "invalid 'grain' option " << static_cast<int64_t>(grain)
          << "; it must be positive";
      return signalPassFailure();
    }
    SmallVector<scf::ParallelOp> outermost;
    getOperation().walk<WalkOrder::PreOrder>([&](scf::ParallelOp loop) {
      outermost.push_back(loop);
      return WalkResult::skip();
    });
    IRRewriter rewriter(&getContext());
    for (scf::ParallelOp loop : outermost) {
      // Nested parallel loops run inside the outer one's threads.
      SmallVector<scf::ParallelOp> nested;
      loop.getBody()->walk([&](scf::ParallelOp inner) {
        if (inner.getNumResults() == 0)
          nested.push_back(inner);
      });
      for (scf::ParallelOp inner : nested) // innermost first (post-order)
        sequentializeFrom(rewriter, inner, 0);
      if (loop.getNumResults() != 0)
        continue;
      std::optional<int64_t> work =
          LoopWork::getStatic(LoopWork(loop).ofRoot());
      if (work && *work < 2 * grain) {
        sequentializeFrom(rewriter, loop, 0);
        continue;
      }
      unsigned keep = countParallelDims(loop);
      if (keep < loop.getNumLoops())
        sequentializeFrom(rewriter, loop, keep);
      else
        chunkInnermost(rewriter, loop);
    }
  }
};

} // namespace
