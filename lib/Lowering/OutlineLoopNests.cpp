//===- OutlineLoopNests.cpp - Loop nests of large functions outlined ------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// LLVM's code generation grows faster than linearly with the size of one
// function; a host function with thousands of loop nests (an unrolled
// recurrence) is split here into one function per nest, each small enough
// for the backend's per-function work to stay linear overall.
//
//===----------------------------------------------------------------------===//

#include "tide/Lowering/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/SetVector.h"

namespace mlir::tide {
#define GEN_PASS_DEF_OUTLINELOOPNESTSPASS
#include "tide/Lowering/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;

namespace {

bool isNest(Operation *op) {
  return isa<scf::ForOp, scf::ParallelOp, omp::ParallelOp>(op);
}

/// Whether `v` is a constant to clone rather than pass.
bool isConstant(Value v) {
  Operation *def = v.getDefiningOp();
  return def && def->getNumResults() == 1 && def->getNumRegions() == 0 &&
         matchPattern(v, m_Constant());
}

struct OutlineLoopNestsPass
    : public tide::impl::OutlineLoopNestsPassBase<OutlineLoopNestsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (minNests <= 0)
      return;
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    for (func::FuncOp func : funcs) {
      if (func.isDeclaration() || !func.getBody().hasOneBlock())
        continue;
      SmallVector<Operation *> nests;
      for (Operation &op : func.getBody().front())
        if (isNest(&op))
          nests.push_back(&op);
      if (static_cast<int64_t>(nests.size()) < minNests)
        continue;
      int64_t index = 0;
      for (Operation *nest : nests)
        outline(func, nest, symbols, index++);
    }
  }

  void outline(func::FuncOp parent, Operation *nest, SymbolTable &symbols,
               int64_t index) {
    // The values the nest reads from outside: its operands and what its
    // regions use.
    llvm::SetVector<Value> used;
    for (Value v : nest->getOperands())
      used.insert(v);
    getUsedValuesDefinedAbove(nest->getRegions(), used);
    SmallVector<Value> args, constants;
    for (Value v : used)
      (isConstant(v) ? constants : args).push_back(v);

    OpBuilder b(parent);
    b.setInsertionPointAfter(parent);
    Location loc = nest->getLoc();
    auto type =
        b.getFunctionType(ValueRange(args).getTypes(), nest->getResultTypes());
    auto callee = func::FuncOp::create(
        b, loc, (parent.getSymName() + "_nest" + Twine(index)).str(), type);
    callee.setPrivate();
    symbols.insert(callee);
    callee->setAttr("passthrough",
                    b.getArrayAttr({b.getStringAttr("noinline")}));
    // Internal to the module: no exported symbol that could clash with
    // another module's.
    callee->setAttr(
        "llvm.linkage",
        LLVM::LinkageAttr::get(b.getContext(), LLVM::Linkage::Internal));
    Block *body = callee.addEntryBlock();
    OpBuilder inner = OpBuilder::atBlockBegin(body);
    IRMapping map;
    for (auto [v, arg] : llvm::zip(args, body->getArguments()))
      map.map(v, arg);
    for (Value c : constants)
      map.map(c, inner.clone(*c.getDefiningOp())->getResult(0));
    Operation *copy = inner.clone(*nest, map);
    func::ReturnOp::create(inner, loc, copy->getResults());

    OpBuilder at(nest);
    auto call = func::CallOp::create(at, loc, callee, args);
    nest->replaceAllUsesWith(call.getResults());
    nest->erase();
  }
};

} // namespace
