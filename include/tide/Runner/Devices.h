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
  /// GPUs: FP64:FP32 arithmetic rate of the CUDA cores, known from the
  /// compute capability (getKnownFp64Ratio); 0 when unknown.
  double fp64PerFp32 = 0;
};

/// The FP64:FP32 rate of the CUDA cores of a compute capability (0.5 on
/// sm_60/70/80/90/100, 1/32 or 1/64 on most others), from the arithmetic
/// instruction throughput table of NVIDIA's CUDA C++ Programming Guide; 0
/// for one not in the table. GEMM can differ: FP64 tensor cores (sm_80,
/// sm_90) run f64 GEMM as fast as f32 GEMM on the CUDA cores.
double getKnownFp64Ratio(int major, int minor);

/// The CPU first, then every GPU. `note` says why there is no GPU (no
/// driver, a driver error, no device), empty when GPUs were found.
std::vector<DeviceInfo> listDevices(std::string &note);

} // namespace tide::runner

#endif // TIDE_RUNNER_DEVICES_H
