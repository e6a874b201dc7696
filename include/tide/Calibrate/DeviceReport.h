//===- DeviceReport.h - What Tide can do on this machine --------*- C++ -*-===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// `tide-run --list-devices`: the CPU and each GPU the driver shows, with its
// compute capability, memory, FP64:FP32 rate (known from the compute
// capability, and as measured where this machine has a calibration), and
// the (op, dtype) pairs Tide runs there: Tide's native kernel table (the
// one every target is checked against, lib/Target/NativeKernels.cpp), taken
// from `tide-opt --tide-list-kernels` when Tide is built, since this code
// links no LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_CALIBRATE_DEVICEREPORT_H
#define TIDE_CALIBRATE_DEVICEREPORT_H

#include "tide/Runner/Devices.h"

#include <string>
#include <vector>

namespace tide::calibrate {

/// The report for `devices` (CPU first; `note` says why there is no GPU).
/// `calibrationText` is this machine's native target file (read from
/// `calibrationPath`), empty when there is none.
std::string formatDeviceReport(const std::vector<runner::DeviceInfo> &devices,
                               const std::string &note,
                               const std::string &calibrationPath,
                               const std::string &calibrationText);

/// The report for this machine: runner::listDevices() and the native target
/// file, if tide-calibrate wrote one.
std::string describeThisMachine();

} // namespace tide::calibrate

#endif // TIDE_CALIBRATE_DEVICEREPORT_H
