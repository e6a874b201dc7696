//===- DropEmptySlices.cpp - No slices of tensors with no elements --------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Lowering/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tide {
#define GEN_PASS_DEF_DROPEMPTYSLICESPASS
#include "tide/Lowering/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;
using namespace mlir::tide;

namespace {

/// Whether `v`, or a value it is a tensor.cast of, has a static size 0.
bool hasNoElements(Value v) {
  while (true) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (type && llvm::is_contained(type.getShape(), 0))
      return true;
    auto cast = v.getDefiningOp<tensor::CastOp>();
    if (!cast)
      return false;
    v = cast.getSource();
  }
}

struct DropEmptySlicesPass
    : public tide::impl::DropEmptySlicesPassBase<DropEmptySlicesPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Operation *> slices;
    getOperation().walk([&](Operation *op) {
      if (isa<tensor::ExtractSliceOp, tensor::InsertSliceOp>(op))
        slices.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (Operation *op : slices) {
      rewriter.setInsertionPoint(op);
      if (auto extract = dyn_cast<tensor::ExtractSliceOp>(op)) {
        if (!hasNoElements(extract.getSource()) &&
            !hasNoElements(extract.getResult()))
          continue;
        // The sizes of the dimensions the slice keeps.
        llvm::SmallBitVector dropped = extract.getDroppedDims();
        SmallVector<OpFoldResult> sizes;
        for (auto [d, size] : llvm::enumerate(extract.getMixedSizes()))
          if (!dropped.test(d))
            sizes.push_back(size);
        auto type = extract.getResultType();
        Value empty = tensor::EmptyOp::create(rewriter, op->getLoc(), sizes,
                                              type.getElementType());
        if (empty.getType() != type)
          empty = tensor::CastOp::create(rewriter, op->getLoc(), type, empty);
        rewriter.replaceOp(op, empty);
        continue;
      }
      auto insert = cast<tensor::InsertSliceOp>(op);
      if (hasNoElements(insert.getDest()) || hasNoElements(insert.getSource()))
        rewriter.replaceOp(op, insert.getDest());
    }
  }
};

} // namespace
