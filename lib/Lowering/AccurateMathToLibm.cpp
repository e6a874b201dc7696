//===- AccurateMathToLibm.cpp - expm1/log1p through libm ------------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Lowering/Passes.h"

#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tide {
#define GEN_PASS_DEF_ACCURATEMATHTOLIBMPASS
#include "tide/Lowering/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;

namespace {

struct AccurateMathToLibmPass
    : public tide::impl::AccurateMathToLibmPassBase<AccurateMathToLibmPass> {
  using Base::Base;

  void runOnOperation() override {
    // Upstream's math-to-libm patterns, only those of the ops whose LLVM
    // lowering is inaccurate: the others keep their LLVM intrinsics (which
    // the loop vectorizer maps onto libmvec).
    MLIRContext *ctx = &getContext();
    RewritePatternSet all(ctx), patterns(ctx);
    populateMathToLibmConversionPatterns(all);
    OperationName expm1(math::ExpM1Op::getOperationName(), ctx);
    OperationName log1p(math::Log1pOp::getOperationName(), ctx);
    for (std::unique_ptr<RewritePattern> &pattern : all.getNativePatterns()) {
      std::optional<OperationName> root = pattern->getRootKind();
      if (root && (*root == expm1 || *root == log1p))
        patterns.add(std::move(pattern));
    }
    // Scalar f32/f64 ops only: upstream's vector unrolling of these
    // patterns crashes on vector operands (vectors do not reach this pass in
    // Tide's pipelines; elsewhere they keep their LLVM lowering).
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (!isa<math::ExpM1Op, math::Log1pOp>(op) ||
          op->getParentOfType<gpu::GPUModuleOp>() ||
          op->getParentOfType<gpu::LaunchOp>())
        return; // GPU code calls libdevice instead.
      Type type = op->getResult(0).getType();
      if (type.isF32() || type.isF64())
        ops.push_back(op);
    });
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps);
    FrozenRewritePatternSet frozen(std::move(patterns));
    if (failed(applyOpPatternsGreedily(ops, frozen, config)))
      signalPassFailure();
  }
};

} // namespace
