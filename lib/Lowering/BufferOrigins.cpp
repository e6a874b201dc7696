//===- BufferOrigins.cpp - Which buffer a memref view is of ---------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "BufferOrigins.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlir::tide;

Value mlir::tide::rootOf(Value memref) {
  while (Operation *def = memref.getDefiningOp()) {
    if (auto view = dyn_cast<ViewLikeOpInterface>(def)) {
      memref = view.getViewSource();
      continue;
    }
    break;
  }
  return memref;
}

BufferOrigin mlir::tide::originOf(Value root) {
  if (root.getDefiningOp<memref::AllocOp>() ||
      root.getDefiningOp<memref::AllocaOp>())
    return BufferOrigin::Allocation;
  if (root.getDefiningOp<memref::GetGlobalOp>())
    return BufferOrigin::Global;
  if (auto arg = dyn_cast<BlockArgument>(root))
    if (arg.getOwner()->isEntryBlock() &&
        isa<FunctionOpInterface>(arg.getOwner()->getParentOp()))
      return BufferOrigin::Argument;
  return BufferOrigin::Unknown;
}

bool mlir::tide::mayAlias(Value a, Value b) {
  if (a == b)
    return true;
  BufferOrigin oa = originOf(a), ob = originOf(b);
  if (oa == BufferOrigin::Unknown || ob == BufferOrigin::Unknown)
    return true;
  if (oa == BufferOrigin::Allocation || ob == BufferOrigin::Allocation)
    return false;
  if (oa == BufferOrigin::Global && ob == BufferOrigin::Global)
    return a.getDefiningOp<memref::GetGlobalOp>().getName() ==
           b.getDefiningOp<memref::GetGlobalOp>().getName();
  return true;
}
