//===- GpuCorrectlyRoundedSqrt.cpp - IEEE sqrt in GPU kernels -------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Lowering/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::tide {
#define GEN_PASS_DEF_GPUCORRECTLYROUNDEDSQRTPASS
#include "tide/Lowering/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;

namespace {

struct GpuCorrectlyRoundedSqrtPass
    : public tide::impl::GpuCorrectlyRoundedSqrtPassBase<
          GpuCorrectlyRoundedSqrtPass> {
  using Base::Base;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation().walk([&](LLVM::CallOp call) {
      std::optional<StringRef> callee = call.getCallee();
      if (!callee || *callee != "__nv_sqrtf" || call.getNumOperands() != 1)
        return;
      rewriter.setInsertionPoint(call);
      rewriter.replaceOpWithNewOp<LLVM::SqrtOp>(call, call.getOperand(0));
    });
    // The libdevice declaration, if nothing calls it any more.
    if (auto decl = SymbolTable::lookupNearestSymbolFrom<LLVM::LLVMFuncOp>(
            getOperation(), StringAttr::get(&getContext(), "__nv_sqrtf")))
      if (SymbolTable::symbolKnownUseEmpty(decl, getOperation()))
        decl.erase();
  }
};

} // namespace
