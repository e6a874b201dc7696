//===- Calibrate.cpp - Measuring this machine -----------------------------===//
//
// Part of the Tide project.
//
// The order of a calibration: is there a GPU Tide can use (asked of Tide's
// GPU runtime, opened at run time like the driver it opens in turn); the
// CPU (CpuCalibrate.cpp); then cuda:0 through the runtime's
// tide_rt_calibrate_gpu.
//
//===----------------------------------------------------------------------===//

#include "CalibrateInternal.h"

#include "tide/Support/NativeTarget.h"

#include <climits>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dlfcn.h>
#include <unistd.h>

using namespace tide::calibrate;

std::string detail::getOwnDirectory() {
  std::string path;
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(&detail::getOwnDirectory), &info) &&
      info.dli_fname && std::strchr(info.dli_fname, '/'))
    path = info.dli_fname;
  if (path.empty()) { // the main executable
    char buffer[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
    if (n <= 0)
      return ".";
    path.assign(buffer, n);
  }
  char resolved[PATH_MAX];
  if (realpath(path.c_str(), resolved))
    path = resolved;
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

namespace {

/// Tide's GPU runtime, opened from next to this code, or by name (the
/// loader's search path), or from TIDE_CUDA_RUNTIME.
void *openGpuRuntime(std::string &why) {
  std::vector<std::string> candidates;
  if (const char *env = std::getenv("TIDE_CUDA_RUNTIME"); env && *env) {
    candidates.push_back(env);
  } else {
    std::string own = detail::getOwnDirectory();
    candidates = {own + "/libTideCudaRuntime.so",
                  own + "/../lib/libTideCudaRuntime.so",
                  "libTideCudaRuntime.so"};
  }
  std::string last;
  for (const std::string &name : candidates) {
    if (void *handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL))
      return handle;
    const char *error = dlerror();
    last = error ? error : "unknown error";
  }
  why = "Tide's GPU runtime (libTideCudaRuntime.so) cannot be loaded: " + last;
  return nullptr;
}

/// The state the GPU runtime's progress callback needs.
struct GpuProgress {
  detail::Stepper *step;
};

} // namespace

bool tide::calibrate::calibrate(const Options &options, Calibration &result,
                                std::string &error) {
  result = Calibration{};
  result.quick = options.quick;
  result.host = getHostNameForFiles();
  char date[64];
  std::time_t t = std::time(nullptr);
  std::strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", std::gmtime(&t));
  result.date = date;
  auto note = [&](const std::string &line) {
    result.notes.push_back(line);
    if (options.note)
      options.note(line);
  };

  // Is there a GPU? Asked first, so that a machine without one says so
  // before the CPU's measurements.
  std::string why, prefix = "GPU not measured: ";
  void *runtime = openGpuRuntime(why);
  TideCalibrateGpuFn measureGpu = nullptr;
  if (runtime) {
    auto available = reinterpret_cast<int (*)(char *, size_t)>(
        dlsym(runtime, "tide_rt_gpu_available"));
    measureGpu = reinterpret_cast<TideCalibrateGpuFn>(
        dlsym(runtime, TIDE_RT_CALIBRATE_GPU));
    char reason[512] = {0};
    if (!available || !measureGpu) {
      why = "the GPU runtime found lacks " TIDE_RT_CALIBRATE_GPU
            " (a build older than tide-calibrate?)";
      measureGpu = nullptr;
    } else if (!available(reason, sizeof(reason))) {
      why = reason;
      prefix = "no GPU: ";
      measureGpu = nullptr;
    }
  }
  if (!measureGpu)
    note(prefix + why + "; the target describes the CPU only");

  std::string deviceNote;
  std::vector<tide::runner::DeviceInfo> devices =
      runner::listDevices(deviceNote);
  result.cpu.name = devices.front().name;

  detail::Stepper step{options, 0,
                       detail::kCpuSteps +
                           (detail::compilesKernels(options) ? 1 : 0) +
                           (measureGpu ? detail::kGpuSteps : 0)};
  if (!detail::measureCpu(step, options, result.cpu, note, error))
    return false;

  if (measureGpu) {
    const tide::runner::DeviceInfo *gpu = nullptr;
    for (const tide::runner::DeviceInfo &device : devices)
      if (device.isGpu && device.index == 0)
        gpu = &device;
    int major = gpu ? gpu->computeCapabilityMajor : 0;
    int sm = gpu ? major * 10 + gpu->computeCapabilityMinor : 0;
    if (!gpu) {
      note("cuda:0 not measured: the driver does not describe it (" +
           deviceNote + ")");
    } else if (sm < 50 || sm > 120) {
      note("cuda:0 (" + gpu->name + ", sm_" + std::to_string(sm) +
           ") not measured: Tide generates code for sm_50 to sm_120 only");
    } else {
      GpuFigures figures;
      figures.device = *gpu;
      TideGpuCalibrateOptions gpuOptions{};
      gpuOptions.quick = options.quick;
      GpuProgress progress{&step};
      gpuOptions.user = &progress;
      gpuOptions.progress = [](const char *what, void *user) {
        (*static_cast<GpuProgress *>(user)->step)(what);
      };
      char reason[512] = {0};
      if (!measureGpu(&gpuOptions, &figures.measured, reason, sizeof(reason))) {
        note(std::string("no GPU: ") + reason +
             "; the target describes the CPU only");
      } else {
        std::string notes = figures.measured.notes;
        for (size_t start = 0; start < notes.size();) {
          size_t end = notes.find('\n', start);
          if (end == std::string::npos)
            end = notes.size();
          if (end > start)
            note("cuda:0: " + notes.substr(start, end - start));
          start = end + 1;
        }
        const TideGpuCalibration &m = figures.measured;
        // A target needs the GPU's bandwidth and every link figure.
        if (m.copyBandwidth > 0 && m.h2dPinned > 0 && m.h2dPageable > 0 &&
            m.d2hPinned > 0 && m.d2hPageable > 0)
          result.gpus.push_back(figures);
        else
          note("cuda:0 left out of the target: its memory bandwidth or "
               "host copy rates could not be measured");
      }
    }
    for (const tide::runner::DeviceInfo &device : devices)
      if (device.isGpu && device.index > 0)
        note("cuda:" + std::to_string(device.index) + " (" + device.name +
             ") not measured: Tide's GPU code runs on cuda:0 only; measure "
             "it as cuda:0 with CUDA_VISIBLE_DEVICES=" +
             std::to_string(device.index));
  }
  return true;
}

std::string tide::calibrate::getMachineName(const Calibration &calibration) {
  std::string raw =
      calibration.host + "-" +
      (calibration.gpus.empty() ? "cpu" : calibration.gpus.front().device.name);
  std::string name;
  for (char c : raw) {
    bool keep = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
                c == '_';
    if (c >= 'A' && c <= 'Z')
      name += static_cast<char>(c - 'A' + 'a');
    else if (keep)
      name += c;
    else if (!name.empty() && name.back() != '-')
      name += '-';
  }
  while (!name.empty() && name.back() == '-')
    name.pop_back();
  return name.empty() ? "machine" : name;
}
