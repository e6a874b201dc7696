//===- MatmulToLibrary.cpp - f32/f64 GEMM through the host BLAS ----------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Lowering/Passes.h"

#include "tide/Conversion/GemmMatchers.h"
#include "tide/Runtime/RuntimeSymbols.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::tide {
#define GEN_PASS_DEF_MATMULTOLIBRARYPASS
#include "tide/Lowering/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;
using namespace mlir::tide;

namespace {
struct MatmulToLibraryPass
    : public tide::impl::MatmulToLibraryPassBase<MatmulToLibraryPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<linalg::MatmulOp> matmuls;
    module.walk([&](linalg::MatmulOp op) {
      if (isLibraryGemm(op, GemmLibrary::HostBlas))
        matmuls.push_back(op);
    });
    if (matmuls.empty())
      return;
    OpBuilder b(module.getContext());
    for (linalg::MatmulOp op : matmuls) {
      Type element = cast<MemRefType>(op.getDpsInitOperand(0)->get().getType())
                         .getElementType();
      StringRef name = element.isF32() ? TIDE_RT_GEMM_F32 : TIDE_RT_GEMM_F64;
      // Dynamically shaped, strided 2-D memrefs: one declaration serves all.
      auto dynType = MemRefType::get(
          {ShapedType::kDynamic, ShapedType::kDynamic}, element,
          StridedLayoutAttr::get(module.getContext(), ShapedType::kDynamic,
                                 {ShapedType::kDynamic, 1}));
      auto callee = module.lookupSymbol<func::FuncOp>(name);
      if (!callee) {
        b.setInsertionPointToStart(module.getBody());
        callee = func::FuncOp::create(
            b, module.getLoc(), name,
            b.getFunctionType({dynType, dynType, dynType}, {}));
        callee.setPrivate();
        callee->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                        b.getUnitAttr());
      }
      b.setInsertionPoint(op);
      SmallVector<Value> operands;
      for (Value v : op->getOperands())
        operands.push_back(memref::CastOp::create(b, op.getLoc(), dynType, v));
      func::CallOp::create(b, op.getLoc(), callee, operands);
      op.erase();
    }
  }
};
} // namespace
