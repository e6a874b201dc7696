//===- UnshareFills.cpp - A fill of its own for every writer -------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Lowering/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

namespace mlir::tide {
#define GEN_PASS_DEF_UNSHAREFILLSPASS
#include "tide/Lowering/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;
using namespace mlir::tide;

namespace {

/// Whether `use` is an operand its owner writes into (in place, once
/// bufferized): a destination-style init or an insert_slice's destination.
bool writesInto(OpOperand &use) {
  Operation *user = use.getOwner();
  if (auto insert = dyn_cast<tensor::InsertSliceOp>(user))
    return &use == &insert.getDestMutable();
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(user))
    return dps.isDpsInit(&use);
  return false;
}

struct UnshareFillsPass
    : public tide::impl::UnshareFillsPassBase<UnshareFillsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::FillOp> fills;
    getOperation().walk([&](linalg::FillOp fill) {
      if (fill.hasPureTensorSemantics() && !fill->getResult(0).hasOneUse())
        fills.push_back(fill);
    });
    for (linalg::FillOp fill : fills) {
      Value result = fill->getResult(0);
      SmallVector<OpOperand *> writers;
      for (OpOperand &use : result.getUses())
        if (writesInto(use))
          writers.push_back(&use);
      // Every use a writer: the fill itself stays with one of them.
      bool allWriters = writers.size() ==
                        static_cast<size_t>(std::distance(result.use_begin(),
                                                          result.use_end()));
      if (allWriters && !writers.empty())
        writers.pop_back();
      auto empty = fill.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>();
      for (OpOperand *use : writers) {
        OpBuilder b(use->getOwner());
        IRMapping map;
        if (empty)
          map.map(empty.getResult(), b.clone(*empty)->getResult(0));
        use->set(b.clone(*fill, map)->getResult(0));
      }
    }
  }
};

} // namespace
