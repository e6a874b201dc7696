//===- Target.cpp - Devices, kernel registry, target files ---------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Target/Target.h"

#include "tide/IR/TideOps.h"
#include "tide/Support/NativeTarget.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Regex.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <map>
#include <memory>
#include <mutex>

using namespace mlir;
using namespace mlir::tide;

//===----------------------------------------------------------------------===//
// KernelTable, DeviceSpec, Target
//===----------------------------------------------------------------------===//

KernelKind KernelTable::lookup(StringRef op, DType dtype) const {
  auto it = table.find(op);
  if (it == table.end())
    return KernelKind::None;
  return it->second[static_cast<unsigned>(dtype)];
}

void KernelTable::set(StringRef op, DType dtype, KernelKind kind) {
  auto [it, inserted] = table.try_emplace(op);
  if (inserted)
    it->second.fill(KernelKind::None);
  it->second[static_cast<unsigned>(dtype)] = kind;
}

std::string DeviceSpec::name() const {
  return kind == DeviceKind::CPU ? "cpu" : "cuda:" + std::to_string(ordinal);
}

/// The slowest positive rate of `rates`, 0 when none is.
/// The keys of `map` in order, for output that does not depend on hashing.
static std::vector<StringRef> sortedKeys(const llvm::StringMap<double> &map) {
  std::vector<StringRef> keys;
  for (const auto &entry : map)
    keys.push_back(entry.first());
  llvm::sort(keys);
  return keys;
}

static double slowestRate(const std::array<double, kNumDTypes> &rates) {
  double slowest = 0;
  for (double r : rates)
    if (r > 0 && (slowest <= 0 || r < slowest))
      slowest = r;
  return slowest;
}

double DeviceSpec::getRate(DType dtype, bool contraction) const {
  unsigned i = static_cast<unsigned>(dtype);
  if (!contraction && elementwiseFlops[i] > 0)
    return elementwiseFlops[i];
  if (peakFlops[i] > 0)
    return peakFlops[i];
  // Unknown rate for this dtype: assume the slowest rate listed.
  double elementwise = contraction ? 0 : slowestRate(elementwiseFlops);
  return elementwise > 0 ? elementwise : slowestRate(peakFlops);
}

double DeviceSpec::getConvRate(DType dtype) const {
  double rate = convFlops[static_cast<unsigned>(dtype)];
  return rate > 0 ? rate : getRate(dtype, /*contraction=*/true);
}

DeviceAttr DeviceSpec::getAttr(MLIRContext *ctx) const {
  return DeviceAttr::get(ctx, kind, ordinal);
}

const DeviceSpec *Target::getDevice(DeviceAttr device) const {
  if (!device)
    return nullptr;
  for (const DeviceSpec &spec : devices)
    if (spec.kind == device.getKind() && spec.ordinal == device.getOrdinal())
      return &spec;
  return nullptr;
}

const DeviceSpec *Target::getDevice(StringRef name) const {
  for (const DeviceSpec &spec : devices)
    if (spec.name() == name)
      return &spec;
  return nullptr;
}

const DeviceSpec *Target::getFirstGPU() const {
  for (const DeviceSpec &spec : devices)
    if (spec.isGPU())
      return &spec;
  return nullptr;
}

const LinkSpec *Target::getLink(StringRef device) const {
  for (const LinkSpec &link : links)
    if (link.device == device)
      return &link;
  return nullptr;
}

KernelKind Target::lookup(DeviceAttr device, StringRef op, DType dtype) const {
  const DeviceSpec *spec = getDevice(device);
  return spec ? spec->kernels.lookup(op, dtype) : KernelKind::None;
}

double Target::copyTime(StringRef gpu, double bytes, bool hostToDevice,
                        CopyMode mode) const {
  const LinkSpec *link = getLink(gpu);
  if (!link)
    return std::numeric_limits<double>::infinity();
  double bandwidth =
      hostToDevice
          ? (mode == CopyMode::Pinned ? link->h2dPinned : link->h2dPageable)
          : (mode == CopyMode::Pinned ? link->d2hPinned : link->d2hPageable);
  double latency = link->latency;
  if (bytes >= kStagedCopyBytes)
    latency += link->stagedLatency;
  return latency + bytes / bandwidth;
}

void Target::printKernelTable(llvm::raw_ostream &os) const {
  os << "target " << name << " (" << source << ")";
  if (!description.empty())
    os << ": " << description;
  os << "\n\ndevices:\n";
  for (const DeviceSpec &dev : devices) {
    os << llvm::formatv("  {0,-8} {1}{2}", dev.name(),
                        dev.chip.empty() ? "" : dev.chip + ", ",
                        dev.description);
    if (!dev.isGPU())
      os << llvm::formatv(" [{0} core{1}; figures for code on {2} thread{3}]",
                          dev.cores, dev.cores == 1 ? "" : "s", dev.threads,
                          dev.threads == 1 ? "" : "s");
    os << "\n";
    os << llvm::formatv("           bandwidth {0:f0} GB/s, launch {1:f1} us, ",
                        dev.memoryBandwidth / 1e9, dev.launchLatency * 1e6);
    if (dev.parallelLaunch > 0)
      os << llvm::formatv("parallel loops {0:f1} us, ",
                          dev.parallelLaunch * 1e6);
    if (dev.callLatency > 0)
      os << llvm::formatv("per call {0:f1} us, ", dev.callLatency * 1e6);
    if (llvm::any_of(dev.gemmOverhead, [](double t) { return t > 0; })) {
      os << "threaded GEMM us:";
      for (unsigned i = 0; i < kNumDTypes; ++i)
        if (dev.gemmOverhead[i] > 0)
          os << " " << stringifyDType(static_cast<DType>(i)) << "="
             << llvm::formatv("{0:f0}", dev.gemmOverhead[i] * 1e6);
      os << ", ";
    }
    os << "peak GFLOP/s:";
    for (unsigned i = 0; i < kNumDTypes; ++i)
      if (dev.peakFlops[i] > 0)
        os << " " << stringifyDType(static_cast<DType>(i)) << "="
           << llvm::formatv("{0:f0}", dev.peakFlops[i] / 1e9);
    os << "\n";
    if (llvm::any_of(dev.elementwiseFlops, [](double r) { return r > 0; })) {
      os << "           elementwise GFLOP/s:";
      for (unsigned i = 0; i < kNumDTypes; ++i)
        if (dev.elementwiseFlops[i] > 0)
          os << " " << stringifyDType(static_cast<DType>(i)) << "="
             << llvm::formatv("{0:f1}", dev.elementwiseFlops[i] / 1e9);
      os << "\n";
    }
    if (llvm::any_of(dev.convFlops, [](double r) { return r > 0; })) {
      os << "           convolution GFLOP/s:";
      for (unsigned i = 0; i < kNumDTypes; ++i)
        if (dev.convFlops[i] > 0)
          os << " " << stringifyDType(static_cast<DType>(i)) << "="
             << llvm::formatv("{0:f0}", dev.convFlops[i] / 1e9);
      os << "\n";
    }
    if (!dev.flopsPerElement.empty()) {
      os << "           FLOPs per element:";
      for (StringRef op : sortedKeys(dev.flopsPerElement))
        os << " " << op << "="
           << llvm::formatv("{0:f1}", dev.flopsPerElement.lookup(op));
      os << "\n";
    }
  }
  if (!links.empty()) {
    os << "\nlinks (GB/s: host->device pinned/pageable, device->host "
          "pinned/pageable; latency):\n";
    for (const LinkSpec &link : links) {
      os << llvm::formatv("  cpu <-> {0}: {1:f1}/{2:f1}, {3:f1}/{4:f1}; {5:f1} "
                          "us",
                          link.device, link.h2dPinned / 1e9,
                          link.h2dPageable / 1e9, link.d2hPinned / 1e9,
                          link.d2hPageable / 1e9, link.latency * 1e6);
      if (link.stagedLatency > 0)
        os << llvm::formatv(" (+{0:f1} us from 64 KiB: staged)",
                            link.stagedLatency * 1e6);
      os << "\n";
    }
  }
  os << "\nkernels (C = codegen, L = library, . = none, blank = the op has no "
        "such form):\n";
  os << llvm::formatv("  {0,-13}", "op");
  for (const DeviceSpec &dev : devices)
    os << llvm::formatv(" | {0,-45}", dev.name());
  os << "\n  " << std::string(13, ' ');
  for (size_t d = 0; d < devices.size(); ++d) {
    os << " | ";
    for (unsigned i = 0; i < kNumDTypes; ++i)
      os << llvm::formatv("{0,-5}", stringifyDType(static_cast<DType>(i)));
  }
  os << "\n";
  for (const std::string &op : getKnownOps()) {
    std::vector<DType> accepted = getAcceptedDTypes(op);
    os << llvm::formatv("  {0,-13}", op);
    for (const DeviceSpec &dev : devices) {
      os << " | ";
      for (unsigned i = 0; i < kNumDTypes; ++i) {
        auto dtype = static_cast<DType>(i);
        char c = ' ';
        if (llvm::is_contained(accepted, dtype)) {
          KernelKind kind = dev.kernels.lookup(op, dtype);
          c = kind == KernelKind::Codegen   ? 'C'
              : kind == KernelKind::Library ? 'L'
                                            : '.';
        }
        os << c << "    ";
      }
    }
    os << "\n";
  }
}

static StringRef stringifyKernelKind(KernelKind kind) {
  switch (kind) {
  case KernelKind::None:
    return "none";
  case KernelKind::Codegen:
    return "codegen";
  case KernelKind::Library:
    return "library";
  }
  llvm_unreachable("unknown kernel kind");
}

void Target::printKernelTableJSON(llvm::raw_ostream &os) const {
  llvm::json::OStream json(os, /*IndentSize=*/1);
  json.object([&] {
    json.attribute("target", name);
    json.attribute("source", source);
    json.attribute("description", description);
    json.attributeArray("dtypes", [&] {
      for (unsigned i = 0; i < kNumDTypes; ++i)
        json.value(stringifyDType(static_cast<DType>(i)));
    });
    json.attributeArray("devices", [&] {
      for (const DeviceSpec &dev : devices)
        json.object([&] {
          json.attribute("name", dev.name());
          json.attribute("chip", dev.chip);
          json.attribute("description", dev.description);
          json.attribute("memory_bandwidth", dev.memoryBandwidth);
          json.attribute("launch_latency", dev.launchLatency);
          if (!dev.isGPU()) {
            json.attribute("cores", dev.cores);
            json.attribute("threads", dev.threads);
            json.attribute("parallel_launch", dev.parallelLaunch);
            if (llvm::any_of(dev.gemmOverhead, [](double t) { return t > 0; }))
              json.attributeObject("gemm_overhead", [&] {
                for (unsigned i = 0; i < kNumDTypes; ++i)
                  if (dev.gemmOverhead[i] > 0)
                    json.attribute(stringifyDType(static_cast<DType>(i)),
                                   dev.gemmOverhead[i]);
              });
          } else {
            json.attribute("call_latency", dev.callLatency);
          }
          json.attributeObject("peak_flops", [&] {
            for (unsigned i = 0; i < kNumDTypes; ++i)
              if (dev.peakFlops[i] > 0)
                json.attribute(stringifyDType(static_cast<DType>(i)),
                               dev.peakFlops[i]);
          });
          if (llvm::any_of(dev.elementwiseFlops,
                           [](double r) { return r > 0; }))
            json.attributeObject("elementwise_flops", [&] {
              for (unsigned i = 0; i < kNumDTypes; ++i)
                if (dev.elementwiseFlops[i] > 0)
                  json.attribute(stringifyDType(static_cast<DType>(i)),
                                 dev.elementwiseFlops[i]);
            });
          if (llvm::any_of(dev.convFlops, [](double r) { return r > 0; }))
            json.attributeObject("conv_flops", [&] {
              for (unsigned i = 0; i < kNumDTypes; ++i)
                if (dev.convFlops[i] > 0)
                  json.attribute(stringifyDType(static_cast<DType>(i)),
                                 dev.convFlops[i]);
            });
          if (!dev.flopsPerElement.empty())
            json.attributeObject("flops_per_element", [&] {
              for (StringRef op : sortedKeys(dev.flopsPerElement))
                json.attribute(op, dev.flopsPerElement.lookup(op));
            });
        });
    });
    json.attributeArray("links", [&] {
      for (const LinkSpec &link : links)
        json.object([&] {
          json.attribute("device", link.device);
          json.attribute("h2d_pinned", link.h2dPinned);
          json.attribute("h2d_pageable", link.h2dPageable);
          json.attribute("d2h_pinned", link.d2hPinned);
          json.attribute("d2h_pageable", link.d2hPageable);
          json.attribute("latency", link.latency);
          json.attribute("staged_latency", link.stagedLatency);
        });
    });
    json.attributeArray("ops", [&] {
      for (const OpFacts &facts : getAllOpFacts()) {
        if (!facts.isPlaceable())
          continue;
        std::vector<DType> accepted = getAcceptedDTypes(facts.name);
        json.object([&] {
          json.attribute("name", facts.name);
          json.attribute("element_kind",
                         stringifyElementKind(facts.elementKind));
          json.attribute("group", stringifyKernelGroup(facts.kernelGroup));
          json.attribute("family",
                         stringifyLoweringFamily(facts.loweringFamily));
          json.attribute("flops_per_element", facts.flopsPerElement);
          json.attributeArray("decomposes_into", [&] {
            for (StringRef part : facts.decomposition)
              json.value(part);
          });
          json.attributeArray("dtypes", [&] {
            for (DType dtype : accepted)
              json.value(stringifyDType(dtype));
          });
          json.attributeObject("kernels", [&] {
            for (const DeviceSpec &dev : devices)
              json.attributeObject(dev.name(), [&] {
                for (DType dtype : accepted)
                  json.attribute(stringifyDType(dtype),
                                 stringifyKernelKind(
                                     dev.kernels.lookup(facts.name, dtype)));
              });
          });
        });
      }
    });
  });
  os << "\n";
}

//===----------------------------------------------------------------------===//
// Target files
//===----------------------------------------------------------------------===//

/// "i1, i8, ..., f64": the dtype names a target file may use.
static std::string dtypeChoices() {
  std::string s;
  for (unsigned i = 0; i < kNumDTypes; ++i)
    s += (i ? ", " : "") + stringifyDType(static_cast<DType>(i)).str();
  return s;
}

namespace {
/// Strict reader of one target file: every error names the file and the key.
class TargetParser {
public:
  TargetParser(StringRef source) : source(source.str()) {}

  llvm::Expected<Target> parse(StringRef text);

private:
  llvm::Error error(const llvm::Twine &path, const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   source + ": " + path + ": " + message);
  }
  llvm::Error checkKeys(const llvm::json::Object &object,
                        const std::string &path,
                        llvm::ArrayRef<StringRef> allowed);
  llvm::Expected<double> getNumber(const llvm::json::Object &object,
                                   const std::string &path, StringRef key,
                                   bool required, double fallback,
                                   bool positive);
  llvm::Expected<std::string> getString(const llvm::json::Object &object,
                                        const std::string &path, StringRef key,
                                        bool required);
  llvm::Error parseRates(const llvm::json::Object &object,
                         const std::string &path, StringRef key,
                         std::array<double, kNumDTypes> &rates,
                         double scale = 1e9, bool positive = true,
                         StringRef unit = "GFLOP/s");
  llvm::Error parseDevice(const llvm::json::Value &value,
                          const std::string &path, DeviceSpec &device);
  llvm::Error parseKernels(const llvm::json::Object &object,
                           const std::string &path, DeviceSpec &device);
  llvm::Error applyRules(const llvm::json::Value *rules,
                         const std::string &path, DeviceSpec &device,
                         bool allow);
  llvm::Error parseLink(const llvm::json::Value &value,
                        const std::string &path, LinkSpec &link);

  std::string source;
};
} // namespace

llvm::Error TargetParser::checkKeys(const llvm::json::Object &object,
                                   const std::string &path,
                                   llvm::ArrayRef<StringRef> allowed) {
  for (const auto &entry : object) {
    StringRef key = entry.first;
    if (!llvm::is_contained(allowed, key)) {
      std::string list;
      llvm::raw_string_ostream os(list);
      llvm::interleave(allowed, os, ", ");
      return error(path.empty() ? key.str() : path + "." + key.str(),
                   "unknown key; expected one of: " + list);
    }
  }
  return llvm::Error::success();
}

llvm::Expected<double>
TargetParser::getNumber(const llvm::json::Object &object,
                        const std::string &path, StringRef key, bool required,
                        double fallback, bool positive) {
  const llvm::json::Value *value = object.get(key);
  std::string where = path + "." + key.str();
  if (!value) {
    if (required)
      return error(where, "missing (a number is required)");
    return fallback;
  }
  std::optional<double> number = value->getAsNumber();
  if (!number)
    return error(where, "must be a number");
  if (*number < 0 || (positive && *number == 0) || !std::isfinite(*number))
    return error(where, positive ? "must be a positive number"
                                 : "must be a non-negative number");
  return *number;
}

llvm::Expected<std::string>
TargetParser::getString(const llvm::json::Object &object,
                        const std::string &path, StringRef key, bool required) {
  const llvm::json::Value *value = object.get(key);
  std::string where = path.empty() ? key.str() : path + "." + key.str();
  if (!value) {
    if (required)
      return error(where, "missing (a string is required)");
    return std::string();
  }
  std::optional<StringRef> text = value->getAsString();
  if (!text)
    return error(where, "must be a string");
  return text->str();
}

llvm::Error TargetParser::applyRules(const llvm::json::Value *rules,
                                     const std::string &path,
                                     DeviceSpec &device, bool allow) {
  if (!rules)
    return llvm::Error::success();
  const llvm::json::Array *array = rules->getAsArray();
  if (!array)
    return error(path, "must be an array of {\"ops\": [...], \"dtypes\": "
                       "[...]} rules");
  for (auto [i, rule] : llvm::enumerate(*array)) {
    std::string rulePath = path + "[" + std::to_string(i) + "]";
    const llvm::json::Object *object = rule.getAsObject();
    if (!object)
      return error(rulePath, "must be an object");
    if (auto err = checkKeys(*object, rulePath, {"ops", "dtypes"}))
      return err;
    const llvm::json::Array *ops = object->getArray("ops");
    if (!ops)
      return error(rulePath + ".ops",
                   "missing or not an array (op names or groups such as "
                   "\"@all\", \"@elementwise\", \"@reductions\")");
    // Ops, each remembered with whether it was named explicitly.
    std::vector<std::pair<std::string, bool>> names;
    for (auto [j, op] : llvm::enumerate(*ops)) {
      std::string opPath = rulePath + ".ops[" + std::to_string(j) + "]";
      std::optional<StringRef> name = op.getAsString();
      if (!name)
        return error(opPath, "must be a string");
      if (name->starts_with("@")) {
        std::vector<std::string> expanded;
        if (!expandOpGroup(*name, expanded))
          return error(opPath, "unknown op group '" + *name +
                                   "'; groups are @all, @elementwise, "
                                   "@matmul, @reductions, @shape, "
                                   "@composite, @constant");
        for (std::string &e : expanded)
          names.emplace_back(std::move(e), false);
        continue;
      }
      if (getAcceptedDTypes(*name).empty())
        return error(opPath, "unknown op '" + *name +
                                 "' (write op names without the 'tide.' "
                                 "prefix, e.g. \"reduce_mean\")");
      names.emplace_back(name->str(), true);
    }
    std::vector<DType> dtypes;
    bool explicitDTypes = false;
    if (const llvm::json::Value *list = object->get("dtypes")) {
      const llvm::json::Array *array = list->getAsArray();
      if (!array)
        return error(rulePath + ".dtypes", "must be an array of dtype names");
      explicitDTypes = true;
      for (auto [j, dt] : llvm::enumerate(*array)) {
        std::optional<StringRef> name = dt.getAsString();
        std::optional<DType> dtype =
            name ? symbolizeDType(*name) : std::nullopt;
        if (!dtype)
          return error(rulePath + ".dtypes[" + std::to_string(j) + "]",
                       "unknown dtype; expected one of " + dtypeChoices());
        dtypes.push_back(*dtype);
      }
    } else {
      for (unsigned k = 0; k < kNumDTypes; ++k)
        dtypes.push_back(static_cast<DType>(k));
    }
    for (auto &[op, named] : names) {
      std::vector<DType> accepted = getAcceptedDTypes(op);
      for (DType dtype : dtypes) {
        if (!llvm::is_contained(accepted, dtype)) {
          if (named && explicitDTypes)
            return error(rulePath, "op '" + op + "' has no " +
                                       stringifyDType(dtype) +
                                       " form (the dialect rejects it)");
          continue;
        }
        if (!allow) {
          device.kernels.set(op, dtype, KernelKind::None);
          continue;
        }
        KernelKind native = getNativeKernel(device.kind, op, dtype);
        if (native == KernelKind::None) {
          if (!named)
            continue; // A group only grants what can exist.
          return error(rulePath,
                       "claims a kernel Tide cannot generate: '" + op +
                           "' on " + stringifyDType(dtype) + " for " +
                           device.name() + " (Tide's " +
                           (device.isGPU() ? "GPU" : "CPU") +
                           " lowering has no such kernel)");
        }
        device.kernels.set(op, dtype, native);
      }
    }
  }
  return llvm::Error::success();
}

llvm::Error TargetParser::parseKernels(const llvm::json::Object &object,
                                       const std::string &path,
                                       DeviceSpec &device) {
  if (auto err = checkKeys(object, path, {"base", "allow", "deny"}))
    return err;
  auto base = getString(object, path, "base", /*required=*/false);
  if (!base)
    return base.takeError();
  if (base->empty())
    *base = "native";
  if (*base != "native" && *base != "none")
    return error(path + ".base", "must be \"native\" (every kernel Tide can "
                                 "generate) or \"none\"");
  if (*base == "native")
    for (const std::string &op : getKnownOps())
      for (DType dtype : getAcceptedDTypes(op))
        device.kernels.set(op, dtype, getNativeKernel(device.kind, op, dtype));
  if (auto err = applyRules(object.get("allow"), path + ".allow", device,
                            /*allow=*/true))
    return err;
  return applyRules(object.get("deny"), path + ".deny", device,
                    /*allow=*/false);
}

/// An optional object of dtype -> GFLOP/s (`key` of `object`) into `rates`
/// (FLOP/s). Unsigned integers take the rate of the signed ones of their
/// width unless the object names them.
llvm::Error TargetParser::parseRates(const llvm::json::Object &object,
                                     const std::string &path, StringRef key,
                                     std::array<double, kNumDTypes> &rates,
                                     double scale, bool positive,
                                     StringRef unit) {
  const llvm::json::Value *value = object.get(key);
  if (!value)
    return llvm::Error::success();
  std::string where = path + "." + key.str();
  const llvm::json::Object *rateObject = value->getAsObject();
  if (!rateObject)
    return error(where, "must be an object of dtype -> " + unit.str());
  for (const auto &entry : *rateObject) {
    std::optional<DType> dtype = symbolizeDType(entry.first);
    if (!dtype)
      return error(where + "." + entry.first.str(),
                   "unknown dtype; expected one of " + dtypeChoices());
    auto number = getNumber(*rateObject, where, entry.first, true, 0, positive);
    if (!number)
      return number.takeError();
    rates[static_cast<unsigned>(*dtype)] = *number * scale;
  }
  for (auto [u, s] :
       {std::pair(DType::UI8, DType::I8), std::pair(DType::UI16, DType::I16),
        std::pair(DType::UI32, DType::I32), std::pair(DType::UI64, DType::I64)})
    if (!rateObject->get(stringifyDType(u)))
      rates[static_cast<unsigned>(u)] = rates[static_cast<unsigned>(s)];
  return llvm::Error::success();
}

llvm::Error TargetParser::parseDevice(const llvm::json::Value &value,
                                      const std::string &path,
                                      DeviceSpec &device) {
  const llvm::json::Object *object = value.getAsObject();
  if (!object)
    return error(path, "must be an object");
  if (auto err = checkKeys(
          *object, path,
          {"id", "chip", "description", "peak_gflops", "elementwise_gflops",
           "conv_gflops", "flops_per_element", "bandwidth_gbps", "launch_us",
           "cores", "core_bandwidth_gbps", "parallel_launch_us",
           "gemm_overhead_us", "call_us", "kernels"}))
    return err;
  auto id = getString(*object, path, "id", /*required=*/true);
  if (!id)
    return id.takeError();
  if (*id == "cpu") {
    device.kind = DeviceKind::CPU;
  } else {
    StringRef rest = *id;
    unsigned ordinal;
    if (!rest.consume_front("cuda:") || rest.getAsInteger(10, ordinal) ||
        ordinal >= 64)
      return error(path + ".id", "'" + *id +
                                     "' is not a device; expected \"cpu\" or "
                                     "\"cuda:N\" with 0 <= N < 64");
    device.kind = DeviceKind::CUDA;
    device.ordinal = ordinal;
  }
  auto chip = getString(*object, path, "chip", device.isGPU());
  if (!chip)
    return chip.takeError();
  if (device.isGPU()) {
    llvm::Regex smRegex("^sm_([0-9]+)a?$");
    llvm::SmallVector<StringRef> groups;
    unsigned sm = 0;
    if (!smRegex.match(*chip, &groups) || groups[1].getAsInteger(10, sm) ||
        sm < 50 || sm > 120)
      return error(path + ".chip",
                   "'" + *chip +
                       "' is not a CUDA architecture Tide can target; expected "
                       "sm_50 .. sm_120 (e.g. \"sm_90\")");
  } else if (!chip->empty()) {
    return error(path + ".chip", "only GPU devices have a chip");
  }
  device.chip = *chip;
  auto description = getString(*object, path, "description", false);
  if (!description)
    return description.takeError();
  device.description = *description;

  auto bandwidth = getNumber(*object, path, "bandwidth_gbps", true, 0, true);
  if (!bandwidth)
    return bandwidth.takeError();
  device.memoryBandwidth = *bandwidth * 1e9;
  auto launch = getNumber(*object, path, "launch_us", true, 0, false);
  if (!launch)
    return launch.takeError();
  device.launchLatency = *launch * 1e-6;
  if (device.isGPU()) {
    for (StringRef key : {"cores", "core_bandwidth_gbps", "parallel_launch_us",
                          "gemm_overhead_us"})
      if (object->get(key))
        return error(path + "." + key.str(), "only the CPU has this figure");
    auto call = getNumber(*object, path, "call_us", false, 0, false);
    if (!call)
      return call.takeError();
    device.callLatency = *call * 1e-6;
  } else {
    if (object->get("call_us"))
      return error(path + ".call_us", "only GPUs have this figure");
    auto cores = getNumber(*object, path, "cores", false, 1, true);
    if (!cores)
      return cores.takeError();
    if (*cores != std::floor(*cores) || *cores > 4096)
      return error(path + ".cores", "must be a whole number from 1 to 4096");
    device.cores = static_cast<unsigned>(*cores);
    device.threads = device.cores;
    auto core = getNumber(*object, path, "core_bandwidth_gbps", false,
                          *bandwidth / device.cores, true);
    if (!core)
      return core.takeError();
    device.coreBandwidth = std::min(*core, *bandwidth) * 1e9;
    auto parallel =
        getNumber(*object, path, "parallel_launch_us", false, 0, false);
    if (!parallel)
      return parallel.takeError();
    device.parallelLaunch = *parallel * 1e-6;
    if (auto err =
            parseRates(*object, path, "gemm_overhead_us", device.gemmOverhead,
                       1e-6, /*positive=*/false, "microseconds"))
      return err;
  }

  if (!object->get("peak_gflops"))
    return error(path + ".peak_gflops",
                 "missing (an object of dtype -> GFLOP/s, e.g. {\"f32\": "
                 "51000})");
  if (auto err = parseRates(*object, path, "peak_gflops", device.peakFlops))
    return err;
  if (auto err = parseRates(*object, path, "elementwise_gflops",
                            device.elementwiseFlops))
    return err;
  if (auto err = parseRates(*object, path, "conv_gflops", device.convFlops))
    return err;
  if (const llvm::json::Value *perElement = object->get("flops_per_element")) {
    std::string where = path + ".flops_per_element";
    const llvm::json::Object *ops = perElement->getAsObject();
    if (!ops)
      return error(where, "must be an object of op name -> FLOPs per element "
                          "(e.g. {\"tanh\": 30})");
    for (const auto &entry : *ops) {
      StringRef op = entry.first;
      if (getAcceptedDTypes(op).empty())
        return error(where + "." + op.str(),
                     "unknown op '" + op.str() +
                         "' (write op names without the 'tide.' prefix, "
                         "e.g. \"tanh\")");
      auto flops = getNumber(*ops, where, op, true, 0, /*positive=*/true);
      if (!flops)
        return flops.takeError();
      device.flopsPerElement[op] = *flops;
    }
  }

  if (const llvm::json::Value *kernels = object->get("kernels")) {
    const llvm::json::Object *kernelObject = kernels->getAsObject();
    if (!kernelObject)
      return error(path + ".kernels", "must be an object with \"base\", "
                                      "\"allow\" and \"deny\"");
    return parseKernels(*kernelObject, path + ".kernels", device);
  }
  llvm::json::Object nativeAll;
  return parseKernels(nativeAll, path + ".kernels", device);
}

llvm::Error TargetParser::parseLink(const llvm::json::Value &value,
                                    const std::string &path, LinkSpec &link) {
  const llvm::json::Object *object = value.getAsObject();
  if (!object)
    return error(path, "must be an object");
  if (auto err = checkKeys(*object, path,
                           {"device", "h2d_pinned_gbps", "h2d_pageable_gbps",
                            "d2h_pinned_gbps", "d2h_pageable_gbps",
                            "latency_us", "staged_latency_us"}))
    return err;
  auto device = getString(*object, path, "device", true);
  if (!device)
    return device.takeError();
  link.device = *device;
  struct Field {
    StringRef key;
    double *out;
    double scale;
    bool positive;
  } fields[] = {{"h2d_pinned_gbps", &link.h2dPinned, 1e9, true},
                {"h2d_pageable_gbps", &link.h2dPageable, 1e9, true},
                {"d2h_pinned_gbps", &link.d2hPinned, 1e9, true},
                {"d2h_pageable_gbps", &link.d2hPageable, 1e9, true},
                {"latency_us", &link.latency, 1e-6, false}};
  for (Field &field : fields) {
    auto number = getNumber(*object, path, field.key, true, 0, field.positive);
    if (!number)
      return number.takeError();
    *field.out = *number * field.scale;
  }
  auto staged = getNumber(*object, path, "staged_latency_us", false, 0, false);
  if (!staged)
    return staged.takeError();
  link.stagedLatency = *staged * 1e-6;
  return llvm::Error::success();
}

llvm::Expected<Target> TargetParser::parse(StringRef text) {
  // LLVM's parser recurses per level: a file nested thousands deep would
  // overflow the stack. A target file needs a handful of levels.
  {
    constexpr int kMaxDepth = 64;
    int depth = 0;
    bool inString = false, escaped = false;
    for (char c : text) {
      if (inString) {
        if (escaped)
          escaped = false;
        else if (c == '\\')
          escaped = true;
        else if (c == '"')
          inString = false;
        continue;
      }
      if (c == '"')
        inString = true;
      else if (c == '[' || c == '{')
        ++depth;
      else if (c == ']' || c == '}')
        --depth;
      if (depth > kMaxDepth)
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            source + ": invalid JSON: nested more than " +
                std::to_string(kMaxDepth) + " levels deep");
    }
  }
  llvm::Expected<llvm::json::Value> root = llvm::json::parse(text);
  if (!root)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   source + ": invalid JSON: " +
                                       llvm::toString(root.takeError()));
  const llvm::json::Object *object = root->getAsObject();
  if (!object)
    return error("(top level)", "must be a JSON object");
  if (auto err =
          checkKeys(*object, "", {"name", "description", "devices", "links"}))
    return std::move(err);
  Target target;
  target.source = source;
  auto name = getString(*object, "", "name", true);
  if (!name)
    return name.takeError();
  target.name = *name;
  auto description = getString(*object, "", "description", false);
  if (!description)
    return description.takeError();
  target.description = *description;

  const llvm::json::Array *devices = object->getArray("devices");
  if (!devices || devices->empty())
    return error("devices", "missing or empty; list the CPU first, then any "
                            "GPUs");
  llvm::StringSet<> seen;
  for (auto [i, value] : llvm::enumerate(*devices)) {
    std::string path = "devices[" + std::to_string(i) + "]";
    DeviceSpec device;
    if (auto err = parseDevice(value, path, device))
      return std::move(err);
    if (i == 0 && device.isGPU())
      return error(path + ".id", "the first device must be the host \"cpu\"");
    if (i > 0 && !device.isGPU())
      return error(path + ".id", "only one \"cpu\" device is allowed");
    if (!seen.insert(device.name()).second)
      return error(path + ".id", "device '" + device.name() +
                                     "' is listed twice");
    target.devices.push_back(std::move(device));
  }

  if (const llvm::json::Value *links = object->get("links")) {
    const llvm::json::Array *array = links->getAsArray();
    if (!array)
      return error("links", "must be an array");
    for (auto [i, value] : llvm::enumerate(*array)) {
      std::string path = "links[" + std::to_string(i) + "]";
      LinkSpec link;
      if (auto err = parseLink(value, path, link))
        return std::move(err);
      const DeviceSpec *device = target.getDevice(link.device);
      if (!device || !device->isGPU())
        return error(path + ".device", "'" + link.device +
                                           "' is not a GPU of this target");
      if (target.getLink(link.device))
        return error(path + ".device", "a second link for '" + link.device +
                                           "'");
      target.links.push_back(std::move(link));
    }
  }
  for (const DeviceSpec &device : target.devices)
    if (device.isGPU() && !target.getLink(device.name()))
      return error("links", "no link figures for '" + device.name() +
                                "' (host<->device copy bandwidth is needed "
                                "to place ops)");
  return target;
}

llvm::Expected<Target> mlir::tide::parseTarget(StringRef json,
                                               StringRef source) {
  return TargetParser(source).parse(json);
}

//===----------------------------------------------------------------------===//
// Built-in targets (the JSON files of targets/, compiled in)
//===----------------------------------------------------------------------===//

namespace {
struct BuiltinTarget {
  const char *name;
  const char *json;
};
} // namespace

#include "BuiltinTargets.inc"

std::vector<std::string> mlir::tide::getBuiltinTargetNames() {
  std::vector<std::string> names;
  for (const BuiltinTarget &target : kBuiltinTargets)
    names.push_back(target.name);
  return names;
}

/// This machine's calibration (`native`): the file tide-calibrate writes.
static llvm::Expected<Target> loadNativeTarget() {
  std::string problem;
  std::string path = ::tide::getNativeTargetPath(problem);
  if (path.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "target 'native': " + problem);
  if (!llvm::sys::fs::exists(path))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "target 'native': this machine (" + ::tide::getHostNameForFiles() +
            ") has not been calibrated (no " + path +
            "); run tide-calibrate to measure it (a few minutes), or choose "
            "another target");
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "target 'native': cannot read '" + path +
                                       "': " + buffer.getError().message());
  return parseTarget((*buffer)->getBuffer(), path);
}

llvm::Expected<Target> mlir::tide::loadTarget(StringRef nameOrPath) {
  for (const BuiltinTarget &builtin : kBuiltinTargets) {
    if (nameOrPath != builtin.name)
      continue;
    auto target = parseTarget(builtin.json,
                              std::string("built-in target '") + builtin.name +
                                  "'");
    if (target)
      target->source = "built-in";
    return target;
  }
  if (nameOrPath == ::tide::kNativeTargetName)
    return loadNativeTarget();
  if (!nameOrPath.contains('/') && !nameOrPath.ends_with(".json")) {
    std::string names;
    llvm::raw_string_ostream os(names);
    llvm::interleave(getBuiltinTargetNames(), os, ", ");
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "unknown target '" + nameOrPath.str() + "'; built-in targets are " +
            names +
            "; 'native' is this machine as tide-calibrate measured "
            "it; or give the path of a .json target file");
  }
  auto buffer = llvm::MemoryBuffer::getFile(nameOrPath);
  if (!buffer)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot read target file '" +
                                       nameOrPath.str() +
                                       "': " + buffer.getError().message());
  return parseTarget((*buffer)->getBuffer(), nameOrPath);
}

//===----------------------------------------------------------------------===//
// Loaded targets and the target recorded in the IR
//===----------------------------------------------------------------------===//

llvm::Expected<const Target *> mlir::tide::getTarget(StringRef nameOrPath) {
  static std::mutex mutex;
  static llvm::StringMap<std::unique_ptr<Target>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(nameOrPath);
  if (it != cache.end())
    return it->second.get();
  llvm::Expected<Target> loaded = loadTarget(nameOrPath);
  if (!loaded)
    return loaded.takeError();
  auto &slot = cache[nameOrPath];
  slot = std::make_unique<Target>(std::move(*loaded));
  return slot.get();
}

const Target *mlir::tide::getTargetWithCpuThreads(const Target *base,
                                                  unsigned threads) {
  const DeviceSpec &cpu = base->getCPU();
  if (threads == 0 || threads == cpu.threads)
    return base;
  static std::mutex mutex;
  static std::map<std::pair<const Target *, unsigned>, std::unique_ptr<Target>>
      cache;
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<Target> &slot = cache[{base, threads}];
  if (slot)
    return slot.get();
  slot = std::make_unique<Target>(*base);
  DeviceSpec &scaled = slot->devices.front();
  double used = std::min(threads, cpu.cores);
  double fraction = used / std::min(cpu.threads, cpu.cores);
  for (double &peak : scaled.peakFlops)
    peak *= fraction;
  for (double &rate : scaled.elementwiseFlops)
    rate *= fraction;
  for (double &rate : scaled.convFlops)
    rate *= fraction;
  // The loaded figures are those of min(cpu.threads, cores) threads.
  double allCores = cpu.memoryBandwidth;
  scaled.memoryBandwidth = std::min(allCores, used * cpu.coreBandwidth);
  scaled.threads = threads;
  return slot.get();
}

void mlir::tide::warmTargetCache(StringRef nameOrPath) {
  if (nameOrPath.empty())
    return;
  if (llvm::Expected<const Target *> target = getTarget(nameOrPath); !target)
    llvm::consumeError(target.takeError());
}

TargetAttr mlir::tide::getTargetAttr(MLIRContext *ctx, const Target &target) {
  Builder b(ctx);
  SmallVector<NamedAttribute> chips;
  for (const DeviceSpec &device : target.devices)
    chips.push_back(
        b.getNamedAttr(device.name(), b.getStringAttr(device.chip)));
  // A file target is recorded by its absolute path, so that later tools
  // find it from any directory.
  SmallString<256> source(target.source);
  if (target.source != "built-in")
    (void)llvm::sys::fs::make_absolute(source);
  return TargetAttr::get(ctx, target.name, source, b.getDictionaryAttr(chips));
}

/// Where the target recorded in `attr` is loaded from.
static StringRef sourceOf(TargetAttr attr) {
  return attr.getSource() == "built-in" ? attr.getName() : attr.getSource();
}

static FailureOr<const Target *> resolveRecordedTarget(ModuleOp module,
                                                       StringRef override);

FailureOr<const Target *> mlir::tide::resolveTarget(ModuleOp module,
                                                    StringRef override,
                                                    unsigned cpuThreads) {
  FailureOr<const Target *> resolved = resolveRecordedTarget(module, override);
  if (failed(resolved) || cpuThreads == 0)
    return resolved;
  return getTargetWithCpuThreads(*resolved, cpuThreads);
}

static FailureOr<const Target *> resolveRecordedTarget(ModuleOp module,
                                                       StringRef override) {
  Location loc = module.getLoc();
  auto recorded =
      module->getAttrOfType<TargetAttr>(TideDialect::getTargetAttrName());
  const Target *fromOption = nullptr;
  if (!override.empty()) {
    llvm::Expected<const Target *> loaded = getTarget(override);
    if (!loaded)
      return emitError(loc) << "invalid 'target' option: "
                            << llvm::toString(loaded.takeError());
    fromOption = *loaded;
  }
  if (!recorded) {
    if (fromOption)
      return fromOption;
    llvm::Expected<const Target *> loaded = getTarget(kDefaultTargetName);
    if (!loaded)
      return emitError(loc) << llvm::toString(loaded.takeError());
    return *loaded;
  }
  llvm::Expected<const Target *> loaded = getTarget(sourceOf(recorded));
  if (!loaded)
    return emitError(loc) << "the module's 'tide.target' (" << recorded
                          << "): " << llvm::toString(loaded.takeError());
  const Target *fromIR = *loaded;
  auto absolute = [](StringRef source) {
    SmallString<256> path(source);
    if (source != "built-in")
      (void)llvm::sys::fs::make_absolute(path);
    return std::string(path);
  };
  if (fromOption && (fromOption->name != fromIR->name ||
                     absolute(fromOption->source) != absolute(fromIR->source)))
    return emitError(loc)
           << "option target='" << override << "' disagrees with the target '"
           << fromIR->name << "' the module was placed for (its tide.target); "
           << "drop the option, or remove tide.target to place again";
  return fromIR;
}
