//===- FuseElementwise.cpp - Elementwise fusion that keeps contractions ---===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Lowering/Passes.h"

#include "tide/IR/TideDialect.h"

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

/// Whether `op` is a linalg op that reduces over a product of two or more
/// operands (a matmul, a batched matmul, a convolution).
bool isContraction(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.getNumReductionLoops() > 0 &&
         linalgOp.getNumDpsInputs() >= 2;
}

/// `op`'s device (tide.device), if it has one.
Attribute deviceOf(Operation *op) {
  return op ? op->getAttr(TideDialect::getDeviceAttrName()) : Attribute();
}

/// Carries tide.device from the op a pattern rewrites onto the linalg ops
/// it creates: upstream's fusion builds the fused linalg.generic without the
/// consumer's discardable attributes, and a fused op with no inputs (an
/// iota's generator fused into an elementwise op) would otherwise have
/// nothing left that says where it runs. A reshape folded into its producer
/// (the root is the reshape) gives the producer's device.
struct DeviceCarrier : public RewriterBase::Listener {
  SmallVector<Attribute> roots;

  void notifyPatternBegin(const Pattern &, Operation *op) override {
    Attribute device = deviceOf(op);
    if (!device && isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op))
      device = deviceOf(op->getOperand(0).getDefiningOp());
    roots.push_back(device);
  }
  void notifyPatternEnd(const Pattern &, LogicalResult) override {
    roots.pop_back();
  }
  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
    if (!roots.empty() && roots.back() && isa<linalg::LinalgOp>(op) &&
        !deviceOf(op))
      op->setAttr(TideDialect::getDeviceAttrName(), roots.back());
  }
};

/// Upstream's RemoveOutsDependency (in populateElementwiseOpsFusionPatterns)
/// for the ops where it is sound: an output the payload never reads becomes a
/// tensor.empty. Upstream does that for reductions too, but a reduction whose
/// reduced extent is 0 runs no iteration and returns its init: a product
/// over an empty tensor (init 1) whose input was a fill of 0 (the fill folded
/// into the payload, `0 * out` folded to 0, the output no longer read)
/// returned whatever the new buffer held. Here only ops without reduction
/// loops, or whose reduction loops all have a static non-zero extent.
struct RemoveOutsDependencyOfFullLoops
    : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    for (auto [range, iterator] : llvm::zip_equal(ranges, iterators))
      if (iterator == utils::IteratorType::reduction &&
          (ShapedType::isDynamic(range) || range == 0))
        return failure();
    SmallVector<OpOperand *> unread;
    for (OpOperand &init : op.getDpsInitsMutable())
      if (isa<RankedTensorType>(init.get().getType()) &&
          !op.payloadUsesValueFromOperand(&init) &&
          !init.get().getDefiningOp<tensor::EmptyOp>())
        unread.push_back(&init);
    if (unread.empty())
      return failure();
    SmallVector<Value> empties;
    for (OpOperand *init : unread) {
      Value value = init->get();
      empties.push_back(tensor::EmptyOp::create(
          rewriter, op.getLoc(),
          tensor::getMixedSizes(rewriter, op.getLoc(), value),
          cast<RankedTensorType>(value.getType()).getElementType()));
    }
    rewriter.modifyOpInPlace(op, [&] {
      for (auto [init, empty] : llvm::zip_equal(unread, empties))
        init->set(empty);
    });
    return success();
  }
};

struct FuseElementwisePass
    : public tide::impl::FuseElementwisePassBase<FuseElementwisePass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    // A transpose of a constant (the weight of ONNX's Gemm with transB) as
    // a generic, which the constant folding patterns fold at compile time;
    // a transpose on a GPU too, so that the elementwise op before it (the
    // bias of a projection before an attention head split) is fused into
    // it: one kernel, not two. (CPU transposes stay named: tiled later.)
    SmallVector<linalg::TransposeOp> constant;
    getOperation().walk([&](linalg::TransposeOp op) {
      auto device = dyn_cast_or_null<DeviceAttr>(deviceOf(op));
      if ((op.getInput().getDefiningOp<arith::ConstantOp>() &&
           op.getInput().hasOneUse()) ||
          (device && device.isGPU()))
        constant.push_back(op);
    });
    IRRewriter rewriter(context);
    for (linalg::TransposeOp op : constant) {
      rewriter.setInsertionPoint(op);
      Attribute device = deviceOf(op);
      FailureOr<linalg::GenericOp> generic =
          linalg::generalizeNamedOp(rewriter, op);
      if (succeeded(generic) && device)
        (*generic)->setAttr(TideDialect::getDeviceAttrName(), device);
    }
    RewritePatternSet patterns(context);
    // Upstream's default: fuse a producer only into its one user.
    // Never across devices, and never into a contraction (a GEMM with its
    // operand's producer computed inline matches no GEMM library call: the
    // GELU before a transformer's second FFN matmul made it a loop nest).
    linalg::ControlFusionFn fuse = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      Attribute from = deviceOf(producer), to = deviceOf(fused->getOwner());
      return producer && producer->hasOneUse() &&
             !isContraction(fused->getOwner()) && (!from || !to || from == to);
    };
    // Reshapes move through elementwise ops only.
    linalg::ControlFusionFn reshape = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      return producer && producer->hasOneUse() &&
             !hasReductionLoops(producer) &&
             !hasReductionLoops(fused->getOwner());
    };
    linalg::populateElementwiseOpsFusionPatterns(patterns, fuse);
    // Upstream's RemoveOutsDependency out (see
    // RemoveOutsDependencyOfFullLoops):
    // test/Lowering/tide-fuse-elementwise.mlir
    // @empty_product fails if it stays.
    llvm::erase_if(patterns.getNativePatterns(),
                   [](const std::unique_ptr<RewritePattern> &pattern) {
                     return pattern->getDebugName().ends_with(
                         "RemoveOutsDependency");
                   });
    patterns.add<RemoveOutsDependencyOfFullLoops>(context);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, reshape);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    context->getLoadedDialect<linalg::LinalgDialect>()
        ->getCanonicalizationPatterns(patterns);
    linalg::populateConstantFoldLinalgOperations(patterns, fuse);
    DeviceCarrier carrier;
    GreedyRewriteConfig config;
    config.setUseTopDownTraversal(true);
    config.setListener(&carrier);
    (void)applyPatternsGreedily(getOperation(), std::move(patterns), config);
  }
};

} // namespace
