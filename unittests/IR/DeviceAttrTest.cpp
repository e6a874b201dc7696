//===- DeviceAttrTest.cpp - Device attribute and its helpers -------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/IR/TideDialect.h"
#include "tide/IR/TideOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tide;

namespace {

TEST(DeviceAttr, ParsesDeviceStrings) {
  MLIRContext ctx;
  ctx.loadDialect<TideDialect>();
  std::string error;
  EXPECT_EQ(parseDeviceString(&ctx, "cpu", error), DeviceAttr::cpu(&ctx));
  EXPECT_EQ(parseDeviceString(&ctx, "cuda:3", error), DeviceAttr::cuda(&ctx, 3));
  EXPECT_EQ(parseDeviceString(&ctx, "cuda", error), DeviceAttr::cuda(&ctx, 0));
  EXPECT_TRUE(error.empty());
  EXPECT_FALSE(parseDeviceString(&ctx, "gpu", error));
  EXPECT_NE(error.find("unknown device 'gpu'"), std::string::npos);
  EXPECT_FALSE(parseDeviceString(&ctx, "cuda:64", error));
  EXPECT_FALSE(parseDeviceString(&ctx, "cuda:-1", error));
}

TEST(DeviceAttr, HelpersReadAndWriteOneAttribute) {
  MLIRContext ctx;
  ctx.loadDialect<TideDialect, func::FuncDialect>();
  OpBuilder b(&ctx);
  Location loc = b.getUnknownLoc();
  auto module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module.getBody());
  auto type = RankedTensorType::get({4}, b.getF32Type());
  auto func = func::FuncOp::create(b, loc, "f",
                                   b.getFunctionType({type}, {type}));
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToEnd(entry);
  auto exp = ExpOp::create(b, loc, entry->getArgument(0));
  func::ReturnOp::create(b, loc, exp.getResult());

  EXPECT_FALSE(getDevice(exp));
  EXPECT_FALSE(getDefaultDevice(exp));
  setDevice(exp, DeviceAttr::cuda(&ctx, 1));
  EXPECT_EQ(getDevice(exp).str(), "cuda:1");
  module->setAttr(TideDialect::getDefaultDeviceAttrName(),
                  DeviceAttr::cpu(&ctx));
  EXPECT_EQ(getDefaultDevice(exp), DeviceAttr::cpu(&ctx));
  setDevice(exp, nullptr);
  EXPECT_FALSE(getDevice(exp));
  EXPECT_EQ(getArgumentResidence(func, 0), DeviceAttr::cpu(&ctx));
  EXPECT_TRUE(succeeded(verify(module)));
  module->erase();
}

} // namespace
