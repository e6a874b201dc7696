//===- If.cpp - tide.if as a host branch ----------------------------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// tide.if becomes an scf.if on its condition's element: each region's tide
// ops are cloned into the matching scf.if region (and lowered in turn by the
// same patterns), its arguments bound to the invariants. A region that
// yields sizes the result leaves dynamic is cast to the result type
// (tensor.cast), so both scf.if regions yield one type.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "tide/IR/TideOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::tide;
using namespace mlir::tide::to_linalg;

namespace {

struct LowerIf : OpRewritePattern<IfOp> {
  using OpRewritePattern::OpRewritePattern;

  /// The ops of `block` cloned at `b`'s insertion point with its arguments
  /// bound to `invariants`; yields its values cast to `types`.
  static void branch(OpBuilder &b, Location loc, Block &block,
                     ValueRange invariants, TypeRange types) {
    IRMapping map;
    for (auto [arg, inv] : llvm::zip(block.getArguments(), invariants))
      map.map(arg, castTo(b, loc, inv, arg.getType()));
    for (Operation &inner : block.without_terminator())
      b.clone(inner, map);
    SmallVector<Value> yielded;
    for (Value v : block.getTerminator()->getOperands())
      yielded.push_back(map.lookupOrDefault(v));
    yielded = toSignless(b, loc, yielded);
    for (auto [v, type] : llvm::zip(yielded, types))
      if (v.getType() != type)
        v = tensor::CastOp::create(b, loc, type, v);
    scf::YieldOp::create(b, loc, yielded);
  }

  LogicalResult matchAndRewrite(IfOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> invs = toSignless(rewriter, loc, op.getInvariants());
    Value cond = tensor::ExtractOp::create(
        rewriter, loc,
        castTo(rewriter, loc, op.getCond(), signless(op.getCond().getType())),
        ValueRange{});
    SmallVector<Type> types;
    for (Type t : op.getResultTypes())
      types.push_back(signless(t));
    // (The result types are those the regions yield: `types`.)
    auto branchOp = scf::IfOp::create(
        rewriter, loc, cond,
        [&](OpBuilder &b, Location l) {
          branch(b, l, op.getThenBlock(), invs, types);
        },
        [&](OpBuilder &b, Location l) {
          branch(b, l, op.getElseBlock(), invs, types);
        });
    replaceFromSignless(rewriter, op, branchOp.getResults());
    return success();
  }
};

} // namespace

void mlir::tide::populateIfPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerIf>(patterns.getContext());
}
