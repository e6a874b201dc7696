//===- HoistAllocas.cpp - Loop-body stack buffers allocated once ----------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// A stack buffer allocated in a loop body (a row tile's maxima and sums, once
// promote-buffers-to-stack has put them there) would be allocated at every
// iteration: in an OpenMP loop inside a memref.alloca_scope, which must not
// hold the blocks the loops inside become (scf-to-cf), and in a serial loop
// without one, growing the stack at each iteration. Its contents are
// undefined when allocated, so one buffer per thread, reused by every
// iteration, computes the same: this pass moves each statically sized
// memref.alloca inside a loop to the entry of the region one thread runs
// once, the enclosing omp.parallel's or the function's.
//
//===----------------------------------------------------------------------===//

#include "tide/Lowering/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::tide {
#define GEN_PASS_DEF_HOISTALLOCASPASS
#include "tide/Lowering/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;

namespace {

/// The block a thread enters once that `op` runs in: the entry of the
/// innermost enclosing omp.parallel or function; null when `op` is in no
/// loop below it (nothing to hoist) or under an op of unknown control flow.
Block *hoistTarget(Operation *op) {
  bool inLoop = false;
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp()) {
    if (isa<omp::ParallelOp, func::FuncOp>(parent))
      return inLoop ? &parent->getRegion(0).front() : nullptr;
    if (isa<scf::ForOp, scf::ParallelOp, scf::WhileOp, scf::ForallOp,
            omp::LoopNestOp>(parent))
      inLoop = true;
    else if (!isa<memref::AllocaScopeOp, scf::IfOp, scf::ExecuteRegionOp,
                  omp::WsloopOp>(parent))
      return nullptr;
  }
  return nullptr;
}

struct HoistAllocasPass
    : public tide::impl::HoistAllocasPassBase<HoistAllocasPass> {
  void runOnOperation() override {
    SmallVector<std::pair<memref::AllocaOp, Block *>> moves;
    getOperation()->walk([&](memref::AllocaOp alloca) {
      if (!alloca->getOperands().empty())
        return; // dynamic sizes: they may be computed in the loop
      if (Block *target = hoistTarget(alloca))
        moves.push_back({alloca, target});
    });
    for (auto [alloca, target] : moves)
      alloca->moveBefore(target, target->begin());
  }
};

} // namespace
