//===- DonateBuffers.cpp - Results written into donated arguments --------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// An argument marked `tide.donate` hands its buffer to the function (the
// caller will not read it again; tide-export-abi lets bufferization write
// it). When the argument's last use is an elementwise linalg op that reads it
// through the identity map and writes a new tensor of the same type, that op
// writes into the argument instead: one-shot bufferization then computes the
// result in place, in the donated buffer, and the result aliases the argument.
// A donation that cannot be used is reported with a warning that says why.
//
//===----------------------------------------------------------------------===//

#include "tide/Conversion/Passes.h"

#include "tide/IR/TideDialect.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::tide {
#define GEN_PASS_DEF_DONATEBUFFERSPASS
#include "tide/Conversion/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;
using namespace mlir::tide;

namespace {

/// Why the donated `arg` cannot take the result of its last user, or "".
std::string tryDonate(BlockArgument arg) {
  Block *block = arg.getOwner();
  Operation *last = nullptr;
  for (Operation *user : arg.getUsers()) {
    Operation *top = block->findAncestorOpInBlock(*user);
    if (!top)
      continue;
    if (!last || last->isBeforeInBlock(top))
      last = top;
  }
  if (!last)
    return "it is not used";
  if (isa<func::ReturnOp>(last))
    return "it is returned as it is";
  auto linalgOp = dyn_cast<linalg::LinalgOp>(last);
  if (linalgOp && linalgOp.getNumReductionLoops() != 0)
    return "its last use is a reduction, whose result has another shape";
  if (!linalgOp)
    return "its last use, '" + last->getName().getStringRef().str() +
           "', is not an elementwise op";
  bool readsIdentically = false;
  for (OpOperand *input : linalgOp.getDpsInputOperands())
    if (input->get() == arg &&
        linalgOp.getMatchingIndexingMap(input).isIdentity())
      readsIdentically = true;
  if (!readsIdentically)
    return "its last use reads it with broadcasting or a permutation";
  for (OpOperand &init : linalgOp.getDpsInitsMutable()) {
    Operation *def = init.get().getDefiningOp();
    if (init.get().getType() != arg.getType() ||
        !linalgOp.getMatchingIndexingMap(&init).isIdentity() || !def ||
        !def->hasOneUse())
      continue;
    if (!isa<tensor::EmptyOp>(def) &&
        !(isa<bufferization::AllocTensorOp>(def) &&
          !cast<bufferization::AllocTensorOp>(def).getCopy()))
      continue;
    init.set(arg);
    def->erase();
    return "";
  }
  return "its last use computes no new tensor of its type (" +
         [&] {
           std::string s;
           llvm::raw_string_ostream os(s);
           os << arg.getType();
           return s;
         }() +
         ") to write into it";
}

struct DonateBuffersPass
    : public tide::impl::DonateBuffersPassBase<DonateBuffersPass> {
  using Base::Base;

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      for (unsigned i = 0; i < func.getNumArguments(); ++i) {
        if (!func.getArgAttr(i, "tide.donate"))
          continue;
        std::string why = tryDonate(func.getArgument(i));
        if (!why.empty())
          func.emitWarning() << "argument #" << i
                             << " is donated (tide.donate) but its buffer "
                                "is not reused: "
                             << why;
      }
    }
  }
};

} // namespace
