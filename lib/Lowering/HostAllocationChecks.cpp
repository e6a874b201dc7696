//===- HostAllocationChecks.cpp - Failed host allocations end cleanly -----===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Lowering/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::tide {
#define GEN_PASS_DEF_HOSTALLOCATIONCHECKSPASS
#include "tide/Lowering/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;

namespace {

constexpr StringLiteral kAlloc = "_mlir_memref_to_llvm_alloc";
constexpr StringLiteral kAlignedAlloc = "_mlir_memref_to_llvm_aligned_alloc";
constexpr StringLiteral kFree = "_mlir_memref_to_llvm_free";
constexpr StringLiteral kHandler = "tide_host_out_of_memory_handler";
constexpr StringLiteral kFailed = "tide_host_out_of_memory";
constexpr StringLiteral kOnAllocate = "tide_host_on_allocate";
constexpr StringLiteral kOnFree = "tide_host_on_free";

/// The function `name` of the module, declared with `type` if missing.
LLVM::LLVMFuncOp declare(ModuleOp module, StringRef name,
                         LLVM::LLVMFunctionType type) {
  if (auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return fn;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  return LLVM::LLVMFuncOp::create(b, module.getLoc(), name, type);
}

/// Gives the declaration `fn` a body built by `build` (on its entry block's
/// arguments), with internal linkage: the module's own definition.
void define(LLVM::LLVMFuncOp fn,
            function_ref<void(OpBuilder &, Block *)> build) {
  fn.setLinkage(LLVM::Linkage::Internal);
  OpBuilder b(fn.getContext());
  Block *entry = fn.addEntryBlock(b);
  b.setInsertionPointToEnd(entry);
  build(b, entry);
}

struct HostAllocationChecksPass
    : public tide::impl::HostAllocationChecksPassBase<
          HostAllocationChecksPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto alloc = module.lookupSymbol<LLVM::LLVMFuncOp>(kAlloc);
    auto aligned = module.lookupSymbol<LLVM::LLVMFuncOp>(kAlignedAlloc);
    auto release = module.lookupSymbol<LLVM::LLVMFuncOp>(kFree);
    bool declared = (alloc && alloc.isExternal()) ||
                    (aligned && aligned.isExternal()) ||
                    (release && release.isExternal());
    if (!declared)
      return;
    for (StringLiteral name : {kHandler, kFailed, kOnAllocate, kOnFree}) {
      if (!module.lookupSymbol(name))
        continue;
      module.emitError() << "tide-host-allocation-checks: '" << name
                         << "' is defined already";
      return signalPassFailure();
    }
    MLIRContext *ctx = &getContext();
    Location loc = module.getLoc();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    auto i64 = IntegerType::get(ctx, 64);
    auto i32 = IntegerType::get(ctx, 32);
    auto voidType = LLVM::LLVMVoidType::get(ctx);

    // The handler the runner sets: void (*)(uint64_t bytes), never returning.
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

    // The runner's hooks, void (*)(void *), told of each allocation and each
    // release of the module's host code, so that what a failed call had
    // allocated can be freed (null by default: nothing is told).
    auto hook = [&](StringLiteral name) {
      auto global = LLVM::GlobalOp::create(
          top, loc, ptr, /*isConstant=*/false, LLVM::Linkage::Weak, name,
          /*value=*/Attribute(), /*alignment=*/8);
      OpBuilder b(ctx);
      b.createBlock(&global.getInitializerRegion());
      LLVM::ReturnOp::create(b, loc,
                             LLVM::ZeroOp::create(b, loc, ptr).getResult());
      return global;
    };
    LLVM::GlobalOp onAllocate = hook(kOnAllocate), onFree = hook(kOnFree);
    auto hookType = LLVM::LLVMFunctionType::get(voidType, {ptr});
    // Calls the hook in `global` with `p` when one is set; continues in a new
    // block, where `b` is left.
    auto tell = [&](OpBuilder &b, Region *body, LLVM::GlobalOp global,
                    Value p) {
      Value slot = LLVM::AddressOfOp::create(b, loc, global);
      Value fn = LLVM::LoadOp::create(b, loc, ptr, slot);
      Value none = LLVM::ZeroOp::create(b, loc, ptr);
      Value unset =
          LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, fn, none);
      Block *from = b.getInsertionBlock();
      Block *call = b.createBlock(body);
      Block *done = b.createBlock(body);
      b.setInsertionPointToEnd(from);
      LLVM::CondBrOp::create(b, loc, unset, done, call);
      b.setInsertionPointToEnd(call);
      LLVM::CallOp::create(b, loc, hookType, ValueRange{fn, p});
      LLVM::BrOp::create(b, loc, done);
      b.setInsertionPointToEnd(done);
    };

    // tide_host_out_of_memory(bytes): the handler, else a message and exit.
    auto failedType = LLVM::LLVMFunctionType::get(voidType, {i64});
    auto failed = LLVM::LLVMFuncOp::create(top, loc, kFailed, failedType);
    auto dprintf = declare(
        module, "dprintf",
        LLVM::LLVMFunctionType::get(i32, {i32, ptr}, /*isVarArg=*/true));
    auto exitFn =
        declare(module, "exit", LLVM::LLVMFunctionType::get(voidType, {i32}));
    define(failed, [&](OpBuilder &b, Block *entry) {
      Value bytes = entry->getArgument(0);
      Value slot = LLVM::AddressOfOp::create(b, loc, handler);
      Value fn = LLVM::LoadOp::create(b, loc, ptr, slot);
      Value none = LLVM::ZeroOp::create(b, loc, ptr);
      Value unset =
          LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, fn, none);
      Block *call = b.createBlock(entry->getParent());
      Block *report = b.createBlock(entry->getParent());
      b.setInsertionPointToEnd(entry);
      LLVM::CondBrOp::create(b, loc, unset, report, call);
      b.setInsertionPointToEnd(call);
      LLVM::CallOp::create(b, loc, failedType, ValueRange{fn, bytes});
      LLVM::BrOp::create(b, loc, report);
      b.setInsertionPointToEnd(report);
      std::string message =
          "tide: error: out of host memory: cannot allocate %llu bytes\n";
      message.push_back('\0');
      Value format =
          LLVM::createGlobalString(loc, b, "tide_host_out_of_memory_message",
                                   message, LLVM::Linkage::Internal);
      Value stderrFd = LLVM::ConstantOp::create(b, loc, i32, 2);
      LLVM::CallOp::create(b, loc, dprintf,
                           ValueRange{stderrFd, format, bytes});
      Value one = LLVM::ConstantOp::create(b, loc, i32, 1);
      LLVM::CallOp::create(b, loc, exitFn, ValueRange{one});
      LLVM::UnreachableOp::create(b, loc);
    });

    // An allocation: `allocate` (malloc or aligned_alloc), then the check.
    auto checked = [&](LLVM::LLVMFuncOp fn, LLVM::LLVMFuncOp allocate) {
      define(fn, [&](OpBuilder &b, Block *entry) {
        Value p = LLVM::CallOp::create(b, loc, allocate, entry->getArguments())
                      .getResult();
        Value bytes = entry->getArguments().back();
        Value none = LLVM::ZeroOp::create(b, loc, ptr);
        Value zero = LLVM::ConstantOp::create(b, loc, i64, 0);
        Value isNull =
            LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, p, none);
        Value asked =
            LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, bytes, zero);
        Value bad = LLVM::AndOp::create(b, loc, isNull, asked);
        Block *ok = b.createBlock(entry->getParent());
        Block *fail = b.createBlock(entry->getParent());
        b.setInsertionPointToEnd(entry);
        LLVM::CondBrOp::create(b, loc, bad, fail, ok);
        b.setInsertionPointToEnd(ok);
        tell(b, entry->getParent(), onAllocate, p);
        LLVM::ReturnOp::create(b, loc, p);
        b.setInsertionPointToEnd(fail);
        LLVM::CallOp::create(b, loc, failed, ValueRange{bytes});
        LLVM::UnreachableOp::create(b, loc);
      });
    };
    if (alloc && alloc.isExternal())
      checked(alloc, declare(module, "malloc",
                             LLVM::LLVMFunctionType::get(ptr, {i64})));
    if (aligned && aligned.isExternal())
      checked(aligned, declare(module, "aligned_alloc",
                               LLVM::LLVMFunctionType::get(ptr, {i64, i64})));
    if (release && release.isExternal()) {
      auto freeFn =
          declare(module, "free", LLVM::LLVMFunctionType::get(voidType, {ptr}));
      define(release, [&](OpBuilder &b, Block *entry) {
        tell(b, entry->getParent(), onFree, entry->getArgument(0));
        LLVM::CallOp::create(b, loc, freeFn, entry->getArguments());
        LLVM::ReturnOp::create(b, loc, ValueRange());
      });
    }
  }
};

} // namespace
