//===- PlacementReport.cpp - Placement results as text, JSON and DOT -----===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Placement/Passes.h"

#include "tide/IR/TideOps.h"
#include "tide/Placement/Placement.h"

#include "mlir/IR/AsmState.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"

namespace mlir::tide {
#define GEN_PASS_DEF_PLACEMENTREPORTPASS
#define GEN_PASS_DEF_LISTKERNELSPASS
#include "tide/Placement/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;
using namespace mlir::tide;

//===----------------------------------------------------------------------===//
// Collecting
//===----------------------------------------------------------------------===//

/// The node names of an imported model's op: "fc1 (Gemm)", or those of the
/// nodes an op was folded from, joined ("#0 (Conv), #1
/// (BatchNormalization)"); empty for other locations.
static std::string nodeNames(Location loc) {
  if (auto named = dyn_cast<NameLoc>(loc))
    return named.getName().getValue().str();
  std::string names;
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location part : fused.getLocations())
      if (auto named = dyn_cast<NameLoc>(part))
        names += (names.empty() ? "" : ", ") + named.getName().getValue().str();
  return names;
}

static std::string locationString(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (auto file = dyn_cast<FileLineColLoc>(op->getLoc()))
    os << llvm::sys::path::filename(file.getFilename().getValue()) << ":"
       << file.getLine();
  else if (std::string names = nodeNames(op->getLoc()); !names.empty())
    // An imported model's node: "fc1 (Gemm)".
    os << names;
  else
    op->getLoc().print(os);
  return s;
}

static bool hasDynamicDims(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  return shaped && shaped.hasRank() && !shaped.hasStaticShape();
}

PlacementSummary mlir::tide::collectPlacement(ModuleOp module,
                                              const Target *target,
                                              int64_t dynamicDimSize) {
  PlacementSummary summary;
  if (target)
    summary.target = target->name;
  for (auto func : module.getOps<FunctionOpInterface>()) {
    if (func.isExternal())
      continue;
    FunctionPlacement placement;
    placement.name = func.getName().str();
    // Names of values as the printer shows them.
    AsmState state(func);
    auto valueName = [&](Value v) {
      std::string s;
      llvm::raw_string_ostream os(s);
      v.printAsOperand(os, state);
      return s;
    };
    func->walk([&](Operation *op) {
      if (auto transfer = dyn_cast<TransferOp>(op)) {
        TransferRecord record;
        record.op = op;
        record.value = valueName(transfer.getInput());
        record.from = getValueDevice(transfer.getInput());
        record.to = transfer.getTo();
        record.bytes = estimateBytes(transfer.getType(), dynamicDimSize);
        record.dynamic = hasDynamicDims(transfer.getType());
        placement.transferBytes += record.bytes;
        placement.dynamicTransferBytes |= record.dynamic;
        placement.transfers.push_back(std::move(record));
        return;
      }
      if (!isPlaceable(op))
        return;
      PlacedOp placed;
      placed.op = op;
      placed.name = op->getName().getStringRef().str();
      placed.dtype = describeKernelDType(op);
      placed.device = getDevice(op);
      placed.reason = getPlacementReason(op).str();
      if (target) {
        placed.cpuTime =
            hasKernelOn(op, target->getCPU())
                ? estimateComputeTime(op, target->getCPU(), dynamicDimSize)
                : kForbidden;
        const DeviceSpec *gpu = target->getFirstGPU();
        placed.gpuTime = gpu && hasKernelOn(op, *gpu)
                             ? estimateComputeTime(op, *gpu, dynamicDimSize)
                             : kForbidden;
      }
      placement.ops.push_back(std::move(placed));
    });
    if (target) {
      PlacementGraphOptions options;
      options.dynamicDimSize = dynamicDimSize;
      options.honourPins = false;
      PlacementGraph graph = buildPlacementGraph(func, *target, options);
      size_t n = graph.problem.nodes.size();
      std::vector<bool> chosen(n), allCPU(n), allGPU(n);
      for (size_t i = 0; i < n; ++i) {
        if (graph.fixedSide[i]) {
          chosen[i] = allCPU[i] = allGPU[i] = *graph.fixedSide[i];
          continue;
        }
        DeviceAttr device = graph.opsOf[i].empty()
                                ? DeviceAttr()
                                : getDevice(graph.opsOf[i].front());
        chosen[i] = device && device.isGPU();
        allCPU[i] = false;
        allGPU[i] = true;
        if (graph.problem.nodes[i].gpuCost >= kForbidden)
          placement.opsWithoutGPUKernel += graph.opsOf[i].size();
      }
      placement.chosenCost = evaluateFunctionPlacement(graph, chosen);
      // What-if per node: flip it alone and re-cost only what touches it.
      const PlacementProblem &problem = graph.problem;
      std::vector<std::vector<unsigned>> valuesOf(n);
      for (auto [v, value] : llvm::enumerate(problem.values)) {
        valuesOf[value.producer].push_back(v);
        for (unsigned c : value.consumers)
          valuesOf[c].push_back(v);
      }
      auto valueCost = [&](const PlacementProblem::ValueEdge &value,
                           const std::vector<bool> &side) {
        bool anyGPU = false, anyCPU = false;
        for (unsigned c : value.consumers) {
          anyGPU |= side[c];
          anyCPU |= !side[c];
        }
        double cost = 0;
        if (!side[value.producer] && anyGPU)
          cost += value.hostToDevice;
        if (side[value.producer] && anyCPU)
          cost += value.deviceToHost;
        return cost;
      };
      std::vector<double> flip(n, kForbidden);
      std::vector<bool> side = chosen;
      // The GPU's per-call cost comes or goes with the first or last node
      // on the GPU.
      size_t onGPU = llvm::count(chosen, true);
      double call = graph.gpu ? graph.gpu->callLatency : 0;
      for (size_t i = 0; i < n; ++i) {
        if (graph.opsOf[i].empty())
          continue;
        const PlacementProblem::Node &node = problem.nodes[i];
        double now = side[i] ? node.gpuCost : node.cpuCost;
        double other = side[i] ? node.cpuCost : node.gpuCost;
        if (other >= kForbidden)
          continue;
        llvm::SmallDenseSet<unsigned> seen;
        double before = 0, after = 0;
        for (unsigned v : valuesOf[i])
          if (seen.insert(v).second)
            before += valueCost(problem.values[v], side);
        side[i] = !side[i];
        seen.clear();
        for (unsigned v : valuesOf[i])
          if (seen.insert(v).second)
            after += valueCost(problem.values[v], side);
        side[i] = !side[i];
        flip[i] = (other - now) + (after - before);
        if (!side[i] && onGPU == 0)
          flip[i] += call;
        else if (side[i] && onGPU == 1)
          flip[i] -= call;
      }
      for (PlacedOp &op : placement.ops)
        if (auto it = graph.nodeOf.find(op.op); it != graph.nodeOf.end())
          op.flipDelta = flip[it->second];
      placement.allCPUCost = evaluateFunctionPlacement(graph, allCPU);
      placement.allGPUCost = target->getFirstGPU()
                                 ? evaluateFunctionPlacement(graph, allGPU)
                                 : kForbidden;
    }
    summary.functions.push_back(std::move(placement));
  }
  return summary;
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

static std::string formatTime(double seconds) {
  if (seconds >= kForbidden / 2)
    return "n/a";
  if (seconds < 1e-3)
    return llvm::formatv("{0:f2} us", seconds * 1e6).str();
  return llvm::formatv("{0:f3} ms", seconds * 1e3).str();
}

/// "+12.30 us" / "-3.10 us": the what-if of moving an op to the other side.
static std::string formatDelta(double seconds) {
  if (seconds >= kForbidden / 2)
    return "n/a";
  std::string magnitude = formatTime(std::abs(seconds));
  return (seconds < 0 ? "-" : "+") + magnitude;
}

static std::string formatBytes(double bytes, bool dynamic) {
  std::string s;
  if (bytes >= 1 << 20)
    s = llvm::formatv("{0:f2} MiB", bytes / (1 << 20)).str();
  else if (bytes >= 1 << 10)
    s = llvm::formatv("{0:f2} KiB", bytes / (1 << 10)).str();
  else
    s = llvm::formatv("{0} B", static_cast<int64_t>(bytes)).str();
  return dynamic ? s + " (with ? = dynamic-dim-size)" : s;
}

static std::string deviceName(DeviceAttr device) {
  return device ? device.str() : "(unplaced)";
}

void mlir::tide::printPlacementText(const PlacementSummary &summary,
                                    llvm::raw_ostream &os) {
  for (const FunctionPlacement &func : summary.functions) {
    os << "placement of @" << func.name;
    if (!summary.target.empty())
      os << " on target " << summary.target;
    os << "\n";
    os << llvm::formatv("  {0,-4} {1,-18} {2,-9} {3,-10} {4,-12} {5,-12} "
                        "{6,-13} {7}\n",
                        "#", "op", "dtype", "device", "cpu", "gpu",
                        "if moved", "reason");
    for (auto [i, op] : llvm::enumerate(func.ops)) {
      os << llvm::formatv("  {0,-4} {1,-18} {2,-9} {3,-10} {4,-12} {5,-12} "
                          "{6,-13} {7}",
                          i, op.name, op.dtype, deviceName(op.device),
                          formatTime(op.cpuTime), formatTime(op.gpuTime),
                          summary.target.empty() ? std::string("-")
                                                 : formatDelta(op.flipDelta),
                          op.reason);
      // Ops of an imported model name their node: "[fc1 (Gemm)]".
      if (op.op)
        if (std::string names = nodeNames(op.op->getLoc()); !names.empty())
          os << "  [" << names << "]";
      os << "\n";
    }
    os << "  transfers: " << func.transfers.size() << " per call, "
       << formatBytes(func.transferBytes, func.dynamicTransferBytes) << "\n";
    for (const TransferRecord &t : func.transfers)
      os << "    " << t.value << ": " << deviceName(t.from) << " -> "
         << deviceName(t.to) << ", " << formatBytes(t.bytes, t.dynamic)
         << "\n";
    if (!summary.target.empty()) {
      os << "  cost per call (model): chosen " << formatTime(func.chosenCost)
         << ", all-cpu " << formatTime(func.allCPUCost) << ", all-gpu "
         << formatTime(func.allGPUCost);
      if (func.opsWithoutGPUKernel)
        os << " (" << func.opsWithoutGPUKernel
           << (func.opsWithoutGPUKernel == 1 ? " op has" : " ops have")
           << " no GPU kernel)";
      os << "\n";
    }
  }
}

static llvm::json::Value timeJSON(double seconds) {
  if (seconds >= kForbidden / 2)
    return nullptr;
  return seconds * 1e6;
}

void mlir::tide::printPlacementJSON(const PlacementSummary &summary,
                                    llvm::raw_ostream &os) {
  llvm::json::Array functions;
  for (const FunctionPlacement &func : summary.functions) {
    llvm::json::Array ops;
    for (const PlacedOp &op : func.ops)
      ops.push_back(llvm::json::Object{
          {"op", op.name},
          {"loc", locationString(op.op)},
          {"dtype", op.dtype},
          {"device", deviceName(op.device)},
          {"reason", op.reason},
          {"cpu_us", timeJSON(op.cpuTime)},
          {"gpu_us", timeJSON(op.gpuTime)},
          {"if_moved_us", timeJSON(op.flipDelta)},
      });
    llvm::json::Array transfers;
    for (const TransferRecord &t : func.transfers)
      transfers.push_back(llvm::json::Object{{"value", t.value},
                                             {"from", deviceName(t.from)},
                                             {"to", deviceName(t.to)},
                                             {"bytes", t.bytes},
                                             {"dynamic", t.dynamic}});
    llvm::json::Object entry{
        {"function", func.name},
        {"ops", std::move(ops)},
        {"transfers", std::move(transfers)},
        {"transfer_count", static_cast<int64_t>(func.transfers.size())},
        {"transfer_bytes", func.transferBytes},
    };
    if (!summary.target.empty())
      entry["cost_us"] = llvm::json::Object{
          {"chosen", timeJSON(func.chosenCost)},
          {"all_cpu", timeJSON(func.allCPUCost)},
          {"all_gpu", timeJSON(func.allGPUCost)},
          {"ops_without_gpu_kernel",
           static_cast<int64_t>(func.opsWithoutGPUKernel)}};
    functions.push_back(std::move(entry));
  }
  llvm::json::Object root{{"target", summary.target},
                          {"functions", std::move(functions)}};
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
}

void mlir::tide::printPlacementDot(const PlacementSummary &summary,
                                   llvm::raw_ostream &os) {
  os << "digraph placement {\n"
     << "  rankdir=TB;\n"
     << "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\"];\n"
     << "  edge [fontname=\"Helvetica\", fontsize=10];\n";
  auto colour = [](DeviceAttr device) -> const char * {
    if (!device)
      return "white";
    return device.isCPU() ? "lightskyblue" : "palegreen";
  };
  for (size_t f = 0; f < summary.functions.size(); ++f) {
    const FunctionPlacement &func = summary.functions[f];
    os << "  subgraph cluster_" << f << " {\n"
       << "    label=\"@" << func.name << ": " << func.transfers.size()
       << " transfers, "
       << formatBytes(func.transferBytes, func.dynamicTransferBytes)
       << " per call\";\n";
    llvm::DenseMap<Operation *, std::string> ids;
    SmallVector<Operation *> order; // ops in the order they were named
    auto idOf = [&](Operation *op) -> std::string {
      auto it = ids.find(op);
      if (it != ids.end())
        return it->second;
      std::string id = "f" + std::to_string(f) + "_" +
                       std::to_string(ids.size());
      ids[op] = id;
      order.push_back(op);
      return id;
    };
    for (const PlacedOp &op : func.ops) {
      std::string reason = op.reason;
      for (char &c : reason)
        if (c == '"')
          c = '\'';
      os << "    " << idOf(op.op) << " [label=\"" << op.name << " "
         << op.dtype << "\\n" << deviceName(op.device) << "\\n" << reason
         << "\", fillcolor=" << colour(op.device) << "];\n";
    }
    for (const TransferRecord &t : func.transfers)
      os << "    " << idOf(t.op) << " [label=\"transfer " << t.value
         << "\\n" << deviceName(t.from) << " -> " << deviceName(t.to)
         << "\\n" << formatBytes(t.bytes, t.dynamic)
         << "\", shape=ellipse, fillcolor=salmon];\n";
    // Data edges between the ops shown; edges through transfers in red.
    for (Operation *op : order) {
      for (Value operand : op->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (!def || !ids.count(def))
          continue;
        bool copy = isa<TransferOp>(def) || isa<TransferOp>(op);
        os << "    " << ids[def] << " -> " << ids[op]
           << (copy ? " [color=red, penwidth=2]" : "") << ";\n";
      }
    }
    os << "  }\n";
  }
  os << "  legend [shape=plaintext, style=\"\", label=\"blue: cpu   green: "
        "gpu   red: transfer\"];\n";
  os << "}\n";
}

//===----------------------------------------------------------------------===//
// Passes
//===----------------------------------------------------------------------===//

namespace {
struct PlacementReportPass
    : public tide::impl::PlacementReportPassBase<PlacementReportPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *) override {
    warmTargetCache(target);
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    markAllAnalysesPreserved();
    if (failed(checkDynamicDimSize(module.getLoc(), dynamicDimSize)) ||
        failed(checkCpuThreads(module.getLoc(), cpuThreads)))
      return signalPassFailure();
    FailureOr<const Target *> loaded =
        resolveTarget(module, target, cpuThreads);
    if (failed(loaded))
      return signalPassFailure();
    PlacementSummary summary =
        collectPlacement(module, *loaded, dynamicDimSize);
    std::string errorMessage;
    std::unique_ptr<llvm::ToolOutputFile> file =
        openOutputFile(output, &errorMessage);
    if (!file) {
      emitError(module.getLoc()) << "cannot write the placement report to '"
                                 << output << "': " << errorMessage;
      return signalPassFailure();
    }
    if (format == ReportFormat::JSON)
      printPlacementJSON(summary, file->os());
    else if (format == ReportFormat::Dot)
      printPlacementDot(summary, file->os());
    else
      printPlacementText(summary, file->os());
    file->keep();
  }
};

struct ListKernelsPass : public tide::impl::ListKernelsPassBase<ListKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    markAllAnalysesPreserved();
    if (failed(checkCpuThreads(getOperation().getLoc(), cpuThreads)))
      return signalPassFailure();
    FailureOr<const Target *> loaded =
        resolveTarget(getOperation(), target, cpuThreads);
    if (failed(loaded))
      return signalPassFailure();
    if (format == ReportFormat::JSON)
      (*loaded)->printKernelTableJSON(llvm::outs());
    else
      (*loaded)->printKernelTable(llvm::outs());
  }
};
} // namespace
