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
// from another stream calls tide_rt_synchronize() first. For the same reason
// the host wait gpu-async-region puts before a cuBLAS call (or a host loop
// of them: batched matmuls), a cuDNN convolution or a constant's copy is
// dropped, unless the work it waits for copies to host memory (host code
// after the call may use those buffers).
//
//===----------------------------------------------------------------------===//

#include "tide/Conversion/Passes.h"

#include "tide/IR/TideDialect.h"
#include "tide/Runtime/RuntimeSymbols.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

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

/// A call into Tide's runtime that only queues work on the calling thread's
/// stream: a cuBLAS GEMM, a cuDNN convolution, a fused attention, the copy of
/// a constant from its cached device copy (or that copy's address).
bool isGemmCall(Operation *op) {
  auto call = dyn_cast<func::CallOp>(op);
  if (!call)
    return false;
  StringRef callee = call.getCallee();
  return callee.starts_with(TIDE_RT_GPU_GEMM_PREFIX) ||
         callee.starts_with(TIDE_RT_GPU_CONV_PREFIX) ||
         callee.starts_with(TIDE_RT_GPU_ATTENTION_PREFIX) ||
         callee == TIDE_RT_GPU_COPY_CONSTANT || callee == TIDE_RT_GPU_CONSTANT;
}

/// Whether `v` is (a view of) memory from gpu.alloc.
bool isDeviceAllocation(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (isa<gpu::AllocOp>(def))
      return true;
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      return false;
    v = view.getViewSource();
  }
  return false;
}

/// A cuBLAS call, or a host loop (batched matmuls over outer batch dims)
/// whose body only computes indices and views and calls cuBLAS.
bool onlyQueuesGemms(Operation *op) {
  if (isGemmCall(op))
    return true;
  auto loop = dyn_cast<scf::ForOp>(op);
  if (!loop)
    return false;
  bool calls = false;
  for (Operation &inner : loop.getBody()->without_terminator()) {
    if (isGemmCall(&inner) || isa<scf::ForOp>(inner)) {
      if (!onlyQueuesGemms(&inner))
        return false;
      calls = true;
    } else if (!isPure(&inner) || inner.getNumRegions()) {
      return false;
    }
  }
  return calls;
}

/// Whether the work `wait` waits for may touch host memory: a copy or a
/// memset (which may read or write host buffers that host code after the
/// wait uses), or work the walk cannot see (a token from a block argument).
bool waitsForHostMemory(gpu::WaitOp wait) {
  SmallVector<Value> tokens(wait.getAsyncDependencies());
  DenseSet<Operation *> seen;
  while (!tokens.empty()) {
    Operation *def = tokens.pop_back_val().getDefiningOp();
    if (!def)
      return true;
    if (!seen.insert(def).second)
      continue;
    // A copy into GPU memory does not: it has read its host source when
    // the runtime's copy returns (pageable memory is staged).
    if (auto copy = dyn_cast<gpu::MemcpyOp>(def);
        copy && !isDeviceAllocation(copy.getDst()))
      return true;
    if (auto set = dyn_cast<gpu::MemsetOp>(def);
        set && !isDeviceAllocation(set.getDst()))
      return true;
    auto async = dyn_cast<gpu::AsyncOpInterface>(def);
    if (!async)
      return true;
    llvm::append_range(tokens, async.getAsyncDependencies());
  }
  return false;
}

struct AsyncReturnPass
    : public tide::impl::AsyncReturnPassBase<AsyncReturnPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    // cuBLAS runs on the same stream as the kernels: the host need not wait
    // for the stream before calling it.
    SmallVector<gpu::WaitOp> beforeGemm;
    func.walk([&](gpu::WaitOp wait) {
      Operation *next = wait->getNextNode();
      if (!wait.getAsyncToken() && next && onlyQueuesGemms(next) &&
          !waitsForHostMemory(wait))
        beforeGemm.push_back(wait);
    });
    for (gpu::WaitOp wait : beforeGemm)
      wait.erase();
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
