//===- CudaCalibrate.cpp - Measuring the GPU through the runtime ----------===//
//
// Part of the Tide project.
//
// tide_rt_calibrate_gpu (tide/Runtime/CudaCalibrate.h): the rates of cuda:0
// as compiled code meets them. Every measurement goes through the runtime's
// own entry points (the cuBLAS GEMM functions, mgpuModuleGetFunction and
// mgpuLaunchKernel, mgpuMemcpy) on the calling thread's stream. Buffers are
// allocated with the driver directly and freed at the end, so that nothing
// stays in the caching allocator. Each step checks what could fail before
// calling the runtime (whose errors end the process) and reports failures
// as notes.
//
//===----------------------------------------------------------------------===//

#include "tide/Runtime/CudaCalibrate.h"
#include "CudaInternal.h"
#include "tide/Runtime/CudaRuntime.h"
#include "tide/Runtime/RuntimeSymbols.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

using namespace tide::cudart;

namespace {

/// An empty kernel, as PTX: the driver compiles it for the GPU at hand.
constexpr const char kEmptyKernelPTX[] = R"ptx(
.version 6.0
.target sm_50
.address_size 64

.visible .entry tide_calibrate_empty()
{
  ret;
}
)ptx";

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

double median(std::vector<double> values) {
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

/// One calibration: the driver, the stream, the options, the notes.
struct Calibrator {
  Driver &d;
  CUstream stream;
  const TideGpuCalibrateOptions &options;
  TideGpuCalibration &out;

  bool quick() const { return options.quick != 0; }

  void step(const std::string &what) {
    if (options.progress)
      options.progress(what.c_str(), options.user);
  }

  void note(const std::string &line) {
    size_t used = std::strlen(out.notes);
    std::snprintf(out.notes + used, sizeof(out.notes) - used, "%s\n",
                  line.c_str());
  }

  /// False (with a note naming `what` and the CUDA error) unless success.
  bool ok(CUresult result, const std::string &what) {
    if (result == CUDA_SUCCESS)
      return true;
    const char *name = nullptr;
    d.cuGetErrorName(result, &name);
    note(what +
         " failed: " + (name ? name : "CUDA error " + std::to_string(result)));
    return false;
  }

  /// Seconds of the work `run` queues, timed with events on the stream.
  double timeOnStream(const std::function<void()> &run) {
    CUevent start = nullptr, stop = nullptr;
    if (!ok(d.cuEventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate") ||
        !ok(d.cuEventCreate(&stop, CU_EVENT_DEFAULT), "cuEventCreate"))
      return 0;
    float ms = 0;
    d.cuEventRecord(start, stream);
    run();
    d.cuEventRecord(stop, stream);
    bool good = ok(d.cuEventSynchronize(stop), "waiting for the GPU") &&
                ok(d.cuEventElapsedTime(&ms, start, stop), "timing (events)");
    d.cuEventDestroy(start);
    d.cuEventDestroy(stop);
    return good ? ms * 1e-3 : 0;
  }

  /// A device buffer of `bytes`, 0 (with a note) when it cannot be had.
  CUdeviceptr alloc(size_t bytes, const std::string &what) {
    CUdeviceptr p = 0;
    if (!ok(d.cuMemAlloc(&p, bytes), "allocating " + what + " (" +
                                         std::to_string(bytes >> 20) + " MiB)"))
      return 0;
    return p;
  }

  /// Fills `bytes` of `p` with values of `dtype` in +-[0.5, 1): not zeros,
  /// which run faster than real data on some GPUs.
  bool fill(CUdeviceptr p, size_t bytes, int dtype) {
    std::vector<uint8_t> block(std::min<size_t>(bytes, 8u << 20));
    uint32_t state = 2463534242u;
    auto next = [&] {
      state ^= state << 13;
      state ^= state >> 17;
      state ^= state << 5;
      return state;
    };
    auto value = [&] {
      float magnitude = 0.5f + (next() % 4096) / 8192.0f;
      return next() & 1 ? -magnitude : magnitude;
    };
    for (size_t i = 0; i < block.size();) {
      float x = value();
      uint32_t bits;
      std::memcpy(&bits, &x, 4);
      if (dtype == TIDE_CALIBRATE_F64) {
        double y = x;
        std::memcpy(&block[i], &y, std::min<size_t>(8, block.size() - i));
        i += 8;
      } else if (dtype == TIDE_CALIBRATE_F32) {
        std::memcpy(&block[i], &x, std::min<size_t>(4, block.size() - i));
        i += 4;
      } else {
        uint16_t half;
        if (dtype == TIDE_CALIBRATE_BF16) {
          half = static_cast<uint16_t>(bits >> 16);
        } else {
          // |x| in [0.5, 1): binary16 exponent 14, 10 mantissa bits.
          uint16_t mantissa = static_cast<uint16_t>((bits >> 13) & 0x3ff);
          half = static_cast<uint16_t>((bits >> 16 & 0x8000) | (14 << 10) |
                                       mantissa);
        }
        std::memcpy(&block[i], &half, std::min<size_t>(2, block.size() - i));
        i += 2;
      }
    }
    for (size_t offset = 0; offset < bytes; offset += block.size()) {
      size_t n = std::min(block.size(), bytes - offset);
      if (!ok(d.cuMemcpyHtoDAsync(p + offset, block.data(), n, stream),
              "filling a GEMM operand") ||
          !ok(d.cuStreamSynchronize(stream), "filling a GEMM operand"))
        return false;
    }
    return true;
  }

  void gemms();
  void deviceCopy();
  void launches();
  void hostCopies();
};

using GemmFn = void (*)(TideMemRef2D *, TideMemRef2D *, TideMemRef2D *,
                        int32_t);

void Calibrator::gemms() {
  std::string blas = cublasUnavailable(d);
  if (!blas.empty()) {
    note("GEMM rates not measured: " + blas);
    return;
  }
  struct Kind {
    const char *name;
    size_t bytes;
    GemmFn fn;
  } kinds[TIDE_CALIBRATE_NUM_GEMM] = {
      {"f16", 2, _mlir_ciface_tide_rt_gpu_gemm_f16},
      {"bf16", 2, _mlir_ciface_tide_rt_gpu_gemm_bf16},
      {"f32", 4, _mlir_ciface_tide_rt_gpu_gemm_f32},
      {"f64", 8, _mlir_ciface_tide_rt_gpu_gemm_f64}};
  int major = 0;
  d.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                         d.device);
  for (int t = 0; t < TIDE_CALIBRATE_NUM_GEMM; ++t) {
    const Kind &kind = kinds[t];
    if (t == TIDE_CALIBRATE_BF16 && major < 8) {
      // cuBLAS refuses bf16 GEMM there, and the runtime would end the
      // process.
      note("GEMM bf16 not measured: cuBLAS has no bf16 GEMM below sm_80");
      continue;
    }
    size_t freeBytes = 0, totalBytes = 0;
    d.cuMemGetInfo(&freeBytes, &totalBytes);
    // Large enough to reach the peak; smaller where memory is short, and
    // where one GEMM would take long (FP64 on consumer GPUs).
    int64_t n = quick() ? 256 : 8192;
    while (n > 512 && 3.0 * n * n * kind.bytes > freeBytes / 2.0)
      n /= 2;
    for (;;) {
      step(std::string("cuda:0 GEMM ") + kind.name + " " + std::to_string(n) +
           "^3 (cuBLAS)");
      size_t bytes = static_cast<size_t>(n) * n * kind.bytes;
      CUdeviceptr a = alloc(bytes, "a GEMM operand"),
                  b = a ? alloc(bytes, "a GEMM operand") : 0,
                  c = b ? alloc(bytes, "a GEMM result") : 0;
      double rate = 0, one = 0;
      if (c && fill(a, bytes, t) && fill(b, bytes, t)) {
        auto descriptor = [&](CUdeviceptr p) {
          void *ptr = reinterpret_cast<void *>(p);
          return TideMemRef2D{ptr, ptr, 0, {n, n}, {n, 1}};
        };
        TideMemRef2D da = descriptor(a), db = descriptor(b), dc = descriptor(c);
        kind.fn(&da, &db, &dc, 0); // warm-up (cuBLAS picks its kernel)
        one = timeOnStream([&] { kind.fn(&da, &db, &dc, 0); });
        if (one > 0 && (quick() || n <= 1024 || one < 0.3)) {
          int reps = quick() ? 2 : std::clamp(int(0.2 / one) + 1, 2, 50);
          std::vector<double> rates;
          for (int trial = 0; trial < 3; ++trial) {
            double s = timeOnStream([&] {
              for (int r = 0; r < reps; ++r)
                kind.fn(&da, &db, &dc, 0);
            });
            if (s > 0)
              rates.push_back(2.0 * n * n * n * reps / s);
          }
          rate = median(rates);
        }
      }
      for (CUdeviceptr p : {a, b, c})
        if (p)
          d.cuMemFree(p);
      if (rate == 0 && one >= 0.3 && n > 1024) {
        n /= 2; // one GEMM took too long: measure a smaller one
        continue;
      }
      out.gemmFlops[t] = rate;
      out.gemmSize[t] = n;
      break;
    }
  }
}

void Calibrator::deviceCopy() {
  size_t freeBytes = 0, totalBytes = 0;
  d.cuMemGetInfo(&freeBytes, &totalBytes);
  size_t bytes = quick() ? (4u << 20) : (1u << 30);
  while (bytes > (16u << 20) && bytes > freeBytes / 4)
    bytes /= 2;
  step("cuda:0 device-to-device copy of " + std::to_string(bytes >> 20) +
       " MiB");
  CUdeviceptr src = alloc(bytes, "a copy source"),
              dst = src ? alloc(bytes, "a copy destination") : 0;
  if (dst) {
    void *s = reinterpret_cast<void *>(src), *t = reinterpret_cast<void *>(dst);
    mgpuMemcpy(t, s, bytes, stream); // warm-up
    int reps = quick() ? 2 : 10;
    std::vector<double> rates;
    for (int trial = 0; trial < 3; ++trial) {
      double seconds = timeOnStream([&] {
        for (int r = 0; r < reps; ++r)
          mgpuMemcpy(t, s, bytes, stream);
      });
      if (seconds > 0)
        rates.push_back(2.0 * bytes * reps / seconds);
    }
    out.copyBandwidth = median(rates);
    out.deviceCopyBytes = static_cast<int64_t>(bytes);
  }
  for (CUdeviceptr p : {src, dst})
    if (p)
      d.cuMemFree(p);
}

void Calibrator::launches() {
  step("cuda:0 kernel launches");
  // Load the module with the driver first: the runtime's lookup would end
  // the process where the driver cannot compile PTX.
  CUmodule probe = nullptr;
  if (!ok(d.cuModuleLoadData(&probe, kEmptyKernelPTX),
          "loading an empty kernel (PTX) for the launch latency"))
    return;
  d.cuModuleUnload(probe);
  void *module = mgpuModuleLoad(const_cast<char *>(kEmptyKernelPTX),
                                sizeof(kEmptyKernelPTX));
  auto launch = [&] {
    // What compiled code does for every kernel: look it up, launch it.
    void *fn = mgpuModuleGetFunction(module, "tide_calibrate_empty");
    mgpuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, stream, nullptr, nullptr, 0);
  };
  for (int i = 0; i < 20; ++i)
    launch();
  d.cuStreamSynchronize(stream);
  int queued = quick() ? 50 : 2000;
  std::vector<double> perLaunch, waited;
  for (int trial = 0; trial < 3; ++trial) {
    double start = now();
    for (int i = 0; i < queued; ++i)
      launch();
    d.cuStreamSynchronize(stream);
    perLaunch.push_back((now() - start) / queued);
  }
  for (int i = 0, n = quick() ? 10 : 200; i < n; ++i) {
    double start = now();
    launch();
    d.cuStreamSynchronize(stream);
    waited.push_back(now() - start);
  }
  out.launchSeconds = median(perLaunch);
  out.launchWaitSeconds = median(waited);
  mgpuModuleUnload(module);
}

void Calibrator::hostCopies() {
  size_t bytes = quick() ? (256u << 10) : (64u << 20);
  out.hostCopyBytes = static_cast<int64_t>(bytes);
  CUdeviceptr device = alloc(bytes, "a host copy's device buffer");
  void *pinned = nullptr;
  if (!device || !ok(d.cuMemHostAlloc(&pinned, bytes, 0),
                     "allocating pinned host memory (cuMemHostAlloc)")) {
    if (device)
      d.cuMemFree(device);
    return;
  }
  std::vector<char> pageable(bytes, 1);
  std::memset(pinned, 1, bytes);
  void *dev = reinterpret_cast<void *>(device);
  auto rate = [&](void *dst, void *src, size_t n, int reps) {
    mgpuMemcpy(dst, src, n, stream); // warm-up
    d.cuStreamSynchronize(stream);
    std::vector<double> seconds;
    for (int r = 0; r < reps; ++r) {
      double start = now();
      mgpuMemcpy(dst, src, n, stream);
      d.cuStreamSynchronize(stream);
      seconds.push_back(now() - start);
    }
    return seconds;
  };
  int reps = quick() ? 3 : 7;
  std::string size = quick() ? std::to_string(bytes >> 10) + " KiB"
                             : std::to_string(bytes >> 20) + " MiB";
  step("cuda:0 host-to-device copies of " + size + " (pinned, pageable)");
  out.h2dPinned = bytes / median(rate(dev, pinned, bytes, reps));
  out.h2dPageable = bytes / median(rate(dev, pageable.data(), bytes, reps));
  step("cuda:0 device-to-host copies of " + size + " (pinned, pageable)");
  out.d2hPinned = bytes / median(rate(pinned, dev, bytes, reps));
  out.d2hPageable = bytes / median(rate(pageable.data(), dev, bytes, reps));
  // From pageable memory, as a caller's NumPy arrays are: through the
  // runtime's pinned bounce buffer, 10-12 us a 16 KiB copy on the H200
  // machine where a pinned one takes 6.4.
  step("cuda:0 copy latency (4 KiB pageable copies)");
  int small = quick() ? 10 : 100;
  std::vector<double> latency = rate(dev, pageable.data(), 4096, small);
  std::vector<double> back = rate(pageable.data(), dev, 4096, small);
  latency.insert(latency.end(), back.begin(), back.end());
  out.copyLatency = median(latency);
  // A pageable copy the runtime stages through its threads (from 64 KiB up,
  // as Target::copyTime's kStagedCopyBytes): what it takes beyond the
  // latency and its bytes at the rates above.
  size_t staged = std::min<size_t>(bytes, 1u << 20);
  step("cuda:0 staged copies of " + std::to_string(staged >> 10) +
       " KiB (pageable, both ways)");
  std::vector<double> extra;
  for (bool toDevice : {true, false}) {
    double bw = toDevice ? out.h2dPageable : out.d2hPageable;
    for (double seconds : toDevice ? rate(dev, pageable.data(), staged, small)
                                   : rate(pageable.data(), dev, staged, small))
      extra.push_back(seconds - out.copyLatency - staged / bw);
  }
  out.stagedLatency = std::max(0.0, median(extra));
  d.cuMemFreeHost(pinned);
  d.cuMemFree(device);
}

} // namespace

extern "C" int tide_rt_calibrate_gpu(const TideGpuCalibrateOptions *options,
                                     TideGpuCalibration *out, char *error,
                                     size_t errorSize) {
  *out = TideGpuCalibration{};
  Driver &d = driver();
  if (!d.unavailable.empty()) {
    if (error && errorSize)
      std::snprintf(error, errorSize, "%s", d.unavailable.c_str());
    return 0;
  }
  ready("calibrating the GPU"); // the context, current on this thread
  TideGpuCalibrateOptions copy = options ? *options : TideGpuCalibrateOptions{};
  Calibrator c{d, static_cast<CUstream>(mgpuStreamCreate()), copy, *out};
  c.gemms();
  c.deviceCopy();
  c.launches();
  c.hostCopies();
  return 1;
}
