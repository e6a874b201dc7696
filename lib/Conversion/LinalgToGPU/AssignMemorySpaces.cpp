//===- AssignMemorySpaces.cpp - GPU tensors get the GPU memory space -----===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// Runs on tensor-level IR after convert-tide-to-linalg (which copies each tide
// op's `tide.device` onto the ops it creates) and elementwise fusion (which
// may create untagged ops). A value is on the GPU when its op is tagged with a
// GPU, or when the op is untagged and reads a GPU value. Every allocation
// that one-shot bufferization would make for a GPU op is then spelled as
// `bufferization.alloc_tensor() {memory_space = #tide.device<cuda:N>}`, so
// that GPU values bufferize into their GPU's memory space and host values into
// the default space.
//
//===----------------------------------------------------------------------===//

#include "tide/Conversion/Passes.h"

#include "tide/IR/TideDialect.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#include <functional>

namespace mlir::tide {
#define GEN_PASS_DEF_ASSIGNMEMORYSPACESPASS
#include "tide/Conversion/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;
using namespace mlir::tide;

namespace {

bool isTensor(Value v) { return isa<RankedTensorType>(v.getType()); }

/// Whether `op`, placed on a GPU, reads its tensor operands there: a linalg
/// op (structured, or a linalg.softmax kept whole for its row kernel) or an
/// insertion into a GPU tensor.
bool readsOnDevice(Operation *op) {
  return isa<linalg::LinalgOp, linalg::SoftmaxOp, tensor::InsertSliceOp>(op);
}

struct AssignMemorySpacesPass
    : public tide::impl::AssignMemorySpacesPassBase<AssignMemorySpacesPass> {
  using Base::Base;

  /// The GPU of each GPU op and of each tensor value on a GPU.
  DenseMap<Operation *, DeviceAttr> gpuOps;
  DenseMap<Value, DeviceAttr> gpuValues;

  bool isGpuOp(Operation *op) { return gpuOps.contains(op); }

  /// Forward: tags, device allocations, and what reads GPU values.
  LogicalResult classify(Block &block) {
    for (Operation &op : block) {
      DeviceAttr gpu;
      if (auto alloc = dyn_cast<bufferization::AllocTensorOp>(op)) {
        gpu = getMemorySpaceDevice(alloc.getMemorySpaceAttr());
      } else if (DeviceAttr device = getDevice(&op)) {
        if (device.isGPU() && device.getOrdinal() != 0)
          return op.emitError()
                 << "is placed on " << device.str()
                 << ", but Tide's GPU lowering drives one GPU (cuda:0) so "
                    "far; place with a single-GPU target";
        if (device.isGPU())
          gpu = device;
      } else {
        for (Value v : op.getOperands())
          if ((gpu = gpuValues.lookup(v)))
            break;
      }
      if (!gpu)
        continue;
      gpuOps[&op] = gpu;
      for (Value r : op.getResults())
        if (isTensor(r))
          gpuValues[r] = gpu;
    }
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    for (func::FuncOp func : funcs) {
      if (func.isExternal())
        continue;
      gpuOps.clear();
      gpuValues.clear();
      Block &body = func.getBody().front();

      // Concatenation allocates its result itself: spell it as an empty
      // tensor plus insert_slice ops first, on the concat's device.
      SmallVector<tensor::ConcatOp> concats(body.getOps<tensor::ConcatOp>());
      for (tensor::ConcatOp concat : concats) {
        DeviceAttr device = getDevice(concat);
        if (!device || !device.isGPU())
          continue;
        OpBuilder b(concat);
        Operation *prev = concat->getPrevNode();
        FailureOr<SmallVector<Value>> parts = concat.decomposeOperation(b);
        if (failed(parts))
          return signalPassFailure();
        for (auto it = prev ? std::next(prev->getIterator()) : body.begin();
             &*it != concat.getOperation(); ++it)
          setDevice(&*it, device);
        concat->replaceAllUsesWith(ValueRange(*parts));
        concat.erase();
      }

      // A fill used as the output of several ops (CSE merges equal fills)
      // would make bufferization copy the filled buffer for all but one;
      // give each user its own fill, placed right before it.
      SmallVector<linalg::FillOp> fills(body.getOps<linalg::FillOp>());
      for (linalg::FillOp fill : fills) {
        if (fill->hasOneUse() || fill->use_empty())
          continue;
        for (OpOperand &use : llvm::make_early_inc_range(fill->getUses())) {
          OpBuilder b(use.getOwner());
          Operation *init = fill.getDpsInits()[0].getDefiningOp();
          IRMapping mapping;
          if (init && isa<tensor::EmptyOp>(init))
            mapping.map(init->getResult(0), b.clone(*init)->getResult(0));
          use.set(b.clone(*fill, mapping)->getResult(0));
        }
        Operation *init = fill.getDpsInits()[0].getDefiningOp();
        fill.erase();
        if (init && init->use_empty())
          init->erase();
      }

      if (failed(classify(body)))
        return signalPassFailure();
      // Backward: an empty tensor, a fill or a constant used by a GPU op.
      for (Operation &op : llvm::reverse(body)) {
        if (!isa<tensor::EmptyOp, linalg::FillOp>(op) || isGpuOp(&op) ||
            getDevice(&op))
          continue;
        for (Operation *user : op.getUsers())
          if (DeviceAttr gpu = gpuOps.lookup(user)) {
            gpuOps[&op] = gpu;
            break;
          }
      }

      MLIRContext *ctx = &getContext();
      // The GPU of a linalg op that reads `view`'s result, possibly through
      // further views, as an operand or in its payload (a gather's
      // tensor.extract of a reshaped constant table); null if only host ops
      // read it.
      std::function<DeviceAttr(Operation *)> gpuReaderThroughViews =
          [&](Operation *view) -> DeviceAttr {
        for (Operation *user : view->getUsers()) {
          Operation *top = body.findAncestorOpInBlock(*user);
          if (top && top != user && isGpuOp(top) && readsOnDevice(top))
            return gpuOps.lookup(top);
          if (isGpuOp(user) && readsOnDevice(user))
            return gpuOps.lookup(user);
          if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp,
                  tensor::CastOp, tensor::ReshapeOp, tensor::ExtractSliceOp>(
                  user))
            if (DeviceAttr gpu = gpuReaderThroughViews(user))
              return gpu;
        }
        return {};
      };
      SmallVector<Operation *> ops;
      for (Operation &op : body)
        ops.push_back(&op);
      for (Operation *op : ops) {
        // Each GPU use of an empty tensor gets its own device allocation
        // (CSE may have merged empties of host and GPU ops).
        if (auto empty = dyn_cast<tensor::EmptyOp>(op)) {
          for (OpOperand &use : llvm::make_early_inc_range(empty->getUses())) {
            Operation *user = use.getOwner();
            if (!isGpuOp(user) && !(isGpuOp(empty) && !getDevice(user)))
              continue;
            // An untagged view of it that no GPU op reads stays on the host:
            // canonicalization drops the tags of empty tensors whose sizes
            // fold, and CSE then merges a host loop's initial buffer (a
            // tide.scan's stacked results) with a GPU op's empty output.
            if (!isGpuOp(user) &&
                isa<tensor::CastOp, tensor::ExpandShapeOp,
                    tensor::CollapseShapeOp, tensor::ReshapeOp,
                    tensor::ExtractSliceOp>(user) &&
                !gpuReaderThroughViews(user))
              continue;
            // Likewise an untagged insertion of a host value into it: a host
            // loop's stacked results once the loop is unrolled (a tide.scan
            // of two steps) write their slices on the host.
            if (auto insert = dyn_cast<tensor::InsertSliceOp>(user);
                insert && !isGpuOp(user) && use.get() == insert.getDest() &&
                !gpuValues.lookup(insert.getSource()))
              continue;
            DeviceAttr gpu =
                isGpuOp(user) ? gpuOps.lookup(user) : gpuOps.lookup(empty);
            // Before the user's op in the function body: a payload that
            // reads the empty tensor (a gather of an empty slice) must not
            // allocate inside the kernel.
            Operation *anchor = body.findAncestorOpInBlock(*user);
            OpBuilder b(anchor ? anchor : user);
            auto alloc = bufferization::AllocTensorOp::create(
                b, empty.getLoc(), empty.getType(), empty.getDynamicSizes(),
                /*copy=*/Value(), /*size_hint=*/Value(), getMemorySpace(gpu));
            use.set(alloc);
          }
          if (empty->use_empty())
            empty->erase();
          continue;
        }
        // Tensor constants read by GPU ops are copied to the device once,
        // also where a GPU op's payload reads them (tide.gather's
        // tensor.extract inside a linalg.generic).
        if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
          if (!isTensor(cst))
            continue;
          // One copy per GPU that reads it.
          DenseMap<DeviceAttr, Value> copies;
          for (OpOperand &use : llvm::make_early_inc_range(cst->getUses())) {
            Operation *user = body.findAncestorOpInBlock(*use.getOwner());
            if (!user)
              continue;
            bool reads = readsOnDevice(user);
            DeviceAttr gpu =
                reads && isGpuOp(user) ? gpuOps.lookup(user) : DeviceAttr();
            // A constant seen through reshapes and slices (folding makes
            // such chains: constant -> expand_shape -> GPU op; a slice of a
            // position table up to a run-time length): the views are of the
            // device copy.
            // A tensor.reshape's shape operand is read on the host (it
            // gives the view's sizes): only its source moves.
            bool viewSource =
                isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp,
                    tensor::CastOp, tensor::ExtractSliceOp>(user) ||
                (isa<tensor::ReshapeOp>(user) && use.getOwner() == user &&
                 use.getOperandNumber() == 0);
            if (!gpu && viewSource)
              gpu = gpuReaderThroughViews(user);
            if (!gpu)
              continue;
            Value &copy = copies[gpu];
            if (!copy) {
              OpBuilder b(ctx);
              b.setInsertionPointAfter(cst);
              copy = bufferization::AllocTensorOp::create(
                  b, cst.getLoc(), cst.getType(), ValueRange(), cst,
                  /*size_hint=*/Value(), getMemorySpace(gpu));
            }
            use.set(copy);
          }
        }
      }
    }
  }
};

} // namespace
