//===- Devices.h - The processors of this machine ---------------*- C++ -*-===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// The CPU and the GPUs the CUDA driver shows, read through the driver API
// loaded at run time (libcuda.so.1): no CUDA toolkit, LLVM or MLIR needed,
// and no failure where there is no driver.
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_RUNNER_DEVICES_H
#define TIDE_RUNNER_DEVICES_H

#include <cstdint>
#include <string>
#include <vector>

namespace tide::runner {

struct DeviceInfo {
  bool isGpu = false;
  int index = 0;    ///< GPU ordinal (CUDA's); 0 for the CPU
  std::string name; ///< "NVIDIA H200", or the CPU's model name
  int computeCapabilityMajor = 0, computeCapabilityMinor = 0;
  uint64_t memoryBytes = 0; ///< GPU memory, or the host's
  int cores = 0;            ///< CPU threads, or GPU multiprocessors
};

/// The CPU first, then every GPU. `note` says why there is no GPU (no
/// driver, a driver error, no device), empty when GPUs were found.
std::vector<DeviceInfo> listDevices(std::string &note);

} // namespace tide::runner

#endif // TIDE_RUNNER_DEVICES_H
