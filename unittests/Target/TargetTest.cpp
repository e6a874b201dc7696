//===- TargetTest.cpp - Kernel registry and target files -----------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Target/Target.h"

#include "tide/IR/TideDialect.h"

#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tide;

namespace {

std::string errorOf(llvm::StringRef json) {
  llvm::Expected<Target> target = parseTarget(json, "t.json");
  if (target)
    return "";
  return llvm::toString(target.takeError());
}

constexpr const char *kGood = R"({
  "name": "t",
  "devices": [
    {"id": "cpu", "peak_gflops": {"f32": 100}, "bandwidth_gbps": 10, "launch_us": 0},
    {"id": "cuda:0", "chip": "sm_90", "peak_gflops": {"f32": 1000},
     "bandwidth_gbps": 100, "launch_us": 5, "kernels": KERNELS}
  ],
  "links": [{"device": "cuda:0", "h2d_pinned_gbps": 10, "h2d_pageable_gbps": 5,
             "d2h_pinned_gbps": 10, "d2h_pageable_gbps": 5, "latency_us": 10}]
})";

std::string withKernels(llvm::StringRef kernels) {
  std::string s = kGood;
  s.replace(s.find("KERNELS"), 7, kernels.str());
  return s;
}

TEST(Target, BuiltinsLoadAndMatchTheReports) {
  for (const std::string &name : getBuiltinTargetNames()) {
    llvm::Expected<Target> target = loadTarget(name);
    ASSERT_TRUE(!!target) << name << ": " << llvm::toString(target.takeError());
    EXPECT_EQ(target->name, name);
  }
  MLIRContext ctx;
  ctx.loadDialect<TideDialect>();
  DeviceAttr gpu = DeviceAttr::cuda(&ctx, 0), cpu = DeviceAttr::cpu(&ctx);

  Target theano = cantFail(loadTarget("theano-0.7"));
  EXPECT_EQ(theano.lookup(gpu, "exp", DType::F32), KernelKind::Codegen);
  EXPECT_EQ(theano.lookup(gpu, "exp", DType::F64), KernelKind::None);
  EXPECT_EQ(theano.lookup(cpu, "exp", DType::F64), KernelKind::Codegen);

  Target tf = cantFail(loadTarget("tensorflow-0.7"));
  EXPECT_EQ(tf.lookup(gpu, "reduce_mean", DType::F32), KernelKind::None);
  EXPECT_EQ(tf.lookup(gpu, "reduce_sum", DType::F32), KernelKind::Codegen);
  EXPECT_EQ(tf.lookup(gpu, "reduce_sum", DType::F64), KernelKind::None);
  EXPECT_EQ(tf.lookup(gpu, "matmul", DType::F32), KernelKind::Library);
  EXPECT_EQ(tf.lookup(gpu, "matmul", DType::F64), KernelKind::None);

  Target rtx = cantFail(loadTarget("rtx3090"));
  Target h200 = cantFail(loadTarget("h200"));
  const DeviceSpec *rtxGPU = rtx.getFirstGPU();
  const DeviceSpec *h200GPU = h200.getFirstGPU();
  auto f32 = static_cast<unsigned>(DType::F32),
       f64 = static_cast<unsigned>(DType::F64);
  EXPECT_NEAR(rtxGPU->peakFlops[f32] / rtxGPU->peakFlops[f64], 64, 1);
  EXPECT_GT(h200GPU->peakFlops[f64], h200GPU->peakFlops[f32] * 0.9);
  EXPECT_EQ(cantFail(loadTarget("cpu")).getFirstGPU(), nullptr);
}

TEST(Target, NoBuiltinClaimsMoreThanTideGenerates) {
  for (const std::string &name : getBuiltinTargetNames()) {
    Target target = cantFail(loadTarget(name));
    for (const DeviceSpec &device : target.devices)
      for (const std::string &op : getKnownOps())
        for (unsigned i = 0; i < kNumDTypes; ++i) {
          auto dtype = static_cast<DType>(i);
          KernelKind claimed = device.kernels.lookup(op, dtype);
          if (claimed != KernelKind::None)
            EXPECT_EQ(claimed, getNativeKernel(device.kind, op, dtype))
                << name << " " << device.name() << " " << op << " "
                << stringifyDType(dtype).str();
        }
  }
}

TEST(Target, RegistryKnowsEveryPlaceableOp) {
  MLIRContext ctx;
  ctx.loadDialect<TideDialect>();
  std::vector<std::string> registered;
  for (RegisteredOperationName name :
       ctx.getRegisteredOperationsByDialect("tide"))
    // Transfers are inserted by placement; tide.yield ends a scan's body.
    if (name.stripDialect() != "transfer" && name.stripDialect() != "yield")
      registered.push_back(name.stripDialect().str());
  llvm::sort(registered);
  EXPECT_EQ(registered, getKnownOps());
  // The GPU has no integer GEMM; everything else the dialect accepts lowers.
  EXPECT_EQ(getNativeKernel(DeviceKind::CUDA, "matmul", DType::I32),
            KernelKind::None);
  EXPECT_EQ(getNativeKernel(DeviceKind::CUDA, "matmul", DType::BF16),
            KernelKind::Library);
  EXPECT_EQ(getNativeKernel(DeviceKind::CUDA, "exp", DType::I32),
            KernelKind::None);
}

TEST(Target, StrictValidationNamesFileKeyAndReason) {
  EXPECT_EQ(errorOf(withKernels("{}")), "");
  EXPECT_NE(errorOf(withKernels(R"({"allow": [{"ops": ["matmul"], "dtypes": ["i32"]}], "base": "none"})"))
                .find("t.json: devices[1].kernels.allow[0]: claims a kernel "
                      "Tide cannot generate: 'matmul' on i32 for cuda:0"),
            std::string::npos);
  EXPECT_NE(errorOf(withKernels(R"({"deny": [{"ops": ["expp"]}]})"))
                .find("devices[1].kernels.deny[0].ops[0]: unknown op 'expp'"),
            std::string::npos);
  EXPECT_NE(errorOf(withKernels(R"({"deny": [{"ops": ["@nope"]}]})"))
                .find("unknown op group '@nope'"),
            std::string::npos);
  EXPECT_NE(errorOf(withKernels(R"({"deny": [{"ops": ["exp"], "dtypes": ["f128"]}]})"))
                .find("dtypes[0]: unknown dtype"),
            std::string::npos);
  EXPECT_NE(errorOf(withKernels(R"({"bse": "none"})"))
                .find("devices[1].kernels.bse: unknown key"),
            std::string::npos);
  EXPECT_NE(errorOf(withKernels(R"({"base": "all"})"))
                .find("devices[1].kernels.base: must be \"native\""),
            std::string::npos);
  EXPECT_NE(errorOf(withKernels(R"({"allow": [{"ops": ["exp"], "dtypes": ["i32"]}]})"))
                .find("op 'exp' has no i32 form"),
            std::string::npos);
  EXPECT_NE(errorOf("{").find("t.json: invalid JSON"), std::string::npos);
  EXPECT_NE(errorOf("[]").find("must be a JSON object"), std::string::npos);
  EXPECT_NE(errorOf(R"({"name": "x", "devices": []})")
                .find("devices: missing or empty"),
            std::string::npos);
  std::string badChip = withKernels("{}");
  badChip.replace(badChip.find("sm_90"), 5, "sm_9x");
  EXPECT_NE(errorOf(badChip).find("devices[1].chip: 'sm_9x' is not a CUDA "
                                  "architecture"),
            std::string::npos);
  std::string negative = withKernels("{}");
  negative.replace(negative.find("\"bandwidth_gbps\": 100"), 21,
                   "\"bandwidth_gbps\": -1");
  EXPECT_NE(errorOf(negative).find("devices[1].bandwidth_gbps: must be a "
                                   "positive number"),
            std::string::npos);
  std::string noLink = withKernels("{}");
  noLink.replace(noLink.find("\"links\""), 7, "\"lnks\"");
  EXPECT_NE(errorOf(noLink).find("lnks: unknown key"), std::string::npos);
  EXPECT_NE(llvm::toString(loadTarget("nosuch").takeError())
                .find("unknown target 'nosuch'; built-in targets are"),
            std::string::npos);
  EXPECT_NE(llvm::toString(loadTarget("/nonexistent/t.json").takeError())
                .find("cannot read target file '/nonexistent/t.json'"),
            std::string::npos);
}

} // namespace
