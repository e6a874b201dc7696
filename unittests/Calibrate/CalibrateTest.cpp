//===- CalibrateTest.cpp - Target files and the device report -----------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// What tide-calibrate writes for a machine with a GPU, and what tide-run
// --list-devices prints for GPUs, tested with described machines: the build
// machine has no GPU (the measurements themselves run on the GPU machine,
// bench/calibrate_check.py).
//
//===----------------------------------------------------------------------===//

#include "tide/Calibrate/Calibrate.h"
#include "tide/Calibrate/DeviceReport.h"
#include "tide/Target/Target.h"

#include "gtest/gtest.h"

using namespace tide;
using namespace tide::calibrate;
using mlir::tide::DType;

namespace {

runner::DeviceInfo cpu() {
  runner::DeviceInfo d;
  d.name = "Test CPU";
  d.cores = 16;
  d.memoryBytes = uint64_t(64) << 30;
  return d;
}

runner::DeviceInfo gpu(int index, const char *name, int major, int minor) {
  runner::DeviceInfo d;
  d.isGpu = true;
  d.index = index;
  d.name = name;
  d.computeCapabilityMajor = major;
  d.computeCapabilityMinor = minor;
  d.memoryBytes = uint64_t(141) << 30;
  d.cores = 132;
  d.fp64PerFp32 = runner::getKnownFp64Ratio(major, minor);
  return d;
}

Calibration withGpu() {
  Calibration c;
  c.host = "node7";
  c.date = "2026-12-01 10:00 UTC";
  c.cpu.name = "Test CPU";
  c.cpu.threads = 16;
  c.cpu.threadsFrom = "the affinity mask";
  for (size_t i = 0; i < kCpuDTypes.size(); ++i) {
    c.cpu.gemm[i] = 100e9 * (i + 1);
    c.cpu.elementwise[i] = 10e9 * (i + 1);
  }
  c.cpu.bandwidth = 60e9;
  c.cpu.coreBandwidth = 12e9;
  c.cpu.callSeconds = 0.2e-6;
  c.cpu.flopsPerElement = {{"tanh", 31.25}, {"erf", 52.5}};
  GpuFigures g;
  g.device = gpu(0, "NVIDIA H200", 9, 0);
  g.measured.gemmFlops[TIDE_CALIBRATE_F16] = 700e12;
  g.measured.gemmFlops[TIDE_CALIBRATE_BF16] = 710e12;
  g.measured.gemmFlops[TIDE_CALIBRATE_F32] = 51e12;
  g.measured.gemmFlops[TIDE_CALIBRATE_F64] = 56e12;
  g.measured.copyBandwidth = 4150e9;
  g.measured.launchSeconds = 2.5e-6;
  g.measured.launchWaitSeconds = 9e-6;
  g.measured.h2dPinned = 54e9;
  g.measured.h2dPageable = 41e9;
  g.measured.d2hPinned = 55e9;
  g.measured.d2hPageable = 30e9;
  g.measured.copyLatency = 8e-6;
  g.measured.stagedLatency = 40e-6;
  c.gpus.push_back(g);
  return c;
}

// A calibration with a GPU is a target the compiler accepts, with every
// figure where the cost model reads it.
TEST(CalibrateTest, TargetFileRoundTrip) {
  Calibration c = withGpu();
  EXPECT_EQ(getMachineName(c), "node7-nvidia-h200");
  std::string json = toTargetJSON(c);
  llvm::Expected<mlir::tide::Target> target =
      mlir::tide::parseTarget(json, "calibration.json");
  ASSERT_TRUE(bool(target)) << llvm::toString(target.takeError()) << "\n"
                            << json;
  EXPECT_EQ(target->name, "node7-nvidia-h200");
  const mlir::tide::DeviceSpec &host = target->getCPU();
  EXPECT_EQ(host.cores, 16u);
  EXPECT_DOUBLE_EQ(host.memoryBandwidth, 60e9);
  EXPECT_DOUBLE_EQ(host.coreBandwidth, 12e9);
  EXPECT_DOUBLE_EQ(host.getRate(DType::F32, /*contraction=*/true), 700e9);
  EXPECT_DOUBLE_EQ(host.getRate(DType::F32, /*contraction=*/false), 70e9);
  // Unsigned integers take the signed rates.
  EXPECT_DOUBLE_EQ(host.getRate(DType::UI8, false), 10e9);
  EXPECT_NEAR(host.launchLatency, 0.2e-6, 1e-12);
  // The math ops' FLOPs per element, by op name.
  EXPECT_EQ(host.flopsPerElement.size(), 2u);
  EXPECT_DOUBLE_EQ(host.flopsPerElement.lookup("tanh"), 31.25);
  EXPECT_DOUBLE_EQ(host.flopsPerElement.lookup("erf"), 52.5);
  const mlir::tide::DeviceSpec *g = target->getFirstGPU();
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->chip, "sm_90");
  EXPECT_DOUBLE_EQ(g->getRate(DType::F16, true), 700e12);
  EXPECT_DOUBLE_EQ(g->getRate(DType::F64, true), 56e12);
  EXPECT_DOUBLE_EQ(g->memoryBandwidth, 4150e9);
  EXPECT_NEAR(g->launchLatency, 2.5e-6, 1e-12);
  const mlir::tide::LinkSpec *link = target->getLink("cuda:0");
  ASSERT_NE(link, nullptr);
  EXPECT_DOUBLE_EQ(link->h2dPageable, 41e9);
  EXPECT_DOUBLE_EQ(link->d2hPageable, 30e9);
  EXPECT_NEAR(link->latency, 8e-6, 1e-12);
  EXPECT_NEAR(link->stagedLatency, 40e-6, 1e-12);
  // The kernel tables are the native ones.
  EXPECT_EQ(g->kernels.lookup("matmul", DType::F64),
            mlir::tide::KernelKind::Library);
}

// Without a GPU the target describes the CPU alone, and figures that were
// not measured are left out (the cost model then uses what is there).
TEST(CalibrateTest, CpuOnlyTarget) {
  Calibration c = withGpu();
  c.gpus.clear();
  c.cpu.gemm.fill(0);
  c.cpu.elementwise.fill(0);
  EXPECT_EQ(getMachineName(c), "node7-cpu");
  std::string json = toTargetJSON(c);
  llvm::Expected<mlir::tide::Target> target =
      mlir::tide::parseTarget(json, "calibration.json");
  ASSERT_TRUE(bool(target)) << llvm::toString(target.takeError());
  EXPECT_EQ(target->devices.size(), 1u);
  EXPECT_TRUE(target->links.empty());
  EXPECT_EQ(target->getCPU().getRate(DType::F32, false), 0);
}

// The report of GPUs: compute capability, memory, the FP64:FP32 rate known
// for the compute capability and as measured, and the (op, dtype) pairs.
TEST(CalibrateTest, DeviceReport) {
  std::string calibration = toTargetJSON(withGpu());
  std::string report = formatDeviceReport(
      {cpu(), gpu(0, "NVIDIA H200", 9, 0),
       gpu(1, "NVIDIA GeForce RTX 3090", 8, 6), gpu(2, "Tesla K80", 3, 7)},
      "", "cal.json", calibration);
  auto has = [&](const std::string &text) {
    EXPECT_NE(report.find(text), std::string::npos)
        << "missing: " << text << "\nin:\n"
        << report;
  };
  has("cpu     Test CPU\n        16 CPUs, 64.0 GiB; Tide's CPU code runs on");
  has("Tide runs every op on every dtype it takes (conv on f32 through "
      "oneDNN, f64 through OpenBLAS; matmul on f32 through oneDNN, f64 "
      "through OpenBLAS)");
  has("cuda:0  NVIDIA H200\n        compute capability 9.0 (sm_90), 141.0 GiB, "
      "132 multiprocessors\n        FP64:FP32 1:2 (CUDA cores, known for "
      "compute capability 9.0); GEMM f64:f32 1.10 measured by tide-calibrate "
      "(cal.json)\n        Tide runs there (ops with a kernel / ops that take "
      "the dtype):");
  has("          f64   ");
  has("matmul on f16, bf16, f32, f64 through cuBLAS");
  // Integer matmul has no GPU kernel.
  EXPECT_NE(report.find("          i32 "), std::string::npos);
  EXPECT_NE(report.find("not: dim, if, matmul"), std::string::npos);
  has("cuda:1  NVIDIA GeForce RTX 3090");
  has("FP64:FP32 1:64 (CUDA cores, known for compute capability 8.6)\n        "
      "not used: Tide's GPU code runs on cuda:0 only (CUDA_VISIBLE_DEVICES=1 "
      "makes this GPU cuda:0)\n        as cuda:0, Tide would run there (ops "
      "with a kernel / ops that take the dtype):");
  // The calibration measured cuda:0, not this GPU.
  EXPECT_EQ(report.find("1.10 measured", report.find("cuda:1")),
            std::string::npos);
  has("FP64:FP32 unknown for compute capability 3.7\n        Tide cannot "
      "generate code for sm_37 (it targets sm_50 to sm_120): no op runs "
      "there");
  EXPECT_EQ(report.find("no GPU:"), std::string::npos);
}

// A calibration of another GPU, or text that is not JSON, is not used.
TEST(CalibrateTest, DeviceReportIgnoresOtherCalibrations) {
  for (const std::string &text :
       {toTargetJSON(withGpu()), std::string("{not json")}) {
    std::string report = formatDeviceReport(
        {cpu(), gpu(0, "NVIDIA A100", 8, 0)}, "", "cal.json", text);
    EXPECT_NE(report.find("FP64:FP32 1:2 (CUDA cores, known for compute "
                          "capability 8.0)\n"),
              std::string::npos)
        << report;
    EXPECT_EQ(report.find("measured"), std::string::npos) << report;
  }
  std::string report = formatDeviceReport({cpu()}, "no NVIDIA driver", "", "");
  EXPECT_NE(report.find("no GPU: no NVIDIA driver\n"), std::string::npos);
}

TEST(CalibrateTest, KnownFp64Ratios) {
  EXPECT_DOUBLE_EQ(runner::getKnownFp64Ratio(9, 0), 0.5);
  EXPECT_DOUBLE_EQ(runner::getKnownFp64Ratio(8, 0), 0.5);
  EXPECT_DOUBLE_EQ(runner::getKnownFp64Ratio(8, 9), 1.0 / 64);
  EXPECT_DOUBLE_EQ(runner::getKnownFp64Ratio(7, 5), 1.0 / 32);
  EXPECT_EQ(runner::getKnownFp64Ratio(11, 0), 0);
}

} // namespace
