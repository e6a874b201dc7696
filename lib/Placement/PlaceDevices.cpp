//===- PlaceDevices.cpp - Give every tide op a device and a reason -------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Placement/Passes.h"

#include "tide/IR/TideOps.h"
#include "tide/Placement/Placement.h"
#include "tide/Target/Target.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::tide {
#define GEN_PASS_DEF_PLACEDEVICESPASS
#define GEN_PASS_DEF_VERIFYPLACEMENTPASS
#include "tide/Placement/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;
using namespace mlir::tide;

namespace {

std::string usUnits(double seconds) {
  if (seconds >= kForbidden / 2)
    return "n/a";
  char buffer[32];
  snprintf(buffer, sizeof(buffer), "%.1fus", seconds * 1e6);
  return buffer;
}

/// Prefixes the reason with the decomposition that created the op.
std::string withOrigin(Operation *op, StringRef reason) {
  if (auto origin = op->getAttrOfType<StringAttr>("tide.decomposed"))
    return ("decomposed(" + origin.getValue() + "); " + reason).str();
  return reason.str();
}

/// The ops in a tide.scan's body or a tide.if's regions run where the scan
/// or if runs (its host code calls them): they get its device, and a pin
/// elsewhere is an error.
LogicalResult placeRegionBodies(ModuleOp module) {
  bool ok = true;
  module->walk<WalkOrder::PreOrder>([&](Operation *parent) {
    if (!isa<ScanOp, IfOp>(parent))
      return;
    DeviceAttr device = getDevice(parent);
    if (!device)
      return;
    std::string what = isa<ScanOp>(parent)
                           ? "a loop's body runs where the loop runs"
                           : "a branch runs where its if runs";
    std::string reason = "inside '" + parent->getName().getStringRef().str() +
                         "' (" + device.str() + "): " + what;
    for (Region &region : parent->getRegions())
      region.walk([&](Operation *op) {
        // (Ops of a nested scan or if: when the walk reaches it.)
        if (!isa<OpFactsInterface>(op) || isa<TransferOp>(op) ||
            op->getParentRegion()->getParentOp() != parent)
          return;
        if (DeviceAttr pin = getDevice(op); pin && pin != device) {
          op->emitError() << "'" << op->getName() << "' is pinned to "
                          << pin.str() << " inside a '" << parent->getName()
                          << "' placed on " << device.str() << "; " << what;
          ok = false;
          return;
        }
        setDevice(op, device);
        setPlacementReason(op, reason);
      });
  });
  return success(ok);
}

/// The fixes a user can apply to an op that cannot run where it must.
std::string fixesFor(Operation *op, PlacementPolicy policy) {
  std::string fixes = "fixes: ";
  if (policy == PlacementPolicy::RequireGPU)
    fixes += "choose a target whose GPU kernel table has it";
  else
    fixes += "pin it to a device that has the kernel (e.g. tide.device = "
             "#tide.device<cpu>)";
  auto facts = dyn_cast<OpFactsInterface>(op);
  if (facts && facts.isComposite())
    fixes += ", run tide-decompose (it rewrites '" +
             op->getName().stripDialect().str() + "' into primitives)";
  std::optional<DType> dtype = getKernelDType(op);
  if (dtype && *dtype == DType::F64)
    fixes += ", convert to f32 with 'tide.cast' (an explicit precision "
             "change) or run tide-decompose{demote-f64=true}";
  if (policy == PlacementPolicy::Strict || policy == PlacementPolicy::RequireGPU)
    fixes += ", or use policy=soft to let it fall back to the CPU";
  else
    fixes += ", or choose a target whose kernel table has it";
  return fixes;
}

/// The placement reason of a host shape computation (collectHostShapeOps).
constexpr StringLiteral kShapeReason = "shape(host)";

struct Placer {
  const Target &target;
  PlacementPolicy policy;
  int64_t dynamicDimSize;
  CopyMode copyMode;
  bool remarks;
  unsigned violations = 0;

  void violation(Operation *op, const Twine &message,
                 std::optional<std::string> fixes = std::nullopt) {
    ++violations;
    op->emitError() << message << "; "
                    << (fixes ? *fixes : fixesFor(op, policy));
  }

  /// The device an op would choose first, and the reason for that choice.
  std::pair<DeviceAttr, std::string> preferred(Operation *op,
                                               DeviceAttr groupPin,
                                               StringRef group) {
    MLIRContext *ctx = op->getContext();
    if (DeviceAttr pin = getDevice(op))
      return {pin, "pinned"};
    if (groupPin)
      return {groupPin, ("colocated(" + group + ")").str()};
    if (DeviceAttr def = getDefaultDevice(op))
      return {def, "default"};
    if (const DeviceSpec *gpu = target.getFirstGPU())
      return {gpu->getAttr(ctx), "preferred"};
    return {DeviceAttr::cpu(ctx), "preferred"};
  }

  /// Checks that every pin and default names a device of the target.
  LogicalResult checkDevices(ModuleOp module) {
    bool ok = true;
    auto check = [&](Operation *op, DeviceAttr device, StringRef what) {
      if (device && !target.getDevice(device)) {
        op->emitError() << what << " '" << device.str()
                        << "' is not a device of target '" << target.name
                        << "' (devices: "
                        << llvm::join(llvm::map_range(target.devices,
                                                      [](const DeviceSpec &d) {
                                                        return d.name();
                                                      }),
                                      ", ")
                        << ")";
        ok = false;
      }
    };
    module->walk([&](Operation *op) {
      if (isPlaceable(op))
        check(op, getDevice(op), "pinned device");
      if (auto device = op->getAttrOfType<DeviceAttr>(
              TideDialect::getDefaultDeviceAttrName()))
        check(op, device, "default device");
      if (auto func = dyn_cast<FunctionOpInterface>(op)) {
        for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
          check(op, getArgumentResidence(op, i), "argument residence");
        for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
          check(op, getResultResidence(op, i), "result residence");
      }
    });
    return success(ok);
  }

  /// The device a colocation group is pinned to (null if none). Conflicting
  /// pins are reported (one error per conflicting member) and fail.
  FailureOr<DeviceAttr> groupPin(StringRef group, ArrayRef<Operation *> unit) {
    DeviceAttr pinned;
    bool conflict = false;
    for (Operation *op : unit) {
      DeviceAttr pin = getDevice(op);
      if (pin && pinned && pin != pinned) {
        op->emitError() << "colocation group '" << group
                        << "' is pinned to both " << pinned.str() << " and "
                        << pin.str() << "; pin its members to one device";
        ++violations;
        conflict = true;
      }
      if (pin && !pinned)
        pinned = pin;
    }
    if (conflict)
      return failure();
    return pinned;
  }

  /// soft / strict / require-gpu: each op (or colocation group) on its
  /// preferred device if it has a kernel there, else by the policy.
  void placeByRules(FunctionOpInterface func) {
    // Colocation groups: every member shares the group's device.
    llvm::StringMap<SmallVector<Operation *>> groups;
    SmallVector<SmallVector<Operation *>> units;
    func->walk([&](Operation *op) {
      if (!isPlaceable(op))
        return;
      StringRef group = getColocationGroup(op);
      if (group.empty())
        units.push_back({op});
      else
        groups[group].push_back(op);
    });
    for (auto &entry : groups)
      units.push_back(entry.second);

    MLIRContext *ctx = func->getContext();
    llvm::DenseSet<Operation *> hostShapeOps = collectHostShapeOps(func);
    for (SmallVector<Operation *> &unit : units) {
      StringRef group = getColocationGroup(unit.front());
      // Sizes the host code reads are computed on the host, under every
      // policy (an op without a CPU kernel is placed by the rules below).
      if (group.empty() && hostShapeOps.contains(unit.front()) &&
          !getDevice(unit.front()) &&
          hasKernelOn(unit.front(), target.getCPU())) {
        setDevice(unit.front(), DeviceAttr::cpu(ctx));
        setPlacementReason(unit.front(),
                           withOrigin(unit.front(), kShapeReason));
        continue;
      }
      DeviceAttr groupPinned;
      if (!group.empty()) {
        FailureOr<DeviceAttr> pin = groupPin(group, unit);
        if (failed(pin))
          continue;
        groupPinned = *pin;
      }
      // A group's members share one decision; its reason says so.
      auto [want, reason] =
          group.empty() ? preferred(unit.front(), {}, group)
                        : preferred(unit.front(), groupPinned, group);
      if (!group.empty() && groupPinned)
        reason = ("colocated(" + group + ")").str();
      else if (!group.empty())
        reason = ("colocated(" + group + "); " + reason).str();
      bool explicitPin = !!getDevice(unit.front()) || !!groupPinned;
      const DeviceSpec *wantSpec = target.getDevice(want);
      Operation *blocker = nullptr;
      for (Operation *op : unit)
        if (!wantSpec || !hasKernelOn(op, *wantSpec))
          blocker = blocker ? blocker : op;
      DeviceAttr chosen = want;
      if (blocker) {
        std::string why = llvm::formatv(
            "no-kernel({0}, {1})", want.str(), describeKernelDType(blocker));
        if (policy == PlacementPolicy::Strict && explicitPin) {
          for (Operation *op : unit)
            violation(op, llvm::formatv(
                              "'{0}' ({1}) is pinned to {2}, but target '{3}' "
                              "has no {2} kernel for {4} on {5}{6}",
                              op->getName(), describeKernelDType(op), want.str(),
                              target.name, blocker->getName().stripDialect(),
                              describeKernelDType(blocker),
                              group.empty() ? ""
                                            : " (colocation group '" + group +
                                                  "')"));
          continue;
        }
        // Fall back: another GPU first under require-gpu, the CPU first
        // otherwise, then any device with kernels for the whole unit.
        chosen = {};
        SmallVector<const DeviceSpec *> order;
        if (policy == PlacementPolicy::RequireGPU) {
          for (const DeviceSpec &d : target.devices)
            if (d.isGPU())
              order.push_back(&d);
        } else {
          order.push_back(&target.getCPU());
          for (const DeviceSpec &d : target.devices)
            if (d.isGPU())
              order.push_back(&d);
        }
        for (const DeviceSpec *d : order) {
          if (llvm::all_of(unit, [&](Operation *op) {
                return hasKernelOn(op, *d);
              })) {
            chosen = d->getAttr(ctx);
            break;
          }
        }
        if (!chosen) {
          for (Operation *op : unit)
            violation(op, llvm::formatv(
                              "'{0}' ({1}) has no kernel on {2}{3} in target "
                              "'{4}'",
                              op->getName(), describeKernelDType(op),
                              policy == PlacementPolicy::RequireGPU
                                  ? "any GPU"
                                  : "any device",
                              policy == PlacementPolicy::RequireGPU
                                  ? " (policy require-gpu)"
                                  : "",
                              target.name));
          continue;
        }
        reason = group.empty() ? why : ("colocated(" + group + "); " + why).str();
        if (remarks)
          for (Operation *op : unit)
            op->emitRemark() << "placed on " << chosen.str() << ": target '"
                             << target.name << "' has no " << want.str()
                             << " kernel for "
                             << blocker->getName().stripDialect() << " on "
                             << describeKernelDType(blocker);
      }
      if (policy == PlacementPolicy::RequireGPU && chosen.isCPU()) {
        for (Operation *op : unit)
          violation(op, llvm::formatv("'{0}' ({1}) would run on the CPU ({2}) "
                                      "but the policy is require-gpu",
                                      op->getName(), describeKernelDType(op), reason));
        continue;
      }
      for (Operation *op : unit) {
        // An op's own pin to the chosen device is its reason.
        std::string own = reason;
        if (getDevice(op) && getDevice(op) == chosen && group.empty())
          own = "pinned";
        setDevice(op, chosen);
        setPlacementReason(op, withOrigin(op, own));
      }
    }
  }

  /// Why `op` cannot run on the CPU (`cpu`) or on the GPU `gpu` under the
  /// cost policy, as buildPlacementGraph decides it; empty when it can.
  std::string whyNotOn(Operation *op, bool cpu, const DeviceSpec *gpu,
                       const llvm::DenseSet<Operation *> &hostShapeOps) {
    std::string name = ("'" + op->getName().getStringRef() + "'").str();
    DeviceAttr pin = getDevice(op);
    if (cpu) {
      if (!hasKernelOn(op, target.getCPU()))
        return name + " has no CPU kernel for " + describeKernelDType(op);
      if (pin && !pin.isCPU())
        return name + " is pinned to " + pin.str();
      return "";
    }
    if (!gpu)
      return "target '" + target.name + "' has no GPU";
    if (!hasKernelOn(op, *gpu))
      return name + " has no " + gpu->name() + " kernel for " +
             describeKernelDType(op);
    if (pin && pin.isCPU())
      return name + " is pinned to cpu";
    if (hostShapeOps.contains(op) && !pin)
      return name + " computes a shape that the host reads";
    return "";
  }

  /// cost: the minimum cut of the function's CPU/GPU problem.
  void placeByCost(FunctionOpInterface func) {
    PlacementGraphOptions options;
    options.dynamicDimSize = dynamicDimSize;
    options.copyMode = copyMode;
    // Conflicting pins inside colocation groups are reported as such.
    {
      llvm::StringMap<SmallVector<Operation *>> groups;
      func->walk([&](Operation *op) {
        if (isPlaceable(op) && !getColocationGroup(op).empty())
          groups[getColocationGroup(op)].push_back(op);
      });
      bool conflict = false;
      for (auto &entry : groups)
        conflict |= failed(groupPin(entry.getKey(), entry.getValue()));
      if (conflict)
        return;
    }
    PlacementGraph graph = buildPlacementGraph(func, target, options);
    llvm::DenseSet<Operation *> hostShapeOps = collectHostShapeOps(func);
    // Ops that can run nowhere are reported before solving, with what keeps
    // their node (the op, or its colocation group) off each side.
    bool impossible = false;
    for (auto [node, ops] : llvm::enumerate(graph.opsOf)) {
      const PlacementProblem::Node &costs = graph.problem.nodes[node];
      if (ops.empty() || costs.cpuCost < kForbidden ||
          costs.gpuCost < kForbidden)
        continue;
      impossible = true;
      std::string offCpu, offGpu;
      for (Operation *op : ops) {
        if (offCpu.empty())
          offCpu = whyNotOn(op, /*cpu=*/true, graph.gpu, hostShapeOps);
        if (offGpu.empty())
          offGpu = whyNotOn(op, /*cpu=*/false, graph.gpu, hostShapeOps);
      }
      StringRef group = getColocationGroup(ops.front());
      std::string subject = ops.size() > 1 && !group.empty()
                                ? ("its colocation group '" + group + "'").str()
                                : std::string("it");
      // Every member has a kernel on both sides: the pins and the group
      // contradict each other, and kernels are not what is missing.
      bool kernels = graph.gpu && llvm::all_of(ops, [&](Operation *op) {
                       return hasKernelOn(op, target.getCPU()) &&
                              hasKernelOn(op, *graph.gpu);
                     });
      std::optional<std::string> fixes;
      if (kernels)
        fixes = ops.size() > 1 && !group.empty()
                    ? "fixes: drop the pin, or take one of them out of the "
                      "colocation group"
                    : "fixes: drop the pin";
      for (Operation *op : ops)
        violation(op,
                  llvm::formatv("'{0}' ({1}) can run on no device of "
                                "target '{2}': {3} can run neither on the "
                                "CPU ({4}) nor on a GPU ({5})",
                                op->getName(), describeKernelDType(op),
                                target.name, subject, offCpu, offGpu),
                  fixes);
    }
    if (impossible)
      return;
    PlacementSolution solution = solveMinCut(graph.problem);
    // The cut is the best placement that uses the GPU but for the GPU's
    // per-call cost (call_us), the same for all of them, which no cut can
    // express; the only placement without it is all-CPU (no GPU-resident
    // value). The cheaper of the two is optimal.
    std::optional<double> callSaving;
    llvm::DenseSet<unsigned> movedByCall;
    if (double call = gpuCallCost(graph, solution.onGPU); call > 0) {
      std::vector<bool> allCPU(solution.onGPU.size());
      for (auto [node, fixed] : llvm::enumerate(graph.fixedSide))
        allCPU[node] = fixed.value_or(false);
      double cut = evaluatePlacement(graph.problem, solution.onGPU);
      double cpuOnly = evaluateFunctionPlacement(graph, allCPU);
      if (cpuOnly < kForbidden && cpuOnly < cut + call) {
        callSaving = cpuOnly - cut;
        for (auto [node, ops] : llvm::enumerate(graph.opsOf))
          if (solution.onGPU[node] && !ops.empty())
            movedByCall.insert(node);
        solution.onGPU = std::move(allCPU);
      }
    }
    MLIRContext *ctx = func->getContext();
    const DeviceSpec &cpu = target.getCPU();
    std::string gpuName = graph.gpu ? graph.gpu->name() : "";
    for (auto [node, ops] : llvm::enumerate(graph.opsOf)) {
      bool onGPU = solution.onGPU[node];
      // A node's GPU: a member's pin to a specific GPU, else the default one.
      DeviceAttr nodeGPU = graph.gpu ? graph.gpu->getAttr(ctx) : DeviceAttr();
      for (Operation *op : ops)
        if (DeviceAttr pin = getDevice(op); pin && pin.isGPU())
          nodeGPU = pin;
      for (Operation *op : ops) {
        std::string reason;
        DeviceAttr device;
        if (DeviceAttr pin = getDevice(op)) {
          device = pin;
          reason = "pinned";
        } else if (hostShapeOps.contains(op) && !onGPU) {
          device = cpu.getAttr(ctx);
          reason = kShapeReason;
        } else {
          device = onGPU ? nodeGPU : cpu.getAttr(ctx);
          bool gpuKernel = graph.gpu && hasKernelOn(op, *graph.gpu);
          if (!onGPU && !gpuKernel && graph.gpu) {
            reason = "no-kernel(" + gpuName + ", " + describeKernelDType(op) +
                     ")";
          } else {
            // The op's own figures; the node's when it is a colocation group.
            const PlacementProblem::Node &costs = graph.problem.nodes[node];
            double copy = 0;
            for (Value operand : op->getOperands())
              copy += target.copyTime(
                  gpuName, estimateBytes(operand.getType(), dynamicDimSize),
                  /*hostToDevice=*/!onGPU, copyMode);
            reason = "cost(cpu=" + usUnits(costs.cpuCost) +
                     ", gpu=" + usUnits(costs.gpuCost) +
                     ", copy=" + usUnits(copy) + ")";
            // The cut had it on the GPU; the function's per-call GPU cost
            // outweighed what the GPU saved.
            if (movedByCall.contains(node))
              reason += "; gpu-call(" + gpuName + "=" +
                        usUnits(graph.gpu->callLatency) + " > saving " +
                        usUnits(*callSaving) + ")";
          }
          StringRef group = getColocationGroup(op);
          if (!group.empty())
            reason = ("colocated(" + group + "); " + reason).str();
        }
        setDevice(op, device);
        setPlacementReason(op, withOrigin(op, reason));
      }
    }
  }
};

struct PlaceDevicesPass
    : public tide::impl::PlaceDevicesPassBase<PlaceDevicesPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *) override {
    warmTargetCache(target);
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(checkDynamicDimSize(module.getLoc(), dynamicDimSize)) ||
        failed(checkCpuThreads(module.getLoc(), cpuThreads)))
      return signalPassFailure();
    FailureOr<const Target *> loaded =
        resolveTarget(module, target, cpuThreads);
    if (failed(loaded))
      return signalPassFailure();
    const Target &resolved = **loaded;
    Placer placer{resolved, policy, dynamicDimSize, copyMode, remarks};
    if (failed(placer.checkDevices(module)))
      return signalPassFailure();
    for (auto func : module.getOps<FunctionOpInterface>()) {
      if (func.isExternal())
        continue;
      if (policy == PlacementPolicy::Cost && resolved.getFirstGPU())
        placer.placeByCost(func);
      else
        placer.placeByRules(func);
    }
    if (placer.violations)
      return signalPassFailure();
    if (failed(placeRegionBodies(module)))
      return signalPassFailure();
    // Later passes and tide-compile read the target from here.
    module->setAttr(TideDialect::getTargetAttrName(),
                    getTargetAttr(module.getContext(), resolved));
  }
};

struct VerifyPlacementPass
    : public tide::impl::VerifyPlacementPassBase<VerifyPlacementPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *) override {
    warmTargetCache(target);
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<const Target *> loaded = resolveTarget(module, target);
    if (failed(loaded))
      return signalPassFailure();
    PlacementPolicy parsedPolicy = policy;
    bool ok = true;
    llvm::DenseSet<Operation *> hostShapeOps = collectHostShapeOps(module);
    module->walk([&](Operation *op) {
      if (!isPlaceable(op))
        return;
      DeviceAttr device = getDevice(op);
      std::string problem;
      if (!device) {
        problem = "has no device; run tide-place-devices first";
      } else if (const DeviceSpec *spec = (*loaded)->getDevice(device)) {
        if (!hasKernelOn(op, *spec))
          problem = llvm::formatv("is on {0}, but target '{1}' has no {0} "
                                  "kernel for it",
                                  device.str(), (*loaded)->name);
        else if (parsedPolicy == PlacementPolicy::RequireGPU &&
                 device.isCPU() && !hostShapeOps.contains(op))
          problem = "is on the CPU but the policy is require-gpu";
      } else {
        problem = llvm::formatv("is on {0}, which is not a device of target "
                                "'{1}'",
                                device.str(), (*loaded)->name);
      }
      if (problem.empty())
        return;
      ok = false;
      op->emitError() << "'" << op->getName() << "' ("
                      << describeKernelDType(op) << ") " << problem << "; "
                      << fixesFor(op, parsedPolicy);
    });
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
