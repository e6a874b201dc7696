//===- PipelineRowLoops.cpp - A row's reduction with the previous row's work =//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// In a row tile (tide-tile-and-fuse-rows, lowered to loops), a softmax is
//
//   for r in [0, R): for j: m[r] = max(m[r], x[r, j])          // P
//   for r in [0, R): for j: e = exp(x[r, j] - m[r]); y[r, j] = e; s[r] += e
//                                                              // C
//   ...
//
// P streams a row in from memory and does little; C does the work on a row
// that P has just brought into the cache and loads nothing new. The core
// waits for memory in P and leaves it idle in C. Skewed by one row,
//
//   for j: P(0, j)
//   for r in [0, R - 1): for j: C(r, j); P(r + 1, j)
//   for j: C(R - 1, j)
//
// every row after the first is read while the previous one is computed.
//
//===----------------------------------------------------------------------===//

#include "tide/Lowering/Passes.h"

#include "BufferOrigins.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tide {
#define GEN_PASS_DEF_PIPELINEROWLOOPSPASS
#include "tide/Lowering/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;
using namespace mlir::tide;

namespace {

/// `for r in [0, rows) { for j in [lb, ub, step) { body } }`: a constant
/// row count of at least 2, no loop-carried values, and a body of loads,
/// stores and operations without memory effects or regions.
struct RowNest {
  scf::ForOp outer, inner;
  int64_t rows;
};

/// One load or store of a body.
struct Access {
  Value memref;
  SmallVector<Value> indices;
  bool write;
};

std::optional<int64_t> constantIndex(Value v) {
  if (auto c = v.getDefiningOp<arith::ConstantIndexOp>())
    return c.value();
  return std::nullopt;
}

/// Whether the value `store` writes is combined in a way LLVM's loop
/// vectorizer takes as a reduction (integer arithmetic, reassociable float
/// sums and products, maxima and minima): a loop that would stay scalar must
/// not take a vectorizable one with it.
bool vectorizableUpdate(memref::StoreOp store) {
  Operation *def = store.getValueToStore().getDefiningOp();
  if (!def)
    return false;
  if (isa<arith::AddIOp, arith::MulIOp, arith::AndIOp, arith::OrIOp,
          arith::XOrIOp, arith::MaxSIOp, arith::MinSIOp, arith::MaxUIOp,
          arith::MinUIOp, arith::MaxNumFOp, arith::MinNumFOp, arith::MaximumFOp,
          arith::MinimumFOp>(def))
    return true;
  if (isa<arith::AddFOp, arith::MulFOp>(def)) {
    auto flags =
        cast<arith::ArithFastMathInterface>(def).getFastMathFlagsAttr();
    return flags &&
           bitEnumContainsAll(flags.getValue(), arith::FastMathFlags::reassoc);
  }
  return false;
}

std::optional<RowNest> matchRowNest(Operation *op) {
  auto outer = dyn_cast<scf::ForOp>(op);
  if (!outer || outer.getNumRegionIterArgs() != 0 ||
      constantIndex(outer.getLowerBound()) != 0 ||
      constantIndex(outer.getStep()) != 1)
    return std::nullopt;
  std::optional<int64_t> rows = constantIndex(outer.getUpperBound());
  if (!rows || *rows < 2)
    return std::nullopt;
  Block *body = outer.getBody();
  if (body->getOperations().size() != 2)
    return std::nullopt;
  auto inner = dyn_cast<scf::ForOp>(body->front());
  if (!inner || inner.getNumRegionIterArgs() != 0 ||
      !outer.isDefinedOutsideOfLoop(inner.getLowerBound()) ||
      !outer.isDefinedOutsideOfLoop(inner.getUpperBound()) ||
      !outer.isDefinedOutsideOfLoop(inner.getStep()))
    return std::nullopt;
  for (Operation &bodyOp : inner.getBody()->without_terminator()) {
    if (auto load = dyn_cast<memref::LoadOp>(bodyOp)) {
      if (!outer.isDefinedOutsideOfLoop(load.getMemRef()))
        return std::nullopt;
      continue;
    }
    if (auto store = dyn_cast<memref::StoreOp>(bodyOp)) {
      if (!outer.isDefinedOutsideOfLoop(store.getMemRef()))
        return std::nullopt;
      // An accumulator (the same element at every j) must vectorize.
      if (!llvm::is_contained(store.getIndices(), inner.getInductionVar()) &&
          !vectorizableUpdate(store))
        return std::nullopt;
      continue;
    }
    if (bodyOp.getNumRegions() != 0 || !isMemoryEffectFree(&bodyOp))
      return std::nullopt;
  }
  return RowNest{outer, inner, *rows};
}

/// Every load and store under `op`; false when `op` holds another
/// operation with memory effects.
bool collectAccesses(Operation *op, SmallVectorImpl<Access> &accesses) {
  WalkResult result = op->walk([&](Operation *nested) {
    if (auto load = dyn_cast<memref::LoadOp>(nested)) {
      accesses.push_back(
          {load.getMemRef(), SmallVector<Value>(load.getIndices()), false});
      return WalkResult::advance();
    }
    if (auto store = dyn_cast<memref::StoreOp>(nested)) {
      accesses.push_back(
          {store.getMemRef(), SmallVector<Value>(store.getIndices()), true});
      return WalkResult::advance();
    }
    if (isa<scf::ForOp, scf::YieldOp>(nested) || isMemoryEffectFree(nested))
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  return !result.wasInterrupted();
}

/// Whether no access of `a` and of `b` conflict (one a write, to buffers
/// that may overlap).
bool independent(ArrayRef<Access> a, ArrayRef<Access> b) {
  for (const Access &x : a)
    for (const Access &y : b)
      if ((x.write || y.write) && mayAlias(rootOf(x.memref), rootOf(y.memref)))
        return false;
  return true;
}

/// Whether `c`'s rows can run one row behind `p`'s: every conflicting pair
/// of accesses is to the same view, at the row of its own nest in the same
/// dimension (different rows are different elements; a row's P still runs
/// before its C).
bool rowsIndependent(RowNest p, ArrayRef<Access> pa, RowNest c,
                     ArrayRef<Access> ca) {
  Value pRow = p.outer.getInductionVar(), cRow = c.outer.getInductionVar();
  for (const Access &x : pa) {
    for (const Access &y : ca) {
      if (!(x.write || y.write) ||
          !mayAlias(rootOf(x.memref), rootOf(y.memref)))
        continue;
      if (x.memref != y.memref)
        return false;
      bool byRow = false;
      for (auto [i, j] : llvm::zip(x.indices, y.indices))
        if (i == pRow && j == cRow)
          byRow = true;
      if (!byRow)
        return false;
    }
  }
  return true;
}

bool sameInnerBounds(scf::ForOp a, scf::ForOp b) {
  auto same = [](Value x, Value y) {
    if (x == y)
      return true;
    std::optional<int64_t> cx = constantIndex(x), cy = constantIndex(y);
    return cx && cy && *cx == *cy;
  };
  return same(a.getLowerBound(), b.getLowerBound()) &&
         same(a.getUpperBound(), b.getUpperBound()) &&
         same(a.getStep(), b.getStep());
}

/// Skews `c` one row behind `p` (the operations between them move above
/// `p`). Returns the epilogue loop (the last operation it wrote).
Operation *skew(RewriterBase &rewriter, RowNest p, RowNest c,
                ArrayRef<Operation *> between) {
  for (Operation *op : between)
    rewriter.moveOpBefore(op, p.outer);
  Location loc = c.outer.getLoc();
  rewriter.setInsertionPoint(p.outer);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  Value lastRow = arith::ConstantIndexOp::create(rewriter, loc, p.rows - 1);
  // P's first row.
  IRMapping first;
  first.map(p.outer.getInductionVar(), zero);
  rewriter.clone(*p.inner, first);
  // C's row r with P's row r + 1.
  auto rows = scf::ForOp::create(rewriter, loc, zero, lastRow, one);
  rewriter.setInsertionPointToStart(rows.getBody());
  Value r = rows.getInductionVar();
  Value next = arith::AddIOp::create(rewriter, loc, r, one);
  auto cols = scf::ForOp::create(rewriter, loc, c.inner.getLowerBound(),
                                 c.inner.getUpperBound(), c.inner.getStep());
  rewriter.setInsertionPointToStart(cols.getBody());
  Value j = cols.getInductionVar();
  IRMapping cm, pm;
  cm.map(c.outer.getInductionVar(), r);
  cm.map(c.inner.getInductionVar(), j);
  pm.map(p.outer.getInductionVar(), next);
  pm.map(p.inner.getInductionVar(), j);
  for (Operation &op : c.inner.getBody()->without_terminator())
    rewriter.clone(op, cm);
  for (Operation &op : p.inner.getBody()->without_terminator())
    rewriter.clone(op, pm);
  // C's last row.
  rewriter.setInsertionPointAfter(rows);
  IRMapping last;
  last.map(c.outer.getInductionVar(), lastRow);
  Operation *epilogue = rewriter.clone(*c.inner, last);
  rewriter.eraseOp(c.outer);
  rewriter.eraseOp(p.outer);
  return epilogue;
}

struct PipelineRowLoopsPass
    : public tide::impl::PipelineRowLoopsPassBase<PipelineRowLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<Block *> blocks;
    // Nested blocks first: a skew erases the blocks of the nests it joins.
    getOperation()->walk<WalkOrder::PostOrder>(
        [&](Block *block) { blocks.push_back(block); });
    for (Block *block : blocks)
      runOnBlock(rewriter, block);
  }

  void runOnBlock(RewriterBase &rewriter, Block *block) {
    if (block->empty())
      return;
    for (Operation *op = &block->front(); op; op = op->getNextNode()) {
      std::optional<RowNest> p = matchRowNest(op);
      if (!p)
        continue;
      SmallVector<Access> pa;
      if (!collectAccesses(p->outer, pa))
        continue;
      // The next row nest of the block, and what lies between.
      SmallVector<Operation *> between;
      std::optional<RowNest> c;
      for (Operation *next = op->getNextNode(); next;
           next = next->getNextNode()) {
        if ((c = matchRowNest(next)))
          break;
        between.push_back(next);
      }
      if (!c || c->rows != p->rows || !sameInnerBounds(p->inner, c->inner))
        continue;
      SmallVector<Access> ca, ba;
      if (!collectAccesses(c->outer, ca) || !rowsIndependent(*p, pa, *c, ca))
        continue;
      // What lies between moves above P: values it uses are defined
      // before P or between, and its accesses do not meet P's.
      bool movable = llvm::all_of(between, [&](Operation *b) {
        if (b->hasTrait<OpTrait::IsTerminator>())
          return false;
        return collectAccesses(b, ba);
      });
      if (!movable || !independent(ba, pa))
        continue;
      op = skew(rewriter, *p, *c, between);
    }
  }
};

} // namespace
