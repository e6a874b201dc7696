//===- DeviceReport.cpp - What Tide can do on this machine ----------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Calibrate/DeviceReport.h"

#include "CalibrateInternal.h"
#include "Json.h"
#include "tide/Support/NativeTarget.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

using namespace tide::calibrate;

// kKernelTableJSON: `tide-opt --tide-list-kernels=format=json` for a target
// with the native kernel tables (lib/Calibrate/CMakeLists.txt).
#include "KernelTable.inc"

namespace {

/// Per dtype: the ops that take it, those with a kernel on the device, and
/// those whose kernel is a library call.
struct DTypeKernels {
  std::vector<std::string> accepted, missing, library;
};

/// The kernel table of `device` ("cpu" or "cuda:0") by dtype, in the
/// table's dtype order.
std::vector<std::pair<std::string, DTypeKernels>>
kernelsOf(const std::string &device) {
  static const json::Value table = [] {
    json::Value value;
    std::string error;
    if (!json::parse(kKernelTableJSON, value, error))
      value = json::Value();
    return value;
  }();
  std::vector<std::pair<std::string, DTypeKernels>> result;
  const json::Value *dtypes = table.get("dtypes");
  const json::Value *ops = table.get("ops");
  if (!dtypes || !ops)
    return result;
  for (const json::Value &dtype : dtypes->array)
    result.emplace_back(dtype.string, DTypeKernels());
  for (const json::Value &op : ops->array) {
    const json::Value *name = op.get("name");
    const json::Value *kernels = op.get("kernels");
    const json::Value *table = kernels ? kernels->get(device) : nullptr;
    if (!name || !table)
      continue;
    for (auto &[dtype, entry] : result) {
      const json::Value *kind = table->get(dtype);
      if (!kind)
        continue; // the op does not take this dtype
      entry.accepted.push_back(name->string);
      if (kind->string == "none")
        entry.missing.push_back(name->string);
      else if (kind->string == "library")
        entry.library.push_back(name->string);
    }
  }
  return result;
}

std::string join(const std::vector<std::string> &items) {
  std::string out;
  for (const std::string &item : items)
    out += (out.empty() ? "" : ", ") + item;
  return out;
}

std::string gib(uint64_t bytes) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.1f GiB", bytes / double(1u << 30));
  return buffer;
}

/// "1:2", "1:64", or "1.10" for ratios that are no reciprocal.
std::string formatRatio(double ratio) {
  char buffer[32];
  double inverse = 1 / ratio;
  if (ratio < 1 && std::fabs(inverse - std::round(inverse)) < 0.05)
    std::snprintf(buffer, sizeof(buffer), "1:%.0f", inverse);
  else
    std::snprintf(buffer, sizeof(buffer), "%.2f", ratio);
  return buffer;
}

/// The lines of the kernel table of `device`, indented; `runs` starts the
/// table ("Tide runs there").
void printKernels(std::ostringstream &os, const std::string &device,
                  const std::string &runs) {
  auto table = kernelsOf(device);
  bool everything = true;
  std::map<std::string, std::vector<std::string>> libraryDTypes;
  for (auto &[dtype, entry] : table) {
    everything &= entry.missing.empty();
    for (const std::string &op : entry.library)
      libraryDTypes[op].push_back(dtype);
  }
  std::string library;
  for (auto &[op, dtypes] : libraryDTypes) {
    library += (library.empty() ? "" : "; ") + op + " on ";
    if (device != "cpu") {
      library += join(dtypes) + (op == "conv" ? " through cuDNN (1x1: cuBLAS)"
                                              : " through cuBLAS");
      continue;
    }
    // The CPU: f32 through oneDNN, the rest through OpenBLAS.
    std::vector<std::string> dnnl, blas;
    for (const std::string &dtype : dtypes)
      (dtype == "f32" ? dnnl : blas).push_back(dtype);
    if (!dnnl.empty())
      library += join(dnnl) + " through oneDNN" + (blas.empty() ? "" : ", ");
    if (!blas.empty())
      library += join(blas) + " through OpenBLAS";
  }
  if (table.empty()) {
    os << "        (Tide's kernel table is not available)\n";
    return;
  }
  if (everything) {
    os << "        Tide runs every op on every dtype it takes"
       << (library.empty() ? "" : " (" + library + ")") << "\n";
    return;
  }
  os << "        " << runs
     << " (ops with a kernel / ops that take the dtype):\n";
  for (auto &[dtype, entry] : table) {
    if (entry.accepted.empty())
      continue;
    char counts[64];
    std::snprintf(counts, sizeof(counts), "          %-5s %3zu/%zu",
                  dtype.c_str(), entry.accepted.size() - entry.missing.size(),
                  entry.accepted.size());
    os << counts;
    if (!entry.missing.empty())
      os << "  not: " << join(entry.missing);
    os << "\n";
  }
  if (!library.empty())
    os << "        library kernels: " << library << "\n";
}

/// The f64/f32 GEMM ratio of `device` in a calibration, or 0.
double measuredRatio(const json::Value &calibration,
                     const tide::runner::DeviceInfo &gpu) {
  const json::Value *devices = calibration.get("devices");
  if (!devices)
    return 0;
  for (const json::Value &device : devices->array) {
    const json::Value *id = device.get("id");
    const json::Value *description = device.get("description");
    const json::Value *peak = device.get("peak_gflops");
    if (!id || id->string != "cuda:" + std::to_string(gpu.index) || !peak)
      continue;
    // The same GPU (a calibration taken with other visible devices is not).
    if (!description || description->string.rfind(gpu.name, 0) != 0)
      return 0;
    const json::Value *f32 = peak->get("f32"), *f64 = peak->get("f64");
    if (f32 && f64 && f32->number > 0)
      return f64->number / f32->number;
  }
  return 0;
}

} // namespace

std::string tide::calibrate::formatDeviceReport(
    const std::vector<tide::runner::DeviceInfo> &devices,
    const std::string &note, const std::string &calibrationPath,
    const std::string &calibrationText) {
  std::ostringstream os;
  json::Value calibration;
  std::string error;
  if (!calibrationText.empty() &&
      !json::parse(calibrationText, calibration, error))
    calibration = json::Value();
  for (const tide::runner::DeviceInfo &device : devices) {
    if (!device.isGpu) {
      std::string from, threadsError;
      int threads = detail::getTideThreads(from, threadsError);
      os << "cpu     " << device.name << "\n";
      os << "        " << device.cores << " CPU"
         << (device.cores == 1 ? "" : "s") << ", " << gib(device.memoryBytes)
         << "; ";
      if (threads)
        os << "Tide's CPU code runs on " << threads << " thread"
           << (threads == 1 ? "" : "s") << " (" << from << ")\n";
      else
        os << threadsError << "\n";
      printKernels(os, "cpu", "Tide runs there");
      continue;
    }
    int sm = device.computeCapabilityMajor * 10 + device.computeCapabilityMinor;
    std::string capability = std::to_string(device.computeCapabilityMajor) +
                             "." +
                             std::to_string(device.computeCapabilityMinor);
    os << "cuda:" << device.index << "  " << device.name << "\n";
    os << "        compute capability " << capability << " (sm_" << sm << "), "
       << gib(device.memoryBytes) << ", " << device.cores
       << " multiprocessors\n";
    os << "        FP64:FP32 ";
    if (device.fp64PerFp32 > 0)
      os << formatRatio(device.fp64PerFp32)
         << " (CUDA cores, known for compute capability " << capability << ")";
    else
      os << "unknown for compute capability " << capability;
    if (double ratio = measuredRatio(calibration, device))
      os << "; GEMM f64:f32 " << formatRatio(ratio)
         << " measured by tide-calibrate (" << calibrationPath << ")";
    os << "\n";
    if (sm < 50 || sm > 120) {
      os << "        Tide cannot generate code for sm_" << sm
         << " (it targets sm_50 to sm_120): no op runs there\n";
      continue;
    }
    if (device.index > 0)
      os << "        not used: Tide's GPU code runs on cuda:0 only "
            "(CUDA_VISIBLE_DEVICES="
         << device.index << " makes this GPU cuda:0)\n";
    printKernels(os, "cuda:0",
                 device.index > 0 ? "as cuda:0, Tide would run there"
                                  : "Tide runs there");
  }
  if (!note.empty())
    os << "no GPU: " << note << "\n";
  return os.str();
}

std::string tide::calibrate::describeThisMachine() {
  std::string note;
  std::vector<tide::runner::DeviceInfo> devices = runner::listDevices(note);
  std::string problem;
  std::string path = getNativeTargetPath(problem);
  std::string text;
  if (!path.empty()) {
    if (std::ifstream file(path); file) {
      std::stringstream buffer;
      buffer << file.rdbuf();
      text = buffer.str();
    }
  }
  return formatDeviceReport(devices, note, path, text);
}
