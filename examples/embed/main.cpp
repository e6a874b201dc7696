//===- main.cpp - A toy host compiler that embeds Tide -------------------===//
//
// Part of the Tide project.
//
// Builds a small model with the C++ API (no text parsing), runs Tide's
// placement pipeline with options set in code, and prints every op's device
// and reason from the structured results. Usage: embed-host [target] [policy]
//
//===----------------------------------------------------------------------===//

#include "tide/IR/TideOps.h"
#include "tide/InitAll.h"
#include "tide/Pipelines/Pipelines.h"
#include "tide/Placement/Placement.h"
#include "tide/Target/Target.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

int main(int argc, char **argv) {
  std::string targetName = argc > 1 ? argv[1] : "tensorflow-0.7";
  std::string policy = argc > 2 ? argv[2] : "soft";

  DialectRegistry registry;
  tide::registerAllDialects(registry);
  tide::registerAllExtensions(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  // y = mean(exp(x @ w) + b) over rows, in f64 and f32.
  OpBuilder b(&context);
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  for (Type element : {Type(b.getF32Type()), Type(b.getF64Type())}) {
    auto x = RankedTensorType::get({128, 64}, element);
    auto w = RankedTensorType::get({64, 32}, element);
    auto bias = RankedTensorType::get({32}, element);
    auto out = RankedTensorType::get({32}, element);
    std::string name = element.isF32() ? "model_f32" : "model_f64";
    auto func = func::FuncOp::create(b, loc, name,
                                     b.getFunctionType({x, w, bias}, {out}));
    Block *entry = func.addEntryBlock();
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(entry);
    Value mm = tide::MatmulOp::create(b, loc, entry->getArgument(0),
                                      entry->getArgument(1));
    Value e = tide::ExpOp::create(b, loc, mm);
    Value s = tide::AddOp::create(b, loc, e, entry->getArgument(2));
    Value m = tide::ReduceMeanOp::create(b, loc, s, b.getDenseI64ArrayAttr({0}),
                                         /*keepdims=*/nullptr);
    func::ReturnOp::create(b, loc, m);
  }
  if (failed(verify(*module))) {
    llvm::errs() << "embed-host: the built module does not verify\n";
    return 1;
  }

  // Options set in code: nothing global is read.
  tide::PlacementPipelineOptions options;
  options.target = targetName;
  std::optional<tide::PlacementPolicy> parsedPolicy =
      tide::symbolizePlacementPolicy(policy);
  if (!parsedPolicy) {
    llvm::errs() << "embed-host: unknown policy '" << policy << "'\n";
    return 1;
  }
  options.policy = *parsedPolicy;
  options.remarks = false;
  PassManager pm(&context, ModuleOp::getOperationName());
  tide::buildPlacementPipeline(pm, options);
  if (failed(pm.run(*module))) {
    llvm::errs() << "embed-host: placement failed\n";
    return 1;
  }

  // Structured results: no text parsing.
  llvm::Expected<tide::Target> target = tide::loadTarget(targetName);
  if (!target) {
    llvm::errs() << "embed-host: " << llvm::toString(target.takeError())
                 << "\n";
    return 1;
  }
  tide::PlacementSummary summary = tide::collectPlacement(*module, &*target);
  for (const tide::FunctionPlacement &func : summary.functions) {
    llvm::outs() << "@" << func.name << ":\n";
    for (const tide::PlacedOp &op : func.ops)
      llvm::outs() << "  " << op.name << " " << op.dtype << " -> "
                   << op.device.str() << " (" << op.reason << ")\n";
    llvm::outs() << "  transfers: " << func.transfers.size() << "\n";
  }
  return 0;
}
