//===- Placement.h - Placement state, cost model and results ----*- C++ -*-===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// The C++ view of placement shared by the passes and by embedders: where a
// value lives, what an op costs on a device, the CPU/GPU problem of one
// function, and the placement results (device and reason per op, transfer
// summary, costs) without parsing any text.
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_PLACEMENT_PLACEMENT_H
#define TIDE_PLACEMENT_PLACEMENT_H

#include "tide/IR/TideDialect.h"
#include "tide/Placement/MinCut.h"
#include "tide/Support/EnumOptionParser.h"
#include "tide/Target/Target.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::tide {

/// Placement policies (see PlaceDevicesPass).
enum class PlacementPolicy { Soft, Strict, RequireGPU, Cost };
/// The option spelling of a policy ("require-gpu").
llvm::StringRef stringifyPlacementPolicy(PlacementPolicy policy);
/// The policy an option spelling names, if any.
std::optional<PlacementPolicy> symbolizePlacementPolicy(llvm::StringRef name);
/// When tide-decompose rewrites composite ops.
enum class DecomposeMode { Auto, Always, Never };
/// The precision tide-decompose computes f32 GEMMs and convolutions in on
/// the GPU when asked (None: as written).
enum class ReducedPrecision { None, BF16, F16 };
/// Output formats of reports and listings (None: no report, for pipelines).
enum class ReportFormat { None, Text, JSON, Dot };

/// Checks a `dynamic-dim-size` option; the error (at `loc`) names it.
LogicalResult checkDynamicDimSize(Location loc, int64_t size);

/// Checks a `cpu-threads` option (0..4096); the error (at `loc`) names it.
LogicalResult checkCpuThreads(Location loc, int64_t threads);

/// True for tide ops that placement assigns a device (all but transfer).
bool isPlaceable(Operation *op);

/// The device where `value` lives: a function argument's residence, a
/// transfer's destination, a placed tide op's device, the host for results of
/// other ops. Null for results of unplaced tide ops.
DeviceAttr getValueDevice(Value value);

/// The device where `user` reads its operand `operandIndex`: a placed tide
/// op's device (the host for a `host` operand: sizes the host code reads),
/// a function return's result residence, the host for other ops. Null for
/// unplaced tide ops, for transfers (which read anywhere) and for
/// `shape_only` operands (only the metadata is read: nothing moves).
DeviceAttr getUseDevice(Operation *user, unsigned operandIndex);

/// The ops under `root` that compute sizes for the host: every tide.dim, and
/// the ops upstream of a `host` operand whose results are small static
/// integer tensors (up to the first op that is not one). Placement runs them
/// on the CPU, whatever the policy, unless they are pinned.
llvm::DenseSet<Operation *> collectHostShapeOps(Operation *root);

/// True when `device` has kernels for everything `op` needs (its dtype, and
/// for casts both dtypes).
bool hasKernelOn(Operation *op, const DeviceSpec &device);

/// "f32", or "f32->f64" for a cast: the dtype(s) that pick `op`'s kernel.
std::string describeKernelDType(Operation *op);

/// Bytes of a tensor value, with `?` taken as `dynamicDimSize`.
double estimateBytes(Type type, int64_t dynamicDimSize);

/// Seconds `op` takes on `device` by the roofline model: launch latency plus
/// the larger of arithmetic time (flops / the rate for its dtype, see
/// DeviceSpec::getRate) and memory time
/// (bytes moved / bandwidth). Shape-only ops that need no data movement
/// (reshape) and constants cost nothing.
double estimateComputeTime(Operation *op, const DeviceSpec &device,
                           int64_t dynamicDimSize);

/// The CPU/GPU problem of one function: a node per placeable op (colocation
/// groups merged into one node) plus fixed host/device nodes for the
/// function boundary and non-tide users; one value edge per value that tide
/// ops produce or consume. Transfers already in the IR are looked through.
struct PlacementGraph {
  PlacementProblem problem;
  /// Node of each placeable op.
  llvm::DenseMap<Operation *, unsigned> nodeOf;
  /// Placeable ops of each node (empty for boundary nodes).
  std::vector<std::vector<Operation *>> opsOf;
  /// Boundary/host nodes fixed to one side (true = GPU).
  std::vector<std::optional<bool>> fixedSide;
  /// The GPU standing for "the GPU side" (null for CPU-only targets).
  const DeviceSpec *gpu = nullptr;
};

struct PlacementGraphOptions {
  int64_t dynamicDimSize = 32;
  CopyMode copyMode = CopyMode::Pinned;
  /// Forbid the side a pinned op is not pinned to.
  bool honourPins = true;
  /// Forbid the GPU to host shape computations (collectHostShapeOps).
  bool keepShapesOnHost = true;
};

/// Builds the problem for `func` on `target`.
PlacementGraph buildPlacementGraph(FunctionOpInterface func,
                                   const Target &target,
                                   const PlacementGraphOptions &options);

/// The GPU's per-call cost (DeviceSpec::callLatency) that a call of the
/// function pays under `onGPU` (true = GPU, per node of `graph`): once if
/// any node is on the GPU (an op, or a GPU-resident argument or result),
/// else 0.
double gpuCallCost(const PlacementGraph &graph, const std::vector<bool> &onGPU);

/// Modelled seconds per call of the function under `onGPU`:
/// evaluatePlacement plus gpuCallCost. The minimum cut optimises the first
/// term only; see PlaceDevicesPass for how the cost policy adds the second.
double evaluateFunctionPlacement(const PlacementGraph &graph,
                                 const std::vector<bool> &onGPU);

//===----------------------------------------------------------------------===//
// Results readable from C++
//===----------------------------------------------------------------------===//

struct PlacedOp {
  Operation *op = nullptr;
  std::string name;  ///< "tide.exp"
  std::string dtype; ///< "f32" ("f32->f64" for casts)
  DeviceAttr device; ///< null if unplaced
  std::string reason;
  double cpuTime = 0, gpuTime = 0; ///< seconds, from the cost model
  /// What-if: the change in modelled seconds per call if this op (with its
  /// colocation group) were forced onto the other side, CPU <-> GPU, all else
  /// unchanged; kForbidden when it has no kernel there.
  double flipDelta = 0;
};

struct TransferRecord {
  Operation *op = nullptr;
  std::string value; ///< a printable name of the copied value
  DeviceAttr from, to;
  double bytes = 0;
  bool dynamic = false; ///< bytes assumed `?` = dynamic-dim-size
};

struct FunctionPlacement {
  std::string name;
  std::vector<PlacedOp> ops;
  std::vector<TransferRecord> transfers;
  double transferBytes = 0;
  bool dynamicTransferBytes = false;
  /// Modelled seconds per call: the placement as it is, everything on the
  /// CPU, everything on the GPU (kForbidden when impossible).
  double chosenCost = 0, allCPUCost = 0, allGPUCost = 0;
  unsigned opsWithoutGPUKernel = 0;
};

struct PlacementSummary {
  std::string target;
  std::vector<FunctionPlacement> functions;
};

/// Reads the placement of every function in `module`. `target` may be null
/// (no costs are computed then).
PlacementSummary collectPlacement(ModuleOp module, const Target *target,
                                  int64_t dynamicDimSize = 32);

void printPlacementText(const PlacementSummary &summary, llvm::raw_ostream &os);
void printPlacementJSON(const PlacementSummary &summary, llvm::raw_ostream &os);
void printPlacementDot(const PlacementSummary &summary, llvm::raw_ostream &os);

} // namespace mlir::tide

TIDE_ENUM_OPTION_PARSER(::mlir::tide::PlacementPolicy)
TIDE_ENUM_OPTION_PARSER(::mlir::tide::DecomposeMode)
TIDE_ENUM_OPTION_PARSER(::mlir::tide::ReducedPrecision)
TIDE_ENUM_OPTION_PARSER(::mlir::tide::ReportFormat)

#endif // TIDE_PLACEMENT_PLACEMENT_H
