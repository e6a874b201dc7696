//===- OptimizeTransfers.cpp - One copy per (value, destination) ---------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Placement/Passes.h"

#include "tide/IR/TideOps.h"
#include "tide/Placement/Placement.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"

namespace mlir::tide {
#define GEN_PASS_DEF_OPTIMIZETRANSFERSPASS
#include "tide/Placement/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;
using namespace mlir::tide;

namespace {
struct OptimizeTransfersPass
    : public tide::impl::OptimizeTransfersPassBase<OptimizeTransfersPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    SmallVector<TransferOp> transfers;
    func->walk([&](TransferOp op) { transfers.push_back(op); });

    // 1. Read every copy from the original value: transfer(transfer(x)) ->
    //    transfer(x); then drop copies to where the value already lives
    //    (this removes round trips).
    for (TransferOp op : transfers) {
      Value source = op.getInput();
      while (auto inner = source.getDefiningOp<TransferOp>())
        source = inner.getInput();
      if (source != op.getInput())
        op.getInputMutable().assign(source);
      if (getValueDevice(source) == op.getTo())
        op.getResult().replaceAllUsesWith(source);
    }

    // 2. One copy per (value, destination), placed right after the value is
    //    defined so it dominates every use.
    llvm::DenseMap<std::pair<Value, Attribute>, TransferOp> kept;
    // Copies of block arguments go to the block's start, in program order.
    llvm::DenseMap<Block *, Operation *> lastArgCopy;
    llvm::DenseMap<Operation *, Operation *> lastCopyOf;
    for (TransferOp op : transfers) {
      if (op.getResult().use_empty())
        continue;
      auto key = std::make_pair(op.getInput(), Attribute(op.getTo()));
      auto it = kept.find(key);
      if (it == kept.end()) {
        Value source = op.getInput();
        if (Operation *def = source.getDefiningOp()) {
          // After the def and after earlier copies of the same value, so
          // copies keep their program order.
          Operation *&last = lastCopyOf[def];
          op->moveAfter(last ? last : def);
          last = op;
        } else {
          Block *block = cast<BlockArgument>(source).getOwner();
          Operation *&last = lastArgCopy[block];
          if (last)
            op->moveAfter(last);
          else if (&block->front() != op)
            op->moveBefore(&block->front());
          last = op;
        }
        kept[key] = op;
        continue;
      }
      op.getResult().replaceAllUsesWith(it->second.getResult());
    }

    // 3. Erase what no one uses any more.
    for (TransferOp op : llvm::reverse(transfers))
      if (op.getResult().use_empty())
        op.erase();
  }
};
} // namespace
