//===- ResidentResults.cpp - Results that stay on the GPU ----------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// One-shot bufferization gives function results the default memory space, so
// a GPU value returned as a GPU-resident result (`tide.resident`) is copied
// into a new host buffer first. Right after bufferization this pass undoes
// that: the function returns the GPU buffer itself and its result type takes
// the GPU's memory space. Runs before buffer deallocation, which then sees the
// GPU buffer escape and leaves it to the caller.
//
//===----------------------------------------------------------------------===//

#include "tide/Conversion/Passes.h"

#include "tide/IR/TideDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::tide {
#define GEN_PASS_DEF_RESIDENTRESULTSPASS
#include "tide/Conversion/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;
using namespace mlir::tide;

namespace {

/// Whether `v` is a buffer in `device`'s memory.
bool inMemoryOf(Value v, DeviceAttr device) {
  auto type = dyn_cast<MemRefType>(v.getType());
  return type && getMemorySpaceDevice(type.getMemorySpace()) == device;
}

struct ResidentResultsPass
    : public tide::impl::ResidentResultsPassBase<ResidentResultsPass> {
  using Base::Base;

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      SmallVector<func::ReturnOp> returns;
      func.walk([&](func::ReturnOp r) { returns.push_back(r); });
      if (returns.size() != 1)
        continue;
      func::ReturnOp ret = returns.front();
      SmallVector<Type> resultTypes(func.getResultTypes());
      bool changed = false;
      for (unsigned i = 0; i < func.getNumResults(); ++i) {
        DeviceAttr device = getResultResidence(func, i);
        if (!device || !device.isGPU())
          continue;
        Value host = ret.getOperand(i);
        auto alloc = host.getDefiningOp<memref::AllocOp>();
        memref::CopyOp copy;
        if (alloc)
          for (Operation *user : alloc->getUsers())
            if (auto c = dyn_cast<memref::CopyOp>(user);
                c && c.getTarget() == host)
              copy = c;
        // The returned buffer must be only the copy's target and returned.
        if (!copy || !inMemoryOf(copy.getSource(), device) ||
            copy.getSource().getType() !=
                MemRefType::get(
                    cast<MemRefType>(host.getType()).getShape(),
                    cast<MemRefType>(host.getType()).getElementType(),
                    MemRefLayoutAttrInterface(),
                    cast<MemRefType>(copy.getSource().getType())
                        .getMemorySpace()) ||
            !llvm::all_of(alloc->getUsers(), [&](Operation *u) {
              return u == copy.getOperation() || u == ret.getOperation();
            }))
          continue;
        ret.setOperand(i, copy.getSource());
        resultTypes[i] = copy.getSource().getType();
        copy.erase();
        if (alloc->use_empty())
          alloc.erase();
        changed = true;
      }
      if (changed)
        func.setFunctionType(FunctionType::get(
            func.getContext(), func.getArgumentTypes(), resultTypes));
    }
  }
};

} // namespace
