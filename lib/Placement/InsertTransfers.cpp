//===- InsertTransfers.cpp - Copies where values cross devices -----------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Placement/Passes.h"

#include "tide/IR/TideOps.h"
#include "tide/Placement/Placement.h"

#include "mlir/IR/Builders.h"

namespace mlir::tide {
#define GEN_PASS_DEF_INSERTTRANSFERSPASS
#include "tide/Placement/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;
using namespace mlir::tide;

namespace {
struct InsertTransfersPass
    : public tide::impl::InsertTransfersPassBase<InsertTransfersPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    bool ok = true;
    SmallVector<Operation *> users;
    func->walk([&](Operation *op) {
      if (isPlaceable(op) && !getDevice(op)) {
        op->emitError() << "'" << op->getName()
                        << "' has no device; run tide-place-devices before "
                           "tide-insert-transfers";
        ok = false;
      }
      users.push_back(op);
    });
    if (!ok)
      return signalPassFailure();
    OpBuilder builder(func.getContext());
    for (Operation *user : users) {
      for (OpOperand &operand : user->getOpOperands()) {
        Value value = operand.get();
        if (!isa<RankedTensorType>(value.getType()))
          continue;
        DeviceAttr from = getValueDevice(value);
        DeviceAttr to = getUseDevice(user, operand.getOperandNumber());
        if (!from || !to || from == to)
          continue;
        builder.setInsertionPoint(user);
        auto transfer = TransferOp::create(builder, user->getLoc(), value, to);
        operand.set(transfer.getResult());
      }
    }
  }
};
} // namespace
