//===- Calibrate.h - Measuring this machine for the cost model --*- C++ -*-===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// tide-calibrate (and tide.calibrate() in Python) measures the machine it
// runs on and writes a target file with the figures the placement cost
// model uses (docs/placement.md, "Calibrated targets"):
//
// - the CPU, at the thread count Tide's CPU code uses (TIDE_NUM_THREADS, else
//   the CPUs of the affinity mask): GEMM rate per dtype through Tide's own
//   code (f32/f64: tide_rt_gemm_* -> OpenBLAS; the other dtypes: generated
//   loops), the rate of generated elementwise loops per dtype, memory
//   bandwidth with all threads and with one, and the cost of a call;
// - the GPU Tide's runtime drives (cuda:0), through libTideCudaRuntime.so
//   (see tide/Runtime/CudaCalibrate.h): GEMM per float dtype, device memory
//   bandwidth, kernel launch latency, host<->device copies pinned and
//   pageable both ways.
//
// The CPU kernels are Tide modules compiled when Tide is built
// (lib/Calibrate/Kernels, into <lib>/tide-calibrate/). Plain C++ and libdl:
// no LLVM or MLIR, so it runs where only the NVIDIA driver is installed.
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_CALIBRATE_CALIBRATE_H
#define TIDE_CALIBRATE_CALIBRATE_H

#include "tide/Runner/Devices.h"
#include "tide/Runtime/CudaCalibrate.h"

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tide::calibrate {

/// The dtypes whose CPU rates are measured, in this order.
constexpr std::array<const char *, 8> kCpuDTypes = {
    "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64"};

/// The f32 math ops whose cost per element tide-calibrate measures against
/// exp's (loops.mlir's unary_<op>_f32), for a target's flops_per_element.
constexpr std::array<const char *, 15> kMathOps = {
    "log",  "tanh", "sigmoid", "sin",  "cos",   "erf",   "tan",  "asin",
    "acos", "atan", "sinh",    "cosh", "asinh", "acosh", "atanh"};

/// Which CPU kernels to time: compiled here for this CPU (--cpu=native, as
/// tide-compile compiles by default; needs tide-compile next to this code),
/// or the ones built with Tide for x86-64-v3. Auto: native where
/// tide-compile is found, except with `quick`.
enum class KernelChoice { Auto, Native, Prebuilt };

struct Options {
  /// Tiny sizes and few repetitions, for tests: done in seconds, and the
  /// figures mean nothing.
  bool quick = false;
  KernelChoice kernels = KernelChoice::Auto;
  /// Called before each step with its description, its number (from 1) and
  /// the number of steps (an estimate: a step may be retried).
  std::function<void(const std::string &step, int index, int total)> progress;
  /// Called with each note (what is not measured and why) as it arises;
  /// the notes are also in Calibration::notes.
  std::function<void(const std::string &note)> note;
};

/// What was measured on the CPU. Rates in FLOP/s as the cost model counts
/// them, bandwidths in bytes read and written per second; 0 = not measured.
/// The product whose time beyond its arithmetic is the CPU's GEMM overhead.
constexpr int64_t kSmallGemmSize = 256;

struct CpuFigures {
  std::string name;        ///< the CPU's model name
  int threads = 1;         ///< threads Tide's CPU code runs on
  std::string threadsFrom; ///< "TIDE_NUM_THREADS" or "the affinity mask"
  /// How the generated-loop kernels were built ("compiled here for
  /// --cpu=native", "prebuilt for x86-64-v3"); empty when none was found.
  std::string kernels;
  std::array<double, kCpuDTypes.size()> gemm{};      ///< per kCpuDTypes
  std::array<int64_t, kCpuDTypes.size()> gemmSize{}; ///< square size
  /// Seconds a library GEMM of kSmallGemmSize^3 (f32, f64) took, for the
  /// target's gemm_overhead_us: what it pays beyond its FLOPs at `gemm`.
  std::array<double, kCpuDTypes.size()> smallGemmSeconds{};
  std::array<double, kCpuDTypes.size()> elementwise{}; ///< per kCpuDTypes
  /// FLOP/s of an f32 3x3 convolution through oneDNN (batch 1, 64
  /// channels, 56x56, weights an argument), for conv_gflops; 0: not
  /// measured.
  double convF32 = 0;
  /// FLOPs per element of f32 transcendental ops (op name -> FLOPs),
  /// from their one-thread time in the cache against exp's (10 FLOPs), for
  /// flops_per_element; empty: not measured.
  std::vector<std::pair<std::string, double>> flopsPerElement;
  double bandwidth = 0;     ///< with `threads` threads
  double coreBandwidth = 0; ///< with one thread
  double callSeconds = 0;   ///< one call of a compiled one-element op
  /// Starting and joining the threads of one parallel loop nest (0: not
  /// measured, or one thread).
  double parallelLaunchSeconds = 0;
};

struct GpuFigures {
  runner::DeviceInfo device;
  TideGpuCalibration measured{};
};

struct Calibration {
  std::string host; ///< the host name
  std::string date; ///< "2026-12-01 10:05 UTC"
  bool quick = false;
  CpuFigures cpu;
  /// The GPUs measured (cuda:0, the one Tide's runtime drives), if any.
  std::vector<GpuFigures> gpus;
  /// What was not measured and why (no GPU, no OpenBLAS, other GPUs).
  std::vector<std::string> notes;
};

/// Measures this machine. Returns false with `error` set only when nothing
/// useful can be measured (an invalid TIDE_NUM_THREADS); missing parts (no
/// GPU, no driver, no kernels) are notes.
bool calibrate(const Options &options, Calibration &result, std::string &error);

/// "<host>-<first GPU's name>" or "<host>-cpu", lower case, for file names
/// and the target's name ("node7-nvidia-h200").
std::string getMachineName(const Calibration &calibration);

/// The target file (Tide's target JSON, see docs/placement.md).
std::string toTargetJSON(const Calibration &calibration);

/// The figures as a table for people (tide-calibrate prints it).
std::string formatSummary(const Calibration &calibration);

/// Whether `path` can be written, without writing it (the calibration takes
/// a while: a bad path is reported first). False with `error` set.
bool checkWritable(const std::string &path, std::string &error);

/// Writes `text` to `path` through a temporary file in the same directory
/// and a rename (readers never see half a file), creating `path`'s
/// directory when `createDirectory`. False with `error` set.
bool writeFileAtomically(const std::string &path, const std::string &text,
                         bool createDirectory, std::string &error);

} // namespace tide::calibrate

#endif // TIDE_CALIBRATE_CALIBRATE_H
