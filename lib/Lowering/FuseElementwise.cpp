//===- FuseElementwise.cpp - Elementwise fusion that keeps GEMMs named ----===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// Upstream's linalg-fuse-elementwise-ops pattern set with a control function
// that keeps reshapes away from linalg.matmul (see the pass description).
//
//===----------------------------------------------------------------------===//

#include "tide/Lowering/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tide {
#define GEN_PASS_DEF_FUSEELEMENTWISEPASS
#include "tide/Lowering/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;
using namespace mlir::tide;

namespace {

/// Upstream's rule (the producer has one use), except across a
/// linalg.matmul: the reshape patterns call this with the matmul's operand
/// (a collapse_shape feeding it) or with the reshape's source (an
/// expand_shape of its result).
bool shouldFuse(OpOperand *operand) {
  Operation *producer = operand->get().getDefiningOp();
  if (!producer || !producer->hasOneUse())
    return false;
  return !isa<linalg::MatmulOp>(producer) &&
         !isa<linalg::MatmulOp>(operand->getOwner());
}

struct FuseElementwisePass
    : public tide::impl::FuseElementwisePassBase<FuseElementwisePass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *ctx) override {
    RewritePatternSet set(ctx);
    linalg::populateElementwiseOpsFusionPatterns(set, shouldFuse);
    linalg::populateFoldReshapeOpsByExpansionPatterns(set, shouldFuse);
    tensor::populateBubbleUpExpandShapePatterns(set);
    affine::AffineApplyOp::getCanonicalizationPatterns(set, ctx);
    linalg::GenericOp::getCanonicalizationPatterns(set, ctx);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(set, ctx);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(set, ctx);
    ctx->getLoadedDialect<linalg::LinalgDialect>()->getCanonicalizationPatterns(
        set);
    linalg::populateConstantFoldLinalgOperations(set, shouldFuse);
    patterns = std::move(set);
    return success();
  }

  void runOnOperation() override {
    // A transpose of a constant (the weight of ONNX's Gemm with transB) as
    // a generic, which the constant folding patterns fold at compile time.
    SmallVector<linalg::TransposeOp> constant;
    getOperation().walk([&](linalg::TransposeOp op) {
      if (op.getInput().getDefiningOp<arith::ConstantOp>() &&
          op.getInput().hasOneUse())
        constant.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::TransposeOp op : constant) {
      rewriter.setInsertionPoint(op);
      (void)linalg::generalizeNamedOp(rewriter, op);
    }
    // Top-down, as upstream (for compile time).
    (void)applyPatternsGreedily(getOperation(), patterns,
                                GreedyRewriteConfig().setUseTopDownTraversal());
  }

private:
  FrozenRewritePatternSet patterns;
};

} // namespace
