//===- AsyncReturn.cpp - Return before the GPU finishes ------------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// gpu-async-region ends every function with a host wait for its stream. A
// function whose arguments and results all live on the GPU (tide.resident)
// touches no host memory, so nothing on the host needs that wait: this pass
// drops it. The call returns once its work is queued on the calling thread's
// stream (Tide's runtime gives each thread one stream, so later calls and
// copies through the runtime are ordered after it); code that reads results
// from another stream calls tide_rt_synchronize() first.
//
//===----------------------------------------------------------------------===//

#include "tide/Conversion/Passes.h"

#include "tide/IR/TideDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::tide {
#define GEN_PASS_DEF_ASYNCRETURNPASS
#include "tide/Conversion/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;
using namespace mlir::tide;

namespace {

bool allOnGpu(func::FuncOp func) {
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    if (!isa<BaseMemRefType>(func.getArgument(i).getType()))
      continue;
    DeviceAttr d = getArgumentResidence(func, i);
    if (!d || !d.isGPU())
      return false;
  }
  for (unsigned i = 0; i < func.getNumResults(); ++i) {
    DeviceAttr d = getResultResidence(func, i);
    if (!d || !d.isGPU())
      return false;
  }
  return func.getNumResults() > 0;
}

struct AsyncReturnPass
    : public tide::impl::AsyncReturnPassBase<AsyncReturnPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal() || !func.getBody().hasOneBlock() || !allOnGpu(func))
      return;
    Operation *ret = func.getBody().front().getTerminator();
    auto wait = dyn_cast_or_null<gpu::WaitOp>(ret->getPrevNode());
    // Only a host wait (no token result) right before the return.
    if (!wait || wait.getAsyncToken())
      return;
    wait.erase();
  }
};

} // namespace
