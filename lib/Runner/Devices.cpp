//===- Devices.cpp - The processors of this machine ----------------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Runner/Devices.h"

#include <dlfcn.h>
#include <fstream>
#include <thread>
#include <unistd.h>

using namespace tide::runner;

static DeviceInfo describeCpu() {
  DeviceInfo cpu;
  cpu.name = "CPU";
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line))
    if (line.rfind("model name", 0) == 0) {
      size_t colon = line.find(':');
      if (colon != std::string::npos) {
        size_t start = line.find_first_not_of(" \t", colon + 1);
        if (start != std::string::npos)
          cpu.name = line.substr(start);
      }
      break;
    }
  cpu.cores = static_cast<int>(std::thread::hardware_concurrency());
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && pageSize > 0)
    cpu.memoryBytes = static_cast<uint64_t>(pages) * pageSize;
  return cpu;
}

namespace {
// The few driver API entry points needed (CUresult is an int; CUdevice an
// int). Attribute numbers are CUDA's CUdevice_attribute values.
using InitFn = int (*)(unsigned);
using CountFn = int (*)(int *);
using GetFn = int (*)(int *, int);
using NameFn = int (*)(char *, int, int);
using MemFn = int (*)(size_t *, int);
using AttrFn = int (*)(int *, int, int);
constexpr int kMultiprocessorCount = 16;
constexpr int kComputeCapabilityMajor = 75;
constexpr int kComputeCapabilityMinor = 76;
} // namespace

double tide::runner::getKnownFp64Ratio(int major, int minor) {
  // 64-bit / 32-bit floating-point add, multiply, multiply-add results per
  // clock per multiprocessor.
  switch (major * 10 + minor) {
  case 50:
  case 52:
  case 53:
  case 61:
  case 62:
  case 75:
    return 1.0 / 32;
  case 60:
  case 70:
  case 80:
  case 90:
  case 100:
    return 1.0 / 2;
  case 86:
  case 89:
  case 120:
    return 1.0 / 64;
  default:
    return 0;
  }
}

std::vector<DeviceInfo> tide::runner::listDevices(std::string &note) {
  std::vector<DeviceInfo> devices{describeCpu()};
  note.clear();
  void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!cuda) {
    note = "no NVIDIA driver (libcuda.so.1) on this machine, so no GPU can "
           "be used";
    return devices;
  }
  auto init = reinterpret_cast<InitFn>(dlsym(cuda, "cuInit"));
  auto count = reinterpret_cast<CountFn>(dlsym(cuda, "cuDeviceGetCount"));
  auto get = reinterpret_cast<GetFn>(dlsym(cuda, "cuDeviceGet"));
  auto name = reinterpret_cast<NameFn>(dlsym(cuda, "cuDeviceGetName"));
  auto mem = reinterpret_cast<MemFn>(dlsym(cuda, "cuDeviceTotalMem_v2"));
  auto attr = reinterpret_cast<AttrFn>(dlsym(cuda, "cuDeviceGetAttribute"));
  if (!init || !count || !get || !name || !mem || !attr) {
    note = "the NVIDIA driver (libcuda.so.1) lacks the functions Tide needs";
    return devices;
  }
  int n = 0;
  if (int rc = init(0)) {
    note = "the NVIDIA driver failed to start (cuInit error " +
           std::to_string(rc) + "), so no GPU can be used";
    return devices;
  }
  if (count(&n) || n == 0) {
    note = "the NVIDIA driver shows no GPU";
    return devices;
  }
  for (int i = 0; i < n; ++i) {
    int device = 0;
    if (get(&device, i))
      continue;
    DeviceInfo gpu;
    gpu.isGpu = true;
    gpu.index = i;
    char buffer[256] = {0};
    if (!name(buffer, sizeof(buffer) - 1, device))
      gpu.name = buffer;
    size_t bytes = 0;
    if (!mem(&bytes, device))
      gpu.memoryBytes = bytes;
    attr(&gpu.computeCapabilityMajor, kComputeCapabilityMajor, device);
    attr(&gpu.computeCapabilityMinor, kComputeCapabilityMinor, device);
    attr(&gpu.cores, kMultiprocessorCount, device);
    gpu.fp64PerFp32 = getKnownFp64Ratio(gpu.computeCapabilityMajor,
                                        gpu.computeCapabilityMinor);
    devices.push_back(gpu);
  }
  // The driver stays loaded: a process that asked is likely to use it.
  return devices;
}
