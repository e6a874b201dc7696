//===- Placement.cpp - Placement state, cost model and graph -------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Placement/Placement.h"

#include "tide/IR/TideOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::tide;

StringRef mlir::tide::stringifyPlacementPolicy(PlacementPolicy policy) {
  switch (policy) {
  case PlacementPolicy::Soft:
    return "soft";
  case PlacementPolicy::Strict:
    return "strict";
  case PlacementPolicy::RequireGPU:
    return "require-gpu";
  case PlacementPolicy::Cost:
    return "cost";
  }
  llvm_unreachable("unknown policy");
}

std::optional<PlacementPolicy>
mlir::tide::symbolizePlacementPolicy(StringRef name) {
  for (PlacementPolicy policy :
       {PlacementPolicy::Soft, PlacementPolicy::Strict,
        PlacementPolicy::RequireGPU, PlacementPolicy::Cost})
    if (stringifyPlacementPolicy(policy) == name)
      return policy;
  return std::nullopt;
}

LogicalResult mlir::tide::checkDynamicDimSize(Location loc, int64_t size) {
  if (size > 0)
    return success();
  return emitError(loc) << "invalid 'dynamic-dim-size' option " << size
                        << "; it must be positive";
}

LogicalResult mlir::tide::checkCpuThreads(Location loc, int64_t threads) {
  if (threads >= 0 && threads <= 4096)
    return success();
  return emitError(loc) << "invalid 'cpu-threads' option " << threads
                        << "; expected 0 (every core of the target's CPU) to "
                           "4096";
}

bool mlir::tide::isPlaceable(Operation *op) {
  // Ops inside a tide.scan or tide.if run where it runs (PlaceDevices gives
  // them its device); tide.yield has no kernel.
  return isa<TideDialect>(op->getDialect()) && isa<OpFactsInterface>(op) &&
         !isa<TransferOp>(op) && !op->getParentOfType<ScanOp>() &&
         !op->getParentOfType<IfOp>();
}

DeviceAttr mlir::tide::getValueDevice(Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    Operation *parent = arg.getOwner()->getParentOp();
    if (isa<FunctionOpInterface>(parent) &&
        arg.getOwner()->isEntryBlock())
      return getArgumentResidence(parent, arg.getArgNumber());
    return DeviceAttr::cpu(value.getContext());
  }
  Operation *def = value.getDefiningOp();
  if (auto transfer = dyn_cast<TransferOp>(def))
    return transfer.getTo();
  if (isPlaceable(def))
    return getDevice(def);
  return DeviceAttr::cpu(value.getContext());
}

DeviceAttr mlir::tide::getUseDevice(Operation *user, unsigned operandIndex) {
  if (isa<TransferOp>(user))
    return {};
  if (isPlaceable(user)) {
    switch (getOperandRole(user, operandIndex)) {
    case OperandRole::Host:
      return DeviceAttr::cpu(user->getContext());
    case OperandRole::ShapeOnly:
      return {};
    case OperandRole::Data:
      return getDevice(user);
    }
  }
  if (isa<func::ReturnOp>(user))
    if (Operation *func = user->getParentOp())
      return getResultResidence(func, operandIndex);
  return DeviceAttr::cpu(user->getContext());
}

/// Results of host shape computations are small integer tensors.
static constexpr int64_t kMaxHostShapeElements = 64;

static bool isSmallIntegerTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() &&
         tensor.getNumElements() <= kMaxHostShapeElements &&
         isa<IntegerType>(tensor.getElementType());
}

llvm::DenseSet<Operation *> mlir::tide::collectHostShapeOps(Operation *root) {
  llvm::DenseSet<Operation *> ops;
  SmallVector<Value> work;
  root->walk([&](Operation *op) {
    if (!isPlaceable(op))
      return;
    if (isa<DimOp>(op))
      work.push_back(op->getResult(0));
    for (OpOperand &operand : op->getOpOperands())
      if (getOperandRole(op, operand.getOperandNumber()) == OperandRole::Host)
        work.push_back(operand.get());
  });
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (!def || !isPlaceable(def) || ops.contains(def))
      continue;
    if (!isa<DimOp>(def) &&
        !llvm::all_of(def->getResultTypes(), isSmallIntegerTensor))
      continue;
    ops.insert(def);
    for (OpOperand &operand : def->getOpOperands())
      if (getOperandRole(def, operand.getOperandNumber()) !=
          OperandRole::ShapeOnly)
        work.push_back(operand.get());
  }
  return ops;
}

//===----------------------------------------------------------------------===//
// Cost model
//===----------------------------------------------------------------------===//

static double numElements(Type type, int64_t dynamicDimSize) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasRank())
    return 0;
  double count = 1;
  for (int64_t dim : shaped.getShape())
    count *= ShapedType::isDynamic(dim) ? dynamicDimSize : dim;
  return count;
}

double mlir::tide::estimateBytes(Type type, int64_t dynamicDimSize) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped)
    return 0;
  std::optional<DType> dtype = getDType(shaped.getElementType());
  return numElements(type, dynamicDimSize) *
         (dtype ? getDTypeBytes(*dtype) : 8);
}

namespace {
struct Work {
  double flops = 0;
  double bytes = 0;
  bool free = false;
};
} // namespace

static Work estimateWork(Operation *op, int64_t dyn) {
  Work work;
  auto facts = dyn_cast<OpFactsInterface>(op);
  LoweringFamily family =
      facts ? facts.getLoweringFamily() : LoweringFamily::Unary;
  if (family == LoweringFamily::Constant || family == LoweringFamily::Reshape ||
      family == LoweringFamily::Check) {
    work.free = true;
    return work;
  }
  if (auto gather = dyn_cast<GatherOp>(op)) {
    // Each result element reads one index and one input element (the input
    // is not read as a whole) and is written once.
    double result = estimateBytes(gather.getType(), dyn);
    work.bytes = estimateBytes(gather.getIndices().getType(), dyn) + 2 * result;
    work.flops =
        numElements(gather.getType(), dyn) * facts.getFlopsPerElement();
    return work;
  }
  for (Value operand : op->getOperands())
    work.bytes += estimateBytes(operand.getType(), dyn);
  for (Value result : op->getResults())
    work.bytes += estimateBytes(result.getType(), dyn);
  if (auto matmul = dyn_cast<MatmulOp>(op)) {
    auto lhs = cast<ShapedType>(matmul.getLhs().getType());
    double k = lhs.getShape().back();
    if (ShapedType::isDynamic(lhs.getShape().back()))
      k = dyn;
    work.flops = 2 * k * numElements(matmul.getType(), dyn);
    return work;
  }
  if (auto scatter = dyn_cast<ScatterOp>(op)) {
    // Each result element the updates reach compares the updates along the
    // axis (see the lowering): result elements times that length.
    auto updates = cast<ShapedType>(scatter.getUpdates().getType());
    int64_t len = updates.getDimSize(scatter.getNormalizedAxis());
    work.flops = (ShapedType::isDynamic(len) ? dyn : len) *
                 numElements(scatter.getType(), dyn) *
                 facts.getFlopsPerElement();
    return work;
  }
  if (auto conv = dyn_cast<ConvOp>(op)) {
    // A multiply and an add per output element and weight element of its
    // group: (C / groups) * kernel elements.
    auto weight = cast<ShapedType>(conv.getWeight().getType());
    double window = 1;
    for (int64_t size : weight.getShape().drop_front())
      window *= ShapedType::isDynamic(size) ? dyn : size;
    work.flops = 2 * window * numElements(conv.getType(), dyn);
    return work;
  }
  if (isa<MaxPoolOp, AvgPoolOp>(op)) {
    // One max or add per output element and window element.
    ArrayRef<int64_t> kernel = isa<MaxPoolOp>(op)
                                   ? cast<MaxPoolOp>(op).getKernel()
                                   : cast<AvgPoolOp>(op).getKernel();
    double window = 1;
    for (int64_t size : kernel)
      window *= size;
    work.flops = window * numElements(op->getResult(0).getType(), dyn);
    return work;
  }
  double flopsPerElement = facts ? facts.getFlopsPerElement() : 1.0;
  if (flopsPerElement == 0)
    return work;
  double elements = 0;
  for (Value operand : op->getOperands())
    elements = std::max(elements, numElements(operand.getType(), dyn));
  for (Value result : op->getResults())
    elements = std::max(elements, numElements(result.getType(), dyn));
  work.flops = elements * flopsPerElement;
  return work;
}

/// Ops that elementwise fusion (tide-fuse-elementwise) merges with their
/// consumers into one loop nest or kernel.
static bool isElementwise(Operation *op) {
  auto facts = dyn_cast<OpFactsInterface>(op);
  if (!facts || op->getNumResults() != 1)
    return false;
  switch (facts.getLoweringFamily()) {
  case LoweringFamily::Unary:
  case LoweringFamily::Binary:
  case LoweringFamily::Compare:
  case LoweringFamily::Select:
  case LoweringFamily::Cast:
    return true;
  default:
    return false;
  }
}

/// The static shape of `value`, if it has one.
static std::optional<ArrayRef<int64_t>> staticShape(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  return type.getShape();
}

/// `shape` without its trailing 1s: the rows of a per-row value.
static ArrayRef<int64_t> dropTrailingOnes(ArrayRef<int64_t> shape) {
  while (!shape.empty() && shape.back() == 1)
    shape = shape.drop_back();
  return shape;
}

/// A reduction of its input's trailing dimensions into one value per row
/// (`reduce_mean %x axes = [1] keepdims` over [rows x cols]): the rows are
/// a leading part of the input's shape. A full reduction has no rows.
static bool isRowReduction(Operation *op) {
  auto facts = dyn_cast<OpFactsInterface>(op);
  if (!facts || facts.getLoweringFamily() != LoweringFamily::Reduction ||
      op->getNumResults() != 1 || op->getNumOperands() != 1)
    return false;
  auto input = staticShape(op->getOperand(0));
  auto result = staticShape(op->getResult(0));
  if (!input || !result)
    return false;
  ArrayRef<int64_t> rows = dropTrailingOnes(*result);
  return !rows.empty() && rows.size() < input->size() &&
         input->take_front(rows.size()) == rows;
}

/// A reduction of its whole (static) input into one element: elementwise
/// fusion computes its elementwise producers in its loop.
static bool isFullReduction(Operation *op) {
  auto facts = dyn_cast<OpFactsInterface>(op);
  if (!facts || facts.getLoweringFamily() != LoweringFamily::Reduction ||
      op->getNumResults() != 1 || op->getNumOperands() != 1)
    return false;
  auto result = staticShape(op->getResult(0));
  return result && staticShape(op->getOperand(0)) &&
         llvm::all_of(*result, [](int64_t d) { return d == 1; });
}

/// A softmax (or log-softmax) over its input's last dimension.
static bool isRowSoftmax(Operation *op) {
  auto facts = dyn_cast<OpFactsInterface>(op);
  if (!facts || facts.getLoweringFamily() != LoweringFamily::Softmax ||
      op->getNumOperands() != 1)
    return false;
  auto input = staticShape(op->getOperand(0));
  if (!input || input->empty())
    return false;
  auto axis = op->getAttrOfType<IntegerAttr>("axis");
  if (!axis)
    return false;
  int64_t rank = input->size();
  return axis.getInt() == rank - 1 || axis.getInt() == -1;
}

/// Rows of a row reduction or last-axis softmax (0 for other ops).
static double rowsOf(Operation *op) {
  if (isRowSoftmax(op)) {
    auto input = staticShape(op->getOperand(0));
    double rows = 1;
    for (int64_t d : input->drop_back())
      rows *= d;
    return rows;
  }
  if (isRowReduction(op)) {
    double rows = 1;
    ArrayRef<int64_t> shape = *staticShape(op->getResult(0));
    for (int64_t d : shape)
      rows *= d;
    return rows;
  }
  return 0;
}

/// True when `user` computes with `value` in the same loop nest or kernel
/// as whatever produces it (if they run on one device): an elementwise op of
/// its shape (tide-fuse-elementwise), and the members of a row group, which
/// the CPU's tide-tile-and-fuse-rows and the GPU's row kernels compute row by
/// row with no pass over memory of their own: a reduction of its trailing
/// dimensions or a last-axis softmax reading it, or an elementwise op that
/// reads a per-row value ([rows x 1]) broadcast along its rows.
static bool fusesWithProducer(Value value, Operation *user) {
  if (!isPlaceable(user))
    return false;
  auto shape = staticShape(value);
  if (isElementwise(user)) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    auto userType = dyn_cast<RankedTensorType>(user->getResult(0).getType());
    if (!type || !userType)
      return false;
    if (userType.getShape() == type.getShape())
      return true;
    auto userShape = staticShape(user->getResult(0));
    if (!shape || !userShape || shape->size() != userShape->size())
      return false;
    ArrayRef<int64_t> rows = dropTrailingOnes(*shape);
    return !rows.empty() && rows.size() < userShape->size() &&
           userShape->take_front(rows.size()) == rows;
  }
  if (isRowReduction(user) || isRowSoftmax(user) || isFullReduction(user))
    return shape && shape == staticShape(user->getOperand(0));
  return false;
}

/// True when every reader of `op`'s result computes with it where it is
/// produced (fusesWithProducer): an elementwise op or a per-row reduction
/// whose result is never stored, read back or launched on its own (if they
/// run on its device).
static bool fusesIntoConsumers(Operation *op) {
  if (!isElementwise(op) && !isRowReduction(op))
    return false;
  Value result = op->getResult(0);
  if (result.use_empty() || !isa<RankedTensorType>(result.getType()))
    return false;
  return llvm::all_of(result.getUsers(), [&](Operation *user) {
    return fusesWithProducer(result, user);
  });
}

/// Elements of the largest operand or result: the size that decides whether
/// a CPU loop nest runs across threads.
static double largestElements(Operation *op, int64_t dyn) {
  double elements = 0;
  for (Value operand : op->getOperands())
    elements = std::max(elements, numElements(operand.getType(), dyn));
  for (Value result : op->getResults())
    elements = std::max(elements, numElements(result.getType(), dyn));
  return elements;
}

/// Elements per thread of a CPU loop nest: the pipelines' default grain
/// (kDefaultParallelGrain, tide-parallelize-loops).
static constexpr double kParallelGrain = 32768.0;
/// GEMMs and convolutions of more FLOPs than this run on the BLAS's threads
/// (OpenBLAS, oneDNN); smaller ones stay on the calling thread.
static constexpr double kParallelFlops = 2.0 * 1024 * 1024;
/// A CPU row reduction's or softmax's time per row beyond its arithmetic:
/// each row is a short loop nest of its own (a horizontal reduction, scalar
/// remainders). The tail of the MLP examples (softmax, log-softmax and the
/// loss over 2048 rows of 10 f32) took 113-118 us on one core of the build
/// machine, where its arithmetic is about 15.
static constexpr double kCpuRowSeconds = 25e-9;
/// Multiply-adds per thread OpenBLAS gives a GEMM (0.3's
/// GEMM_MULTITHREAD_THRESHOLD x 65536).
static constexpr double kBlasThreadMacs = 4 * 65536.0;

/// Whether the CPU pipeline splits full reduction `op` into parts its
/// threads reduce (tide-split-column-reductions: static operands of at
/// least kSplitElements elements, an even count; with keepdims too).
static constexpr int64_t kSplitElements = 1048576;
static bool splitsAcrossThreads(Operation *op) {
  if (op->getNumOperands() < 1)
    return false;
  auto type = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  if (!type || !type.hasStaticShape())
    return false;
  int64_t elements = type.getNumElements();
  return elements >= kSplitElements && elements % 2 == 0;
}

/// The CPU threads `op` runs on: the BLAS's team for a GEMM above
/// kParallelFlops, else one; a loop nest one per kParallelGrain elements of
/// its largest operand (tide_rt_cpu_team_size), up to the team.
static double cpuThreadsFor(Operation *op, const DeviceSpec &device,
                            double flops, bool contraction,
                            int64_t dynamicDimSize) {
  double threads = std::max(1u, std::min(device.threads, device.cores));
  if (contraction)
    return flops > kParallelFlops ? threads : 1.0;
  return std::clamp(
      std::floor(largestElements(op, dynamicDimSize) / kParallelGrain), 1.0,
      threads);
}

/// The estimated time of the producers fused into `op`'s loop nest or
/// kernel (transitively), each read by its consumer alone: one with several
/// readers is charged once, in its own estimate, whichever loop it ends in.
static double fusedProducerTime(Operation *op, const DeviceSpec &device,
                                int64_t dynamicDimSize) {
  double time = 0;
  for (Value operand : op->getOperands()) {
    Operation *producer = operand.getDefiningOp();
    if (!producer || !producer->hasOneUse() || !fusesIntoConsumers(producer))
      continue;
    time += estimateComputeTime(producer, device, dynamicDimSize) +
            fusedProducerTime(producer, device, dynamicDimSize);
  }
  return time;
}

double mlir::tide::estimateComputeTime(Operation *op, const DeviceSpec &device,
                                       int64_t dynamicDimSize) {
  Work work = estimateWork(op, dynamicDimSize);
  if (work.free)
    return 0;
  // The device's own FLOPs per element for this op, where its target lists
  // them (flops_per_element: calibrated against exp), in place of the ODS
  // fact the work was counted with.
  if (auto facts = dyn_cast<OpFactsInterface>(op);
      facts && facts.getFlopsPerElement() > 0 &&
      !device.flopsPerElement.empty()) {
    auto it = device.flopsPerElement.find(op->getName().stripDialect());
    if (it != device.flopsPerElement.end())
      work.flops *= it->second / facts.getFlopsPerElement();
  }
  // Contractions run at the GEMM rate; other ops at the rate of generated
  // loops where the target has one (see DeviceSpec::getRate).
  auto facts = dyn_cast<OpFactsInterface>(op);
  bool contraction = facts && facts.getKernelGroup() == KernelGroup::Matmul;
  std::optional<DType> dtype = getKernelDType(op);
  double peak = !dtype            ? 0
                : isa<ConvOp>(op) ? device.getConvRate(*dtype)
                                  : device.getRate(*dtype, contraction);
  if (!dtype) {
    for (double p : device.peakFlops)
      if (p > 0 && (peak <= 0 || p < peak))
        peak = p;
  }
  double bandwidth = device.memoryBandwidth;
  // Fused into its consumers: only its arithmetic remains, and on the CPU a
  // row reduction's work per row (see kCpuRowSeconds).
  if (fusesIntoConsumers(op)) {
    double time = peak > 0 ? work.flops / peak : 0;
    if (!device.isGPU())
      time +=
          rowsOf(op) * kCpuRowSeconds /
          cpuThreadsFor(op, device, work.flops, contraction, dynamicDimSize);
    return time;
  }
  double launch = device.launchLatency;
  if (!device.isGPU()) {
    auto facts = dyn_cast<OpFactsInterface>(op);
    bool reduction =
        facts && facts.getLoweringFamily() == LoweringFamily::Reduction;
    unsigned threads = std::max(1u, std::min(device.threads, device.cores));
    if (reduction && op->getNumResults() == 1 &&
        numElements(op->getResult(0).getType(), dynamicDimSize) <= 1 &&
        !splitsAcrossThreads(op)) {
      // A full reduction is one sequential loop on the CPU: one core's
      // share of the rate and bandwidth (unless tide-split-column-reductions
      // cuts it into parts the threads share).
      peak /= threads;
      if (device.coreBandwidth > 0)
        bandwidth = std::min(bandwidth, device.coreBandwidth);
    } else {
      double used =
          cpuThreadsFor(op, device, work.flops, contraction, dynamicDimSize);
      launch += rowsOf(op) * kCpuRowSeconds / used;
      if (device.threads > 1 && used >= 2) {
        // Starting and joining them, and what a library pays beyond the
        // arithmetic; a BLAS threads a product by its size (OpenBLAS: a
        // thread per kBlasThreadMacs multiply-adds, up to the team), so the
        // overhead grows with the part of the team it wakes.
        launch += device.parallelLaunch;
        if (contraction && dtype)
          launch += device.gemmOverhead[static_cast<unsigned>(*dtype)] *
                    std::min(1.0, work.flops / (2 * kBlasThreadMacs * threads));
      }
      // Those threads' share of the rate and bandwidth (an ELU over 128x256
      // f64, on one thread of the H200's 16-core host, ran at a sixteenth of
      // the all-core rate).
      if (used < threads) {
        peak *= used / threads;
        if (device.coreBandwidth > 0)
          bandwidth = std::min(bandwidth, used * device.coreBandwidth);
      }
    }
  }
  double arithmetic = peak > 0 ? work.flops / peak : 0;
  double memory = bandwidth > 0 ? work.bytes / bandwidth : 0;
  // The producers fused into this op's loop nest or kernel are charged
  // their arithmetic each (above); the loop overlaps all of it with its
  // memory traffic, so this op adds only what the memory time exceeds it
  // by (an exp fused into a sum over 16M floats on the H200's host: 1199 us
  // measured, 2104 predicted with the two added).
  double fused = fusedProducerTime(op, device, dynamicDimSize);
  return launch + std::max(arithmetic + fused, memory) - fused;
}

//===----------------------------------------------------------------------===//
// The CPU/GPU problem of one function
//===----------------------------------------------------------------------===//

bool mlir::tide::hasKernelOn(Operation *op, const DeviceSpec &device) {
  std::optional<DType> extra;
  std::optional<DType> dtype = getKernelDType(op, &extra);
  if (!dtype)
    return false;
  StringRef name = op->getName().stripDialect();
  if (device.kernels.lookup(name, *dtype) == KernelKind::None)
    return false;
  return !extra || device.kernels.lookup(name, *extra) != KernelKind::None;
}

std::string mlir::tide::describeKernelDType(Operation *op) {
  std::optional<DType> extra;
  std::optional<DType> dtype = getKernelDType(op, &extra);
  if (!dtype)
    return "?";
  std::string s = stringifyDType(*dtype).str();
  if (extra && *extra != *dtype)
    s += "->" + stringifyDType(*extra).str();
  return s;
}

/// Follows transfers up to the value they copy.
static Value rootValue(Value value) {
  while (auto transfer = value.getDefiningOp<TransferOp>())
    value = transfer.getInput();
  return value;
}

PlacementGraph
mlir::tide::buildPlacementGraph(FunctionOpInterface func, const Target &target,
                                const PlacementGraphOptions &options) {
  PlacementGraph graph;
  PlacementProblem &problem = graph.problem;
  DeviceAttr funcDefault = getDefaultDevice(func);
  graph.gpu = funcDefault && funcDefault.isGPU() ? target.getDevice(funcDefault)
                                                 : nullptr;
  if (!graph.gpu)
    graph.gpu = target.getFirstGPU();

  auto addNode = [&](double cpu, double gpu,
                     std::optional<bool> fixed) -> unsigned {
    problem.nodes.push_back({cpu, gpu});
    graph.opsOf.emplace_back();
    graph.fixedSide.push_back(fixed);
    return problem.nodes.size() - 1;
  };
  // Boundary nodes, created on demand.
  std::optional<unsigned> hostNode, deviceNode;
  auto fixedNode = [&](bool onGPU) -> unsigned {
    std::optional<unsigned> &slot = onGPU ? deviceNode : hostNode;
    if (!slot)
      slot = onGPU ? addNode(kForbidden, 0, true) : addNode(0, kForbidden, false);
    return *slot;
  };

  llvm::DenseSet<Operation *> hostShapeOps;
  if (options.keepShapesOnHost)
    hostShapeOps = collectHostShapeOps(func);

  // One node per placeable op, or per colocation group.
  llvm::StringMap<unsigned> groupNode;
  // Nodes with a pinned member, and nodes with an unpinned host shape op.
  llvm::DenseSet<unsigned> pinnedNodes, hostShapeNodes;
  func->walk([&](Operation *op) {
    if (!isPlaceable(op))
      return;
    unsigned node;
    StringRef group = getColocationGroup(op);
    auto it = group.empty() ? groupNode.end() : groupNode.find(group);
    if (it != groupNode.end()) {
      node = it->second;
    } else {
      node = addNode(0, 0, std::nullopt);
      if (!group.empty())
        groupNode[group] = node;
    }
    graph.nodeOf[op] = node;
    graph.opsOf[node].push_back(op);
    PlacementProblem::Node &costs = problem.nodes[node];
    const DeviceSpec &cpu = target.getCPU();
    costs.cpuCost += hasKernelOn(op, cpu)
                         ? estimateComputeTime(op, cpu, options.dynamicDimSize)
                         : kForbidden;
    costs.gpuCost +=
        graph.gpu && hasKernelOn(op, *graph.gpu)
            ? estimateComputeTime(op, *graph.gpu, options.dynamicDimSize)
            : kForbidden;
    if (options.honourPins) {
      if (DeviceAttr pin = getDevice(op)) {
        pinnedNodes.insert(node);
        if (pin.isCPU())
          costs.gpuCost = kForbidden;
        else
          costs.cpuCost = kForbidden;
      }
    }
    if (hostShapeOps.contains(op) && !getDevice(op))
      hostShapeNodes.insert(node);
  });
  // Sizes for the host are computed on the host, unless the op or a member
  // of its colocation group is pinned (as under the other policies, the pin
  // decides, and the size is copied to the host).
  for (unsigned node : hostShapeNodes)
    if (!pinnedNodes.contains(node))
      problem.nodes[node].gpuCost = kForbidden;
  for (PlacementProblem::Node &node : problem.nodes) {
    node.cpuCost = std::min(node.cpuCost, kForbidden);
    node.gpuCost = std::min(node.gpuCost, kForbidden);
  }

  // The node that produces `root`, and the node of a use.
  auto producerNode = [&](Value root) -> unsigned {
    if (Operation *def = root.getDefiningOp())
      if (isPlaceable(def))
        return graph.nodeOf.lookup(def);
    DeviceAttr device = getValueDevice(root);
    return fixedNode(device && device.isGPU());
  };
  std::function<void(Value, std::vector<unsigned> &)> collectUses =
      [&](Value value, std::vector<unsigned> &consumers) {
        for (OpOperand &use : value.getUses()) {
          Operation *user = use.getOwner();
          if (auto transfer = dyn_cast<TransferOp>(user)) {
            collectUses(transfer.getResult(), consumers);
            continue;
          }
          if (isPlaceable(user) && graph.nodeOf.count(user)) {
            // A size read by the host is needed on the host; a shape read
            // from the metadata moves nothing.
            OperandRole role = getOperandRole(user, use.getOperandNumber());
            if (role == OperandRole::ShapeOnly)
              continue;
            consumers.push_back(role == OperandRole::Host
                                    ? fixedNode(/*onGPU=*/false)
                                    : graph.nodeOf.lookup(user));
            continue;
          }
          DeviceAttr device = getUseDevice(user, use.getOperandNumber());
          consumers.push_back(fixedNode(device && device.isGPU()));
        }
      };

  llvm::DenseSet<Value> seen;
  auto addValue = [&](Value root) {
    if (!isa<ShapedType>(root.getType()) || !seen.insert(root).second)
      return;
    PlacementProblem::ValueEdge edge;
    edge.producer = producerNode(root);
    collectUses(root, edge.consumers);
    llvm::sort(edge.consumers);
    edge.consumers.erase(
        std::unique(edge.consumers.begin(), edge.consumers.end()),
        edge.consumers.end());
    llvm::erase(edge.consumers, edge.producer);
    if (edge.consumers.empty())
      return;
    double bytes = estimateBytes(root.getType(), options.dynamicDimSize);
    if (graph.gpu) {
      edge.hostToDevice =
          target.copyTime(graph.gpu->name(), bytes, true, options.copyMode);
      edge.deviceToHost =
          target.copyTime(graph.gpu->name(), bytes, false, options.copyMode);
    } else {
      edge.hostToDevice = edge.deviceToHost = kForbidden;
    }
    problem.values.push_back(std::move(edge));
  };
  func->walk([&](Operation *op) {
    if (!isPlaceable(op))
      return;
    for (Value operand : op->getOperands())
      addValue(rootValue(operand));
    for (Value result : op->getResults())
      addValue(result);
  });
  return graph;
}

double mlir::tide::gpuCallCost(const PlacementGraph &graph,
                               const std::vector<bool> &onGPU) {
  if (!graph.gpu || !llvm::is_contained(onGPU, true))
    return 0;
  return graph.gpu->callLatency;
}

double mlir::tide::evaluateFunctionPlacement(const PlacementGraph &graph,
                                             const std::vector<bool> &onGPU) {
  return evaluatePlacement(graph.problem, onGPU) + gpuCallCost(graph, onGPU);
}
