//===- FuseElementwise.cpp - Elementwise fusion that keeps contractions ---===//
//
// Part of the Tide project.
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

/// Whether `op` is a linalg op with reduction loops (a contraction, a
/// convolution, a reduction).
bool hasReductionLoops(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.getNumReductionLoops() > 0;
}

struct FuseElementwisePass
    : public tide::impl::FuseElementwisePassBase<FuseElementwisePass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    // A transpose of a constant (the weight of ONNX's Gemm with transB) as
    // a generic, which the constant folding patterns fold at compile time.
    SmallVector<linalg::TransposeOp> constant;
    getOperation().walk([&](linalg::TransposeOp op) {
      if (op.getInput().getDefiningOp<arith::ConstantOp>() &&
          op.getInput().hasOneUse())
        constant.push_back(op);
    });
    IRRewriter rewriter(context);
    for (linalg::TransposeOp op : constant) {
      rewriter.setInsertionPoint(op);
      (void)linalg::generalizeNamedOp(rewriter, op);
    }
    RewritePatternSet patterns(context);
    // Upstream's default: fuse a producer only into its one user.
    linalg::ControlFusionFn fuse = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      return producer && producer->hasOneUse();
    };
    // Reshapes move through elementwise ops only.
    linalg::ControlFusionFn reshape = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      return producer && producer->hasOneUse() &&
             !hasReductionLoops(producer) &&
             !hasReductionLoops(fused->getOwner());
    };
    linalg::populateElementwiseOpsFusionPatterns(patterns, fuse);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, reshape);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    context->getLoadedDialect<linalg::LinalgDialect>()
        ->getCanonicalizationPatterns(patterns);
    linalg::populateConstantFoldLinalgOperations(patterns, fuse);
    GreedyRewriteConfig config;
    config.setUseTopDownTraversal(true);
    (void)applyPatternsGreedily(getOperation(), std::move(patterns), config);
  }
};

} // namespace
