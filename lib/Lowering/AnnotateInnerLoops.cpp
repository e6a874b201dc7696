//===- AnnotateInnerLoops.cpp - Innermost loops for the loop vectorizer ---===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Lowering/Passes.h"

namespace mlir::tide {
#define GEN_PASS_DEF_ANNOTATEINNERLOOPSPASS
#include "tide/Lowering/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;
using namespace mlir::tide;

namespace {

/// The discardable attribute convert-scf-to-cf carries to the back edge.
constexpr StringLiteral kLoopAnnotation = "llvm.loop_annotation";

struct AnnotateInnerLoopsPass
    : public tide::impl::AnnotateInnerLoopsPassBase<AnnotateInnerLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    auto noUnroll = LLVM::LoopAnnotationAttr::get(
        ctx, /*disableNonforced=*/{}, /*vectorize=*/{}, /*interleave=*/{},
        LLVM::LoopUnrollAttr::get(ctx, BoolAttr::get(ctx, true), {}, {}, {}, {},
                                  {}, {}),
        {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {});
    getOperation().walk([&](scf::ForOp loop) {
      if (loop->hasAttr(kLoopAnnotation))
        return;
      bool innermost = true;
      loop.getBody()->walk([&](LoopLikeOpInterface) { innermost = false; });
      if (!innermost)
        return;
      std::optional<APInt> trips = loop.getStaticTripCount();
      if (trips && trips->getSExtValue() < minTripCount)
        return;
      loop->setAttr(kLoopAnnotation, noUnroll);
    });
  }
};

} // namespace
