//===- TargetFile.cpp - A calibration as a target file --------------------===//
//
// Part of the Tide project.
//
// The target JSON tide-calibrate writes: the schema of targets/*.json (see
// lib/Target/Target.cpp, which reads it back strictly), with every figure
// measured. Also the summary printed for people, and writing files.
//
//===----------------------------------------------------------------------===//

#include "CalibrateInternal.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace tide::calibrate;

std::string detail::formatFigure(double value) {
  if (!(value > 0) || !std::isfinite(value))
    return "0";
  int decimals =
      std::max(0, 3 - static_cast<int>(std::floor(std::log10(value))));
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*f", decimals, value);
  return buffer;
}

namespace {

using detail::formatFigure;

/// `text` as a JSON string literal.
std::string quote(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof(buffer), "\\u%04x", c);
      out += buffer;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

/// {"f32": 123.4, ...} of the positive rates (FLOP/s -> GFLOP/s).
template <size_t N>
std::string rateObject(const std::array<const char *, N> &names,
                       const double *rates) {
  std::string out = "{";
  bool first = true;
  for (size_t i = 0; i < N; ++i) {
    if (!(rates[i] > 0))
      continue;
    out += std::string(first ? "" : ", ") + quote(names[i]) + ": " +
           formatFigure(rates[i] / 1e9);
    first = false;
  }
  return out + "}";
}

constexpr std::array<const char *, TIDE_CALIBRATE_NUM_GEMM> kGpuDTypes = {
    "f16", "bf16", "f32", "f64"};

std::string gib(uint64_t bytes) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.1f GiB", bytes / double(1u << 30));
  return buffer;
}

std::string chipOf(const tide::runner::DeviceInfo &device) {
  return "sm_" + std::to_string(device.computeCapabilityMajor) +
         std::to_string(device.computeCapabilityMinor);
}

} // namespace

std::string tide::calibrate::toTargetJSON(const Calibration &c) {
  const CpuFigures &cpu = c.cpu;
  std::ostringstream os;
  std::string cpuWhat = cpu.name + ", " + std::to_string(cpu.threads) +
                        " thread" + (cpu.threads == 1 ? "" : "s");
  std::string what = cpuWhat;
  for (const GpuFigures &gpu : c.gpus)
    what += "; cuda:0 " + gpu.device.name;
  os << "{\n";
  os << "  \"name\": " << quote(getMachineName(c)) << ",\n";
  os << "  \"description\": "
     << quote("Measured by tide-calibrate on " + c.host + ", " + c.date +
              (c.quick ? " (--quick: tiny sizes, not for real use)" : "") +
              ": " + what)
     << ",\n";
  os << "  \"devices\": [\n";
  os << "    {\n";
  os << "      \"id\": \"cpu\",\n";
  os << "      \"description\": "
     << quote(cpuWhat + " (" + cpu.threadsFrom +
              "); GEMM f32 through oneDNN, f64 through OpenBLAS, the rest "
              "through Tide's "
              "generated loops" +
              (cpu.kernels.empty() ? "" : " (" + cpu.kernels + ")"))
     << ",\n";
  os << "      \"peak_gflops\": " << rateObject(kCpuDTypes, cpu.gemm.data())
     << ",\n";
  os << "      \"elementwise_gflops\": "
     << rateObject(kCpuDTypes, cpu.elementwise.data()) << ",\n";
  if (cpu.convF32 > 0)
    os << "      \"conv_gflops\": {\"f32\": " << formatFigure(cpu.convF32 / 1e9)
       << "},\n";
  if (!cpu.flopsPerElement.empty()) {
    os << "      \"flops_per_element\": {";
    for (size_t i = 0; i < cpu.flopsPerElement.size(); ++i)
      os << (i ? ", " : "") << quote(cpu.flopsPerElement[i].first) << ": "
         << formatFigure(cpu.flopsPerElement[i].second);
    os << "},\n";
  }
  double bandwidth = cpu.bandwidth > 0 ? cpu.bandwidth : cpu.coreBandwidth;
  os << "      \"bandwidth_gbps\": " << formatFigure(bandwidth / 1e9) << ",\n";
  if (cpu.coreBandwidth > 0)
    os << "      \"core_bandwidth_gbps\": "
       << formatFigure(std::min(cpu.coreBandwidth, bandwidth) / 1e9) << ",\n";
  os << "      \"cores\": " << cpu.threads << ",\n";
  if (cpu.parallelLaunchSeconds > 0)
    os << "      \"parallel_launch_us\": "
       << formatFigure(cpu.parallelLaunchSeconds * 1e6) << ",\n";
  // What a kSmallGemmSize^3 product took beyond its FLOPs at the peak rate
  // and the start of a parallel loop (the cost model adds both).
  std::string overheads;
  for (size_t i = 0; i < kCpuDTypes.size(); ++i) {
    if (cpu.smallGemmSeconds[i] <= 0 || cpu.gemm[i] <= 0)
      continue;
    double flops = 2.0 * kSmallGemmSize * kSmallGemmSize * kSmallGemmSize;
    double over = std::max(0.0, cpu.smallGemmSeconds[i] - flops / cpu.gemm[i] -
                                    cpu.parallelLaunchSeconds);
    overheads += std::string(overheads.empty() ? "" : ", ") + "\"" +
                 kCpuDTypes[i] + "\": " + formatFigure(over * 1e6);
  }
  if (!overheads.empty())
    os << "      \"gemm_overhead_us\": {" << overheads << "},\n";
  os << "      \"launch_us\": " << formatFigure(cpu.callSeconds * 1e6) << "\n";
  os << "    }";
  for (const GpuFigures &gpu : c.gpus) {
    const TideGpuCalibration &m = gpu.measured;
    int64_t size = 0;
    for (int64_t s : m.gemmSize)
      size = std::max(size, s);
    os << ",\n    {\n";
    os << "      \"id\": \"cuda:0\",\n";
    os << "      \"chip\": " << quote(chipOf(gpu.device)) << ",\n";
    os << "      \"description\": "
       << quote(gpu.device.name + ", " + gib(gpu.device.memoryBytes) + ", " +
                std::to_string(gpu.device.cores) +
                " multiprocessors; GEMM through cuBLAS; a launch waited for: " +
                formatFigure(m.launchWaitSeconds * 1e6) + " us")
       << ",\n";
    os << "      \"peak_gflops\": " << rateObject(kGpuDTypes, m.gemmFlops)
       << ",\n";
    os << "      \"bandwidth_gbps\": " << formatFigure(m.copyBandwidth / 1e9)
       << ",\n";
    os << "      \"launch_us\": " << formatFigure(m.launchSeconds * 1e6)
       << ",\n";
    // A call that uses the GPU waits for its work at least once.
    os << "      \"call_us\": " << formatFigure(m.launchWaitSeconds * 1e6)
       << "\n";
    os << "    }";
  }
  os << "\n  ]";
  if (!c.gpus.empty()) {
    const TideGpuCalibration &m = c.gpus.front().measured;
    os << ",\n  \"links\": [\n";
    os << "    {\"device\": \"cuda:0\", \"h2d_pinned_gbps\": "
       << formatFigure(m.h2dPinned / 1e9)
       << ", \"h2d_pageable_gbps\": " << formatFigure(m.h2dPageable / 1e9)
       << ",\n     \"d2h_pinned_gbps\": " << formatFigure(m.d2hPinned / 1e9)
       << ", \"d2h_pageable_gbps\": " << formatFigure(m.d2hPageable / 1e9)
       << ", \"latency_us\": " << formatFigure(m.copyLatency * 1e6);
    if (m.stagedLatency > 0)
      os << ", \"staged_latency_us\": " << formatFigure(m.stagedLatency * 1e6);
    os << "}\n";
    os << "  ]";
  }
  os << "\n}\n";
  return os.str();
}

std::string tide::calibrate::formatSummary(const Calibration &c) {
  const CpuFigures &cpu = c.cpu;
  std::ostringstream os;
  auto rates = [&](const char *label, const auto &names, const double *values,
                   double scale, const char *unit) {
    os << "          " << label << " " << unit << ":";
    bool any = false;
    for (size_t i = 0; i < names.size(); ++i)
      if (values[i] > 0) {
        os << " " << names[i] << " " << formatFigure(values[i] / scale);
        any = true;
      }
    os << (any ? "\n" : " not measured\n");
  };
  os << getMachineName(c) << " (" << c.date << (c.quick ? ", --quick" : "")
     << ")\n";
  os << "  cpu     " << cpu.name << ", " << cpu.threads << " thread"
     << (cpu.threads == 1 ? "" : "s") << " (" << cpu.threadsFrom << ")\n";
  rates("GEMM", kCpuDTypes, cpu.gemm.data(), 1e9, "GFLOP/s");
  rates("elementwise", kCpuDTypes, cpu.elementwise.data(), 1e9, "GFLOP/s");
  if (cpu.convF32 > 0)
    os << "          convolution f32 " << formatFigure(cpu.convF32 / 1e9)
       << " GFLOP/s (3x3, 64 channels, 56x56)\n";
  if (!cpu.flopsPerElement.empty()) {
    os << "          FLOPs per element (exp 10):";
    for (const auto &[op, flops] : cpu.flopsPerElement)
      os << " " << op << " " << formatFigure(flops);
    os << "\n";
  }
  if (!cpu.kernels.empty())
    os << "          generated loops " << cpu.kernels << "\n";
  os << "          memory " << formatFigure(cpu.bandwidth / 1e9) << " GB/s ("
     << cpu.threads << " thread" << (cpu.threads == 1 ? "" : "s") << "), "
     << formatFigure(cpu.coreBandwidth / 1e9) << " GB/s (1 thread); a call "
     << formatFigure(cpu.callSeconds * 1e6) << " us";
  if (cpu.parallelLaunchSeconds > 0)
    os << "; parallel loops " << formatFigure(cpu.parallelLaunchSeconds * 1e6)
       << " us";
  os << "\n";
  for (const GpuFigures &gpu : c.gpus) {
    const TideGpuCalibration &m = gpu.measured;
    os << "  cuda:0  " << gpu.device.name << " (" << chipOf(gpu.device)
       << ")\n";
    rates("GEMM", kGpuDTypes, m.gemmFlops, 1e12, "TFLOP/s");
    os << "          device memory " << formatFigure(m.copyBandwidth / 1e9)
       << " GB/s (copy); launch " << formatFigure(m.launchSeconds * 1e6)
       << " us (" << formatFigure(m.launchWaitSeconds * 1e6)
       << " us waited for)\n";
    os << "          host->device " << formatFigure(m.h2dPinned / 1e9)
       << " GB/s pinned, " << formatFigure(m.h2dPageable / 1e9)
       << " pageable; device->host " << formatFigure(m.d2hPinned / 1e9)
       << " pinned, " << formatFigure(m.d2hPageable / 1e9)
       << " pageable; copy latency " << formatFigure(m.copyLatency * 1e6)
       << " us (" << formatFigure(m.stagedLatency * 1e6)
       << " us more when staged)\n";
  }
  return os.str();
}

bool tide::calibrate::checkWritable(const std::string &path,
                                    std::string &error) {
  struct stat info;
  if (stat(path.c_str(), &info) == 0) {
    if (S_ISDIR(info.st_mode)) {
      error = "cannot write '" + path + "': it is a directory";
      return false;
    }
    if (access(path.c_str(), W_OK) != 0) {
      error = "cannot write '" + path + "': " + std::strerror(errno);
      return false;
    }
    return true;
  }
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "."
                    : slash == 0               ? "/"
                                               : path.substr(0, slash);
  if (stat(dir.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
    error = "cannot write '" + path + "': no directory '" + dir + "'";
    return false;
  }
  if (access(dir.c_str(), W_OK | X_OK) != 0) {
    error = "cannot write '" + path + "': " + std::strerror(errno);
    return false;
  }
  return true;
}

bool tide::calibrate::writeFileAtomically(const std::string &path,
                                          const std::string &text,
                                          bool createDirectory,
                                          std::string &error) {
  size_t slash = path.rfind('/');
  if (createDirectory && slash != std::string::npos && slash > 0) {
    // mkdir -p of the directory.
    std::string dir = path.substr(0, slash);
    for (size_t i = 1; i <= dir.size(); ++i)
      if (i == dir.size() || dir[i] == '/') {
        std::string part = dir.substr(0, i);
        if (mkdir(part.c_str(), 0755) != 0 && errno != EEXIST) {
          error =
              "cannot create directory '" + part + "': " + std::strerror(errno);
          return false;
        }
      }
  }
  std::string temporary = path + ".tmp." + std::to_string(getpid());
  FILE *file = std::fopen(temporary.c_str(), "w");
  if (!file) {
    error = "cannot write '" + path + "': " + std::strerror(errno);
    return false;
  }
  bool written = std::fwrite(text.data(), 1, text.size(), file) == text.size();
  written = std::fclose(file) == 0 && written;
  if (!written || std::rename(temporary.c_str(), path.c_str()) != 0) {
    error = "cannot write '" + path + "': " + std::strerror(errno);
    std::remove(temporary.c_str());
    return false;
  }
  return true;
}
