//===- ElideArgumentClones.cpp - Return arguments without a copy ---------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Lowering/Passes.h"

namespace mlir::tide {
#define GEN_PASS_DEF_ELIDEARGUMENTCLONESPASS
#include "tide/Lowering/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;
using namespace mlir::tide;

namespace {
struct ElideArgumentClonesPass
    : public tide::impl::ElideArgumentClonesPassBase<ElideArgumentClonesPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    SmallVector<bufferization::CloneOp> clones;
    func.walk([&](bufferization::CloneOp clone) {
      auto arg = dyn_cast<BlockArgument>(clone.getInput());
      if (!arg || arg.getOwner() != &func.getBody().front())
        return;
      if (llvm::all_of(clone->getUsers(), [](Operation *user) {
            return isa<func::ReturnOp>(user);
          }))
        clones.push_back(clone);
    });
    for (bufferization::CloneOp clone : clones) {
      if (clone.getInput().getType() != clone.getType())
        continue;
      clone.getOutput().replaceAllUsesWith(clone.getInput());
      clone.erase();
    }
  }
};
} // namespace
