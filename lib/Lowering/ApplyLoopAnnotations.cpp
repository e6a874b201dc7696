//===- ApplyLoopAnnotations.cpp - Loop annotations as loop metadata -------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Lowering/Passes.h"

namespace mlir::tide {
#define GEN_PASS_DEF_APPLYLOOPANNOTATIONSPASS
#include "tide/Lowering/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;
using namespace mlir::tide;

namespace {

struct ApplyLoopAnnotationsPass
    : public tide::impl::ApplyLoopAnnotationsPassBase<
          ApplyLoopAnnotationsPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation().walk([](LLVM::BrOp branch) {
      auto annotation = branch->getDiscardableAttr("llvm.loop_annotation");
      if (!annotation)
        return;
      branch->removeDiscardableAttr("llvm.loop_annotation");
      if (auto loop = dyn_cast<LLVM::LoopAnnotationAttr>(annotation);
          loop && !branch.getLoopAnnotationAttr())
        branch.setLoopAnnotationAttr(loop);
    });
  }
};

} // namespace
