//===- Target.h - Devices, kernel registry and cost figures -----*- C++ -*-===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// A Target says which devices exist, which (op, element type) pairs have a
// kernel on each of them, and what computing and copying costs. Built-in
// targets are JSON files under targets/ compiled into the library; users may
// pass their own file. Every file is validated strictly, and no file may claim
// a kernel that Tide's own lowering cannot generate (see NativeKernels).
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_TARGET_TARGET_H
#define TIDE_TARGET_TARGET_H

#include "tide/IR/TideDialect.h"
#include "tide/Support/EnumOptionParser.h"

#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace mlir::tide {

/// How a device runs an (op, dtype) pair.
enum class KernelKind { None, Codegen, Library };

/// Kernel table of one device: (op name, dtype) -> kind. Op names are the
/// mnemonics without the dialect prefix ("exp", "reduce_mean").
class KernelTable {
public:
  KernelKind lookup(llvm::StringRef op, DType dtype) const;
  void set(llvm::StringRef op, DType dtype, KernelKind kind);

private:
  llvm::StringMap<std::array<KernelKind, kNumDTypes>> table;
};

/// One device of a target and its cost figures.
struct DeviceSpec {
  DeviceKind kind = DeviceKind::CPU;
  unsigned ordinal = 0;
  std::string chip;        ///< "sm_90" for GPUs; "" for the CPU.
  std::string description; ///< free text, e.g. "NVIDIA H200".
  /// Peak arithmetic rate per dtype, in FLOP/s (0 = unknown: ops of that
  /// dtype are costed by memory traffic only). Contractions (the @matmul
  /// group: matmul, conv) always use it; so do other ops unless
  /// elementwiseFlops has their dtype.
  std::array<double, kNumDTypes> peakFlops{};
  /// Arithmetic rate per dtype of the ops outside the @matmul group
  /// (elementwise, reductions, ...), in FLOP/s as the cost model counts
  /// them ("elementwise_gflops"; 0 = use peakFlops). Written by
  /// tide-calibrate, which measures Tide's own generated loops.
  std::array<double, kNumDTypes> elementwiseFlops{};
  /// Arithmetic rate per dtype of convolutions, which reach a smaller part
  /// of the peak than a GEMM (small spatial sizes, operands reordered
  /// around the call) ("conv_gflops"; 0 = use peakFlops). tide-calibrate
  /// measures a 3x3 convolution (64 channels, 56x56, weights an argument):
  /// 290 GFLOP/s on the H200's 16-core host, where its GEMMs reach 1100.
  std::array<double, kNumDTypes> convFlops{};
  /// FLOPs per element charged for an op on this device, by op name without
  /// the "tide." prefix ("flops_per_element"), in place of the op's ODS
  /// fact: how much one element of tanh or erf costs against exp's 10
  /// depends on the CPU and on the math library's vector code
  /// (tide-calibrate measures the CPU's transcendental ops: tanh 15 on the
  /// build VM, about 30 where only AVX2 code runs). Ops not listed keep
  /// their fact.
  llvm::StringMap<double> flopsPerElement;
  double memoryBandwidth = 0; ///< bytes/s
  double launchLatency = 0;   ///< seconds per kernel launch
  /// CPU only: the cores of the machine, for which peakFlops and
  /// memoryBandwidth are the figures with every core busy ("cores" in a
  /// target file; 1 when absent).
  unsigned cores = 1;
  /// CPU only: the threads compiled code runs on, which the figures above
  /// reflect (see getTargetWithCpuThreads); `cores` as loaded.
  unsigned threads = 1;
  /// CPU only: bytes/s one core reaches alone ("core_bandwidth_gbps"; when
  /// absent, memoryBandwidth / cores as loaded).
  double coreBandwidth = 0;
  /// CPU only: seconds to start and join one parallel loop nest across the
  /// threads (waking them, splitting the work, waiting for the last), paid by
  /// ops large enough to run on more than one thread ("parallel_launch_us";
  /// 0 when absent).
  double parallelLaunch = 0;
  /// CPU only: seconds a contraction of a dtype pays beyond its arithmetic
  /// when it runs on the library's threads (more than kParallelFlops):
  /// threads started and joined, operands packed ("gemm_overhead_us", dtype
  /// -> us; 0 when absent). OpenBLAS's f64 GEMM of 256^3 took 182 us on the
  /// H200's 16-core host, 54 us of it at the peak rate.
  std::array<double, kNumDTypes> gemmOverhead{};
  /// GPU only: seconds a call of a function pays once when it runs anything
  /// on this GPU, however many kernels: taking a stream and waiting for the
  /// work at the end ("call_us"; 0 when absent).
  double callLatency = 0;
  KernelTable kernels;

  std::string name() const; ///< "cpu" or "cuda:N"
  /// The arithmetic rate (FLOP/s) the cost model divides an op's work by:
  /// peakFlops for contractions, else elementwiseFlops where it has `dtype`,
  /// else peakFlops; for a dtype without a figure, the slowest rate of that
  /// table. 0 when the device lists no rate at all.
  double getRate(DType dtype, bool contraction) const;
  /// A convolution's rate: convFlops where it has `dtype`, else the
  /// contraction rate of getRate.
  double getConvRate(DType dtype) const;
  DeviceAttr getAttr(MLIRContext *ctx) const;
  bool isGPU() const { return kind == DeviceKind::CUDA; }
};

/// Host<->device copy figures of one GPU.
struct LinkSpec {
  std::string device; ///< "cuda:N"
  double h2dPinned = 0, h2dPageable = 0; ///< bytes/s
  double d2hPinned = 0, d2hPageable = 0; ///< bytes/s
  double latency = 0;                    ///< seconds per copy
  /// Seconds more for a copy of kStagedCopyBytes or more, which Tide's
  /// runtime hands to its staging threads ("staged_latency_us"; 0 when
  /// absent).
  double stagedLatency = 0;
};

/// Copies from this size up pay LinkSpec::stagedLatency.
constexpr double kStagedCopyBytes = 64 * 1024;

/// Which link figures copies use.
enum class CopyMode { Pinned, Pageable };

/// A set of devices with kernel tables and cost figures.
class Target {
public:
  std::string name;
  std::string description;
  std::string source; ///< "built-in" or the file path
  std::vector<DeviceSpec> devices;
  std::vector<LinkSpec> links;

  const DeviceSpec *getDevice(DeviceAttr device) const;
  const DeviceSpec *getDevice(llvm::StringRef name) const;
  const DeviceSpec &getCPU() const { return devices.front(); }
  /// The first GPU, or null for a CPU-only target.
  const DeviceSpec *getFirstGPU() const;
  const LinkSpec *getLink(llvm::StringRef device) const;

  /// Kernel of (op, dtype) on `device` (None for unknown devices).
  KernelKind lookup(DeviceAttr device, llvm::StringRef op, DType dtype) const;

  /// Seconds to copy `bytes` between the host and `gpu` (either way).
  double copyTime(llvm::StringRef gpu, double bytes, bool hostToDevice,
                  CopyMode mode = CopyMode::Pinned) const;

  /// Prints the kernel table: one row per op, one column per dtype and
  /// device, plus the cost figures.
  void printKernelTable(llvm::raw_ostream &os) const;
  /// The same as one JSON document, with each op's facts from ODS (see
  /// `tide-list-kernels format=json`).
  void printKernelTableJSON(llvm::raw_ostream &os) const;
};

/// The target every tool and pass uses when neither the module
/// (`tide.target`) nor a `target=` option names one.
constexpr llvm::StringLiteral kDefaultTargetName = "h200";

/// Names of the built-in targets ("cpu", "h200", ...).
std::vector<std::string> getBuiltinTargetNames();

/// Loads a built-in target by name, `native` (this machine's calibration by
/// tide-calibrate, see tide/Support/NativeTarget.h), or a JSON target file
/// by path. Errors name the file, the key and what is wrong; a missing
/// calibration says to run tide-calibrate.
llvm::Expected<Target> loadTarget(llvm::StringRef nameOrPath);

/// loadTarget, once per name or path in a process: later calls return the
/// same parsed target (which lives until exit). Thread-safe.
llvm::Expected<const Target *> getTarget(llvm::StringRef nameOrPath);

/// Loads the target a `target=` option names, if any, so that passes find it
/// cached (for a pass's initialize(); errors are reported when the pass
/// resolves its target).
void warmTargetCache(llvm::StringRef nameOrPath);

/// `base` with its CPU's figures for code that runs on `threads` threads
/// (0: every core, which is `base` itself): the arithmetic peaks scaled by
/// min(threads, cores) / cores, the bandwidth min(all cores' bandwidth,
/// min(threads, cores) x one core's). Cached; thread-safe.
const Target *getTargetWithCpuThreads(const Target *base, unsigned threads);

/// The `tide.target` attribute that records `target` on a module.
TargetAttr getTargetAttr(MLIRContext *ctx, const Target &target);

/// The target `module` is compiled for: its `tide.target` attribute (set by
/// placement); else `override` (a `target=` option; empty when not given);
/// else kDefaultTargetName. When both the module and `override` name a
/// target they must agree. Errors are reported at the module's location
/// (never with the module printed) and return failure.
/// With `cpuThreads` > 0, the result's CPU figures are those for code that
/// runs on that many threads (getTargetWithCpuThreads).
FailureOr<const Target *> resolveTarget(ModuleOp module,
                                        llvm::StringRef override,
                                        unsigned cpuThreads = 0);

/// Parses target JSON text. `source` names the text in error messages.
llvm::Expected<Target> parseTarget(llvm::StringRef json,
                                   llvm::StringRef source);

//===----------------------------------------------------------------------===//
// What Tide's lowering can generate (the truth every target is checked
// against).
//===----------------------------------------------------------------------===//

/// The element types op `op` accepts (its verifier's rule), or empty for an
/// unknown op name.
std::vector<DType> getAcceptedDTypes(llvm::StringRef op);
/// The op names the registry knows (every tide op but transfer), sorted.
const std::vector<std::string> &getKnownOps();
/// Op groups usable in target files: "@all", "@elementwise", "@reductions",
/// "@shape", "@composite". Returns false for an unknown group.
bool expandOpGroup(llvm::StringRef group, std::vector<std::string> &ops);
/// The kernel Tide's own lowering provides for (op, dtype) on a device kind.
KernelKind getNativeKernel(DeviceKind kind, llvm::StringRef op, DType dtype);

/// Identifies the (op, dtype) whose kernel decides where `op` can run: the
/// op's mnemonic and the element type of its first tensor operand (or of its
/// result when it has none). Cast needs kernels for its input and its output
/// type; `extraDType` is set to the second one.
std::optional<DType> getKernelDType(Operation *op,
                                    std::optional<DType> *extraDType = nullptr);

} // namespace mlir::tide

TIDE_ENUM_OPTION_PARSER(::mlir::tide::CopyMode)

#endif // TIDE_TARGET_TARGET_H
