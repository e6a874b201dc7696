//===- LowerHostAsserts.cpp - Failed run-time checks end the call ---------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Lowering/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::tide {
#define GEN_PASS_DEF_LOWERHOSTASSERTSPASS
#include "tide/Lowering/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;

namespace {

constexpr StringLiteral kHandler = "tide_host_check_failed_handler";
constexpr StringLiteral kFailed = "tide_host_check_failed";

/// The function `name` of the module, declared with `type` if missing.
LLVM::LLVMFuncOp declare(ModuleOp module, StringRef name,
                         LLVM::LLVMFunctionType type) {
  if (auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return fn;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  return LLVM::LLVMFuncOp::create(b, module.getLoc(), name, type);
}

struct LowerHostAssertsPass
    : public tide::impl::LowerHostAssertsPassBase<LowerHostAssertsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The host functions' asserts (not those of GPU modules' kernels).
    SmallVector<cf::AssertOp> asserts;
    for (auto fn : module.getOps<func::FuncOp>())
      fn.walk([&](cf::AssertOp op) { asserts.push_back(op); });
    if (asserts.empty())
      return;
    for (StringLiteral name : {kHandler, kFailed}) {
      if (!module.lookupSymbol(name))
        continue;
      module.emitError() << "tide-lower-host-asserts: '" << name
                         << "' is defined already";
      return signalPassFailure();
    }
    MLIRContext *ctx = &getContext();
    Location loc = module.getLoc();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    auto i32 = IntegerType::get(ctx, 32);
    auto voidType = LLVM::LLVMVoidType::get(ctx);

    // The handler the runner sets: void (*)(const char *message), never
    // returning (null by default).
    OpBuilder top = OpBuilder::atBlockBegin(module.getBody());
    auto handler = LLVM::GlobalOp::create(
        top, loc, ptr, /*isConstant=*/false, LLVM::Linkage::Weak, kHandler,
        /*value=*/Attribute(), /*alignment=*/8);
    {
      OpBuilder b(ctx);
      b.createBlock(&handler.getInitializerRegion());
      LLVM::ReturnOp::create(b, loc,
                             LLVM::ZeroOp::create(b, loc, ptr).getResult());
    }

    // tide_host_check_failed(message): the handler, else the message on
    // standard error and exit with status 1.
    auto failedType = LLVM::LLVMFunctionType::get(voidType, {ptr});
    auto failed = LLVM::LLVMFuncOp::create(top, loc, kFailed, failedType);
    failed.setLinkage(LLVM::Linkage::Internal);
    auto dprintf = declare(
        module, "dprintf",
        LLVM::LLVMFunctionType::get(i32, {i32, ptr}, /*isVarArg=*/true));
    auto exitFn =
        declare(module, "exit", LLVM::LLVMFunctionType::get(voidType, {i32}));
    {
      OpBuilder b(ctx);
      Block *entry = failed.addEntryBlock(b);
      Region *body = entry->getParent();
      b.setInsertionPointToEnd(entry);
      Value message = entry->getArgument(0);
      Value slot = LLVM::AddressOfOp::create(b, loc, handler);
      Value fn = LLVM::LoadOp::create(b, loc, ptr, slot);
      Value none = LLVM::ZeroOp::create(b, loc, ptr);
      Value unset =
          LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, fn, none);
      Block *call = b.createBlock(body);
      Block *report = b.createBlock(body);
      b.setInsertionPointToEnd(entry);
      LLVM::CondBrOp::create(b, loc, unset, report, call);
      b.setInsertionPointToEnd(call);
      LLVM::CallOp::create(b, loc, failedType, ValueRange{fn, message});
      LLVM::BrOp::create(b, loc, report);
      b.setInsertionPointToEnd(report);
      std::string format = "tide: error: run-time check failed: %s\n";
      format.push_back('\0');
      Value formatPtr =
          LLVM::createGlobalString(loc, b, "tide_host_check_failed_format",
                                   format, LLVM::Linkage::Internal);
      Value stderrFd = LLVM::ConstantOp::create(b, loc, i32, 2);
      LLVM::CallOp::create(b, loc, dprintf,
                           ValueRange{stderrFd, formatPtr, message});
      Value one = LLVM::ConstantOp::create(b, loc, i32, 1);
      LLVM::CallOp::create(b, loc, exitFn, ValueRange{one});
      LLVM::UnreachableOp::create(b, loc);
    }

    // Each assert: a branch to a block that calls it with the message.
    // Equal messages share one string.
    llvm::StringMap<std::string> globals;
    for (cf::AssertOp op : asserts) {
      OpBuilder b(op);
      Location at = op.getLoc();
      std::string &name = globals[op.getMsg()];
      if (name.empty())
        name = "tide_check_message_" + std::to_string(globals.size() - 1);
      Block *before = op->getBlock();
      Block *after = before->splitBlock(op);
      Block *fail = new Block();
      before->getParent()->getBlocks().insertAfter(before->getIterator(), fail);
      b.setInsertionPointToEnd(before);
      cf::CondBranchOp::create(b, at, op.getArg(), after, ValueRange(), fail,
                               ValueRange());
      b.setInsertionPointToEnd(fail);
      std::string text = op.getMsg().str();
      text.push_back('\0');
      Value message;
      if (auto global = module.lookupSymbol<LLVM::GlobalOp>(name)) {
        Value base = LLVM::AddressOfOp::create(b, at, global);
        message = base;
      } else {
        message = LLVM::createGlobalString(at, b, name, text,
                                           LLVM::Linkage::Internal);
      }
      LLVM::CallOp::create(b, at, failed, ValueRange{message});
      LLVM::UnreachableOp::create(b, at);
      op.erase();
    }
  }
};

} // namespace
