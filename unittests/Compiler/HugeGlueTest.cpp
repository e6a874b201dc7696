//===- HugeGlueTest.cpp - LLVM's vectorizers off huge loop-free glue
//-------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Compiler/Compile.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"
#include "gtest/gtest.h"
#include <string>

namespace {

/// A function `name` whose entry block stores `stores` values into an array
/// (as kernel launches store their arguments); with `loop`, the block ends in
/// a loop back to itself; with `call`, it first calls @callee.
std::string glue(const std::string &name, size_t stores, bool loop = false,
                 bool call = false) {
  std::string text = "define void @" + name + "(ptr %p) {\nentry:\n";
  text += loop ? "  br label %body\nbody:\n" : "";
  text += call ? "  call void @callee(ptr %p)\n" : "";
  for (size_t i = 0; i < stores; ++i) {
    std::string n = std::to_string(i);
    text += "  %a" + n + " = getelementptr i64, ptr %p, i64 " + n + "\n";
    text += "  store i64 " + n + ", ptr %a" + n + "\n";
  }
  text += loop ? "  br label %body\n}\n" : "  ret void\n}\n";
  return text;
}

bool noImplicitFloat(const std::string &ir, const std::string &function) {
  llvm::LLVMContext context;
  llvm::SMDiagnostic error;
  std::unique_ptr<llvm::Module> module =
      llvm::parseAssemblyString(ir, error, context);
  EXPECT_TRUE(module) << error.getMessage().str();
  if (!module)
    return false;
  mlir::tide::keepVectorizersOffHugeGlue(*module);
  return module->getFunction(function)->hasFnAttribute(
      llvm::Attribute::NoImplicitFloat);
}

constexpr size_t kHuge = mlir::tide::kHugeGlueBlockInstructions / 2;

TEST(HugeGlue, HugeLoopFreeBlock) {
  EXPECT_TRUE(noImplicitFloat(glue("main", kHuge), "main"));
}

TEST(HugeGlue, SmallBlockKeepsVectorizers) {
  EXPECT_FALSE(noImplicitFloat(glue("main", 100), "main"));
}

TEST(HugeGlue, LoopKeepsVectorizers) {
  EXPECT_FALSE(noImplicitFloat(glue("main", kHuge, /*loop=*/true), "main"));
}

TEST(HugeGlue, CalleeWithLoopKeepsVectorizers) {
  // The inliner could bring @callee's loop into @main.
  std::string ir = glue("callee", 4, /*loop=*/true) +
                   glue("main", kHuge, /*loop=*/false, /*call=*/true);
  EXPECT_FALSE(noImplicitFloat(ir, "main"));
}

TEST(HugeGlue, LoopFreeCallee) {
  std::string ir =
      glue("callee", 4) + glue("main", kHuge, /*loop=*/false, /*call=*/true);
  EXPECT_TRUE(noImplicitFloat(ir, "main"));
  EXPECT_FALSE(noImplicitFloat(ir, "callee"));
}

} // namespace
