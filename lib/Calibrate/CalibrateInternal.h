//===- CalibrateInternal.h - What lib/Calibrate's files share ---*- C++ -*-===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_LIB_CALIBRATE_CALIBRATEINTERNAL_H
#define TIDE_LIB_CALIBRATE_CALIBRATEINTERNAL_H

#include "tide/Calibrate/Calibrate.h"

#include <string>
#include <vector>

namespace tide::calibrate::detail {

/// Numbers the steps of one calibration for Options::progress.
struct Stepper {
  const Options &options;
  int index = 0;
  int total = 0;
  void operator()(const std::string &step) {
    ++index;
    if (options.progress)
      options.progress(step, index, std::max(index, total));
  }
};

/// Steps measureCpu announces (one more when it compiles its kernels).
constexpr int kCpuSteps = 25;

/// Whether measureCpu compiles its kernels for this CPU.
bool compilesKernels(const Options &options);
/// Steps the GPU runtime announces (tide_rt_calibrate_gpu).
constexpr int kGpuSteps = 10;

/// The directory of the file holding this code (the executable, or the
/// shared library it is linked into), with symbolic links resolved.
std::string getOwnDirectory();

/// The threads Tide's CPU code runs on (tide_rt_cpu_team_size's rule), with
/// where the count comes from ("TIDE_NUM_THREADS", "the affinity mask"); 0
/// with `error` for an invalid TIDE_NUM_THREADS.
int getTideThreads(std::string &from, std::string &error);

/// Measures the CPU (CpuCalibrate.cpp). Returns false with `error` only for
/// an invalid TIDE_NUM_THREADS; what cannot be measured goes to `note`.
bool measureCpu(Stepper &step, const Options &options, CpuFigures &cpu,
                const std::function<void(const std::string &)> &note,
                std::string &error);

/// `value` with about four significant digits and no exponent ("833000",
/// "51.2", "0.1234"), as target files and summaries print figures.
std::string formatFigure(double value);

} // namespace tide::calibrate::detail

#endif // TIDE_LIB_CALIBRATE_CALIBRATEINTERNAL_H
