//===- CpuCalibrate.cpp - Measuring the CPU as Tide's code uses it --------===//
//
// Part of the Tide project.
//
// Rates come from Tide's own code: the kernels of lib/Calibrate/Kernels,
// compiled by tide-compile when Tide is built (single-threaded, so that
// they need no OpenMP runtime, but the GEMM and parallel ones), are called
// through their C interface. GEMM in f32 goes to tide_rt_cpu_matmul_f32 and
// oneDNN, on the threads Tide's modules use, and in f64 to tide_rt_gemm_f64
// and OpenBLAS, which runs on its own threads; the generated loops are run on
// every thread Tide's CPU code would use at once, each thread calling the
// kernel on its own, which is what a parallel loop nest of that many threads
// can reach at best. Memory bandwidth is a plain loop (a[i] = b[i] + s * c[i])
// over arrays far larger than the caches, on all threads and on one.
//
//===----------------------------------------------------------------------===//

#include "CalibrateInternal.h"

#include "tide/Runner/ElfCheck.h"
#include "tide/Runner/Module.h"
#include "tide/Runtime/RuntimeSymbols.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <fstream>
#include <functional>
#include <memory>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

using namespace tide::calibrate;

namespace {

/// A 1-D memref descriptor, as compiled modules take and return them.
struct MemRef1D {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t size;
  int64_t stride;
};

using UnaryFn = void (*)(MemRef1D *, MemRef1D *);
using BinaryFn = void (*)(MemRef1D *, MemRef1D *, MemRef1D *);
using GemmFn = void (*)(TideMemRef2D *, TideMemRef2D *, TideMemRef2D *);

/// A 4-D memref descriptor.
struct MemRef4D {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes[4];
  int64_t strides[4];
};

using ConvFn = void (*)(MemRef4D *, MemRef4D *, MemRef4D *);

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

size_t dtypeBytes(const std::string &dtype) {
  if (dtype == "i8")
    return 1;
  if (dtype == "i16" || dtype == "f16" || dtype == "bf16")
    return 2;
  if (dtype == "i32" || dtype == "f32")
    return 4;
  return 8;
}

/// `count` values of `dtype` in [0.5, 1) for floats and 1..3 for integers:
/// no overflow, no subnormals, no NaN.
std::vector<uint8_t> makeInput(const std::string &dtype, size_t count) {
  size_t size = dtypeBytes(dtype);
  std::vector<uint8_t> data(count * size);
  for (size_t i = 0; i < count; ++i) {
    uint8_t *p = data.data() + i * size;
    float x = 0.5f + static_cast<float>((i * 2654435761u) % 1024) / 2048.0f;
    int64_t k = 1 + static_cast<int64_t>(i % 3);
    if (dtype == "f64") {
      double y = x;
      std::memcpy(p, &y, 8);
    } else if (dtype == "f32") {
      std::memcpy(p, &x, 4);
    } else if (dtype == "f16" || dtype == "bf16") {
      uint32_t bits;
      std::memcpy(&bits, &x, 4);
      // bf16: the high half; f16: exponent 14 (x in [0.5, 1)), 10 bits.
      uint16_t half =
          dtype == "bf16"
              ? static_cast<uint16_t>(bits >> 16)
              : static_cast<uint16_t>((14 << 10) | ((bits >> 13) & 0x3ff));
      std::memcpy(p, &half, 2);
    } else {
      std::memcpy(p, &k, size); // little-endian: the low bytes of k
    }
  }
  return data;
}

/// Wall seconds for `threads` threads to make `calls` calls of `call(t)`
/// each, started together.
double concurrentSeconds(int threads, int calls,
                         const std::function<void(int)> &call) {
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  double start = 0;
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t)
    pool.emplace_back([&, t] {
      ready.fetch_add(1);
      while (!go.load(std::memory_order_acquire))
        std::this_thread::yield();
      for (int i = 0; i < calls; ++i)
        call(t);
    });
  while (ready.load() < threads - 1)
    std::this_thread::yield();
  start = now();
  go.store(true, std::memory_order_release);
  for (int i = 0; i < calls; ++i)
    call(0);
  for (std::thread &thread : pool)
    thread.join();
  return now() - start;
}

/// Rounds of each CPU measurement, of which the best is kept: at least
/// kRounds, and as many as the measurement's budget holds up to kMaxRounds,
/// since a burst of load on a shared host (the H200 machine's 16-thread
/// bandwidth read 67 GB/s in one calibration and 96 in the check right after
/// it, with five rounds) can cover a few, and a short round is more likely
/// to fall in a quiet moment.
constexpr int kRounds = 10;
constexpr int kMaxRounds = 200;

/// Rounds that fit `budget` seconds at `seconds` each, within
/// [kRounds, kMaxRounds].
int roundsFor(double budget, double seconds) {
  return std::clamp(static_cast<int>(budget / std::max(seconds, 1e-9)), kRounds,
                    kMaxRounds);
}

/// Work units per second of `threads` threads each calling `call` (which
/// does `work` units), measured over about `budget` seconds: a warm-up call
/// per thread, then the best of many rounds. A round is one call where a
/// call is long enough to time alone (50 us) and one thread calls, as
/// tide-run --repeat's minimum times a module; else calls filling about a
/// millisecond, which also covers starting the threads. The best, as STREAM
/// reports: CPUs are often shared, and a round another process interrupted
/// says nothing about the machine.
double concurrentRate(int threads, double work, double budget,
                      const std::function<void(int)> &call) {
  concurrentSeconds(threads, 1, call); // warm-up
  double one = std::max(concurrentSeconds(threads, 1, call), 1e-9);
  double minRound = threads == 1 && one >= 50e-6 ? 0 : 1e-3;
  int calls =
      std::clamp(static_cast<int>(std::ceil(minRound / one)), 1, 1000000);
  int rounds = roundsFor(budget, calls * one);
  double best = 0;
  for (int round = 0; round < rounds; ++round)
    best = std::max(best, threads * work * calls /
                              concurrentSeconds(threads, calls, call));
  return best;
}

/// Bytes read and written per second by `threads` threads running
/// a[i] = b[i] + s * c[i] over `elements` doubles (each thread its share,
/// first touched by that thread): the best of as many passes as `budget`
/// seconds hold (kRounds to kMaxRounds).
double triadBandwidth(int threads, size_t elements, double budget) {
  std::unique_ptr<double[]> a(new double[elements]), b(new double[elements]),
      c(new double[elements]);
  auto range = [&](int t, auto body) {
    size_t lo = elements * t / threads, hi = elements * (t + 1) / threads;
    body(lo, hi);
  };
  auto init = [&](int t) {
    range(t, [&](size_t lo, size_t hi) {
      for (size_t i = lo; i < hi; ++i) {
        a[i] = 0;
        b[i] = 1;
        c[i] = 2;
      }
    });
  };
  double *pa = a.get(), *pb = b.get(), *pc = c.get();
  auto triad = [&](int t) {
    range(t, [&](size_t lo, size_t hi) {
      for (size_t i = lo; i < hi; ++i)
        pa[i] = pb[i] + 3.0 * pc[i];
    });
  };
  concurrentSeconds(threads, 1, init);
  concurrentSeconds(threads, 1, triad); // warm-up
  double one = concurrentSeconds(threads, 1, triad);
  double best = 3.0 * 8 * elements / std::max(one, 1e-9);
  for (int round = 1, rounds = roundsFor(budget, one); round < rounds; ++round)
    best = std::max(best,
                    3.0 * 8 * elements / concurrentSeconds(threads, 1, triad));
  return best;
}

/// A loaded kernel module (dlclose'd when done).
struct Kernels {
  void *handle = nullptr;
  Kernels() = default;
  Kernels(const Kernels &) = delete;
  Kernels &operator=(const Kernels &) = delete;
  ~Kernels() {
    if (handle)
      dlclose(handle);
  }
  template <typename Fn>
  Fn get(const std::string &name) const {
    return handle ? reinterpret_cast<Fn>(
                        dlsym(handle, ("_mlir_ciface_" + name).c_str()))
                  : nullptr;
  }
};

/// The directory of the calibration kernels (TIDE_CALIBRATE_KERNELS, else
/// next to this code), or empty with the places looked at in `tried`.
std::string findKernelDirectory(std::string &tried) {
  std::vector<std::string> candidates;
  if (const char *env = std::getenv("TIDE_CALIBRATE_KERNELS"); env && *env) {
    candidates.push_back(env);
    tried = std::string(env) + " (TIDE_CALIBRATE_KERNELS)";
  } else {
    std::string own = detail::getOwnDirectory();
    candidates = {own + "/tide-calibrate", own + "/../lib/tide-calibrate"};
    tried = candidates[0] + " or " + candidates[1];
  }
  for (const std::string &dir : candidates)
    if (std::ifstream(dir + "/loops.so"))
      return dir;
  return "";
}

/// A temporary directory, removed with the files it holds (the kernels
/// stay mapped once loaded).
struct TemporaryDirectory {
  std::string path;
  std::vector<std::string> files;
  ~TemporaryDirectory() {
    for (const std::string &file : files)
      std::remove((path + "/" + file).c_str());
    if (!path.empty())
      rmdir(path.c_str());
  }
};

/// Compiles loops.mlir (next to the prebuilt kernels in `prebuilt`) for this
/// CPU with the tide-compile next to this code, into `temporary`; returns
/// the directory, or empty with `why`. The GEMM kernel stays prebuilt: its
/// time is oneDNN's and OpenBLAS's.
std::string compileLoops(const std::string &prebuilt,
                         TemporaryDirectory &temporary, std::string &why) {
  std::string own = detail::getOwnDirectory();
  std::string compiler;
  for (const std::string &candidate :
       {own + "/tide-compile", own + "/../bin/tide-compile"})
    if (access(candidate.c_str(), X_OK) == 0) {
      compiler = candidate;
      break;
    }
  std::string source = prebuilt + "/loops.mlir";
  if (compiler.empty()) {
    why = "no tide-compile next to " + own;
    return "";
  }
  if (prebuilt.empty() || access(source.c_str(), R_OK) != 0) {
    why = "no " + (prebuilt.empty() ? std::string("loops.mlir") : source);
    return "";
  }
  const char *tmp = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmp && *tmp ? tmp : "/tmp") + "/tide-calibrate-XXXXXX";
  if (!mkdtemp(pattern.data())) {
    why = "cannot create a directory in " + pattern;
    return "";
  }
  temporary.path = pattern;
  temporary.files = {"loops.so", "loops.h"};
  std::vector<std::string> args = {compiler,
                                   source,
                                   "--target=cpu",
                                   "--cpu-threads=1",
                                   "--no-remarks",
                                   "-o",
                                   pattern + "/loops.so",
                                   "--header=" + pattern + "/loops.h"};
  std::vector<char *> argv;
  for (std::string &arg : args)
    argv.push_back(arg.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  int status = 0;
  int spawned = posix_spawn(&pid, compiler.c_str(), &actions, nullptr,
                            argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0) {
    why = compiler + " failed on " + source;
    return "";
  }
  return pattern;
}

/// Frees the result of a kernel call (the module malloc'ed it).
template <typename MemRef>
void freeResult(MemRef &result) {
  std::free(result.allocated);
}

/// Why the calibration kernel at `path` cannot time the CPU, or "": a file
/// dlopen would fault on (truncated), or a module compiled for a GPU target,
/// whose products and loops run on the GPU (its figures would be the GPU's
/// under the CPU's name). A missing file is left to dlopen (a note).
std::string unfitKernel(const std::string &path) {
  if (access(path.c_str(), F_OK) != 0)
    return "";
  std::string why;
  if (!tide::runner::checkElfFile(path, why))
    return "the calibration kernel '" + path +
           "' is not a valid library: " + why;
  if (tide::runner::importsSymbol(path, "mgpuStreamCreate"))
    return "the calibration kernel '" + path +
           "' is a GPU module (it calls Tide's GPU runtime); the CPU's rates "
           "need kernels compiled with tide-compile --target=cpu";
  return "";
}

/// FLOP/s of `fn`, an n x n x n product of `dtype`, called by `threads`
/// threads at once (concurrentRate).
double gemmRate(GemmFn fn, const std::string &dtype, int64_t n, int threads,
                double budget) {
  std::vector<uint8_t> a = makeInput(dtype, n * n), b = makeInput(dtype, n * n);
  auto descriptor = [&](std::vector<uint8_t> &data) {
    return TideMemRef2D{data.data(), data.data(), 0, {n, n}, {n, 1}};
  };
  auto call = [&](int) {
    TideMemRef2D da = descriptor(a), db = descriptor(b), result;
    fn(&result, &da, &db);
    freeResult(result);
  };
  return concurrentRate(threads, 2.0 * n * n * n, budget, call);
}

} // namespace

int detail::getTideThreads(std::string &from, std::string &error) {
  // Checked here first: the runtime ends the process on an invalid value.
  if (const char *env = std::getenv("TIDE_NUM_THREADS"); env && *env) {
    char *end = nullptr;
    long value = std::strtol(env, &end, 10);
    if (*end || value < 1 || value > TIDE_RT_MAX_THREADS) {
      error = std::string("invalid TIDE_NUM_THREADS '") + env +
              "'; expected a whole number of threads from 1 to " +
              std::to_string(TIDE_RT_MAX_THREADS);
      return 0;
    }
    from = "TIDE_NUM_THREADS";
  } else {
    from = "the affinity mask";
  }
  return tide_rt_cpu_team_size(int64_t(1) << 40, 1, 0);
}

bool detail::compilesKernels(const Options &options) {
  return options.kernels == KernelChoice::Native ||
         (options.kernels == KernelChoice::Auto && !options.quick &&
          !std::getenv("TIDE_CALIBRATE_KERNELS"));
}

bool detail::measureCpu(Stepper &step, const Options &options, CpuFigures &cpu,
                        const std::function<void(const std::string &)> &note,
                        std::string &error) {
  cpu.threads = getTideThreads(cpu.threadsFrom, error);
  if (!cpu.threads)
    return false;
  int threads = cpu.threads;
  bool quick = options.quick;
  double budget = quick ? 0.01 : 0.6;

  size_t elements = quick ? (size_t(1) << 16) : (size_t(1) << 24);
  step("cpu memory bandwidth, 1 thread");
  cpu.coreBandwidth = triadBandwidth(1, elements, budget);
  step("cpu memory bandwidth, " + std::to_string(threads) + " threads");
  cpu.bandwidth = threads == 1 ? cpu.coreBandwidth
                               : triadBandwidth(threads, elements, budget);

  std::string tried;
  std::string dir = findKernelDirectory(tried), loopsDir = dir;
  TemporaryDirectory compiled;
  if (compilesKernels(options)) {
    step("cpu: compiling the kernels for this CPU (tide-compile --cpu=native)");
    std::string why, here = compileLoops(dir, compiled, why);
    if (!here.empty()) {
      loopsDir = here;
      cpu.kernels = "compiled here for --cpu=native";
    } else if (options.kernels == KernelChoice::Native) {
      error = "cannot compile the calibration kernels for this CPU: " + why;
      return false;
    }
    // Otherwise the prebuilt ones, as the summary and the file say.
  }
  if (!dir.empty() && cpu.kernels.empty()) {
    const char *env = std::getenv("TIDE_CALIBRATE_KERNELS");
    cpu.kernels = env && *env ? "from " + dir + " (TIDE_CALIBRATE_KERNELS)"
                              : "prebuilt for " TIDE_CALIBRATE_KERNEL_CPU;
  }
  Kernels gemm, loops, parallel;
  if (dir.empty()) {
    note("CPU rates not measured (bandwidth only): the calibration kernels "
         "(tide-calibrate/loops.so, built with Tide) are not in " +
         tried);
  } else {
#if defined(__x86_64__)
    // The prebuilt kernels are compiled for x86-64-v3 (AVX2, FMA).
    bool supported =
        __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    bool supported = true;
#endif
    if (!supported) {
      note("CPU rates not measured: the calibration kernels need AVX2 and "
           "FMA, which this CPU lacks");
    } else {
      // The GEMM kernel calls oneDNN and OpenBLAS: with the kernels Tide's
      // modules get.
      tide::runner::chooseOpenBlasKernels();
      for (auto [kernels, path] :
           {std::pair(&gemm, dir + "/gemm.so"),
            std::pair(&loops, loopsDir + "/loops.so"),
            std::pair(&parallel, dir + "/parallel.so")}) {
        error = unfitKernel(path);
        if (!error.empty())
          return false;
        if (kernels == &parallel)
          continue; // Loaded where it is timed, with more threads than one.
        kernels->handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!kernels->handle) {
          const char *why = dlerror();
          note(std::string("CPU ") +
               (kernels == &gemm
                    ? "f32/f64 GEMM (Tide calls oneDNN and OpenBLAS)"
                    : "GEMM and elementwise rates") +
               " not measured: " + (why ? why : "cannot load " + path));
        }
      }
    }
  }

  // GEMM, every dtype: oneDNN for f32, OpenBLAS for f64 (one caller, the
  // libraries' threads),
  // generated loops (every thread calling) for the others.
  for (size_t i = 0; i < kCpuDTypes.size(); ++i) {
    std::string dtype = kCpuDTypes[i];
    bool blas = dtype == "f32" || dtype == "f64";
    int64_t n = blas ? (quick ? 64 : 2048) : (quick ? 32 : 256);
    step("cpu GEMM " + dtype + " " + std::to_string(n) + "^3" +
         (dtype == "f32"   ? " (oneDNN)"
          : dtype == "f64" ? " (OpenBLAS)"
                           : " (generated loops)"));
    auto fn = (blas ? gemm : loops).get<GemmFn>("gemm_" + dtype);
    if (!fn)
      continue;
    cpu.gemm[i] = gemmRate(fn, dtype, n, blas ? 1 : threads, budget);
    cpu.gemmSize[i] = n;
    // A product the libraries thread but do not fill: its time beyond the
    // peak rate is the target's gemm_overhead_us.
    if (blas && !quick) {
      int64_t m = kSmallGemmSize;
      step("cpu GEMM " + dtype + " " + std::to_string(m) + "^3");
      std::vector<uint8_t> sa = makeInput(dtype, m * m),
                           sb = makeInput(dtype, m * m);
      auto small = [&](int) {
        TideMemRef2D da{sa.data(), sa.data(), 0, {m, m}, {m, 1}};
        TideMemRef2D db{sb.data(), sb.data(), 0, {m, m}, {m, 1}};
        TideMemRef2D result;
        fn(&result, &da, &db);
        freeResult(result);
      };
      double flops = 2.0 * m * m * m;
      double rate = concurrentRate(1, flops, budget, small);
      if (rate > 0)
        cpu.smallGemmSeconds[i] = flops / rate;
    }
  }

  // A convolution through oneDNN (gemm.mlir's conv_f32): one caller, the
  // library's threads.
  if (auto conv = gemm.get<ConvFn>("conv_f32")) {
    step("cpu convolution f32 3x3, 64 channels, 56x56 (oneDNN)");
    std::vector<uint8_t> x = makeInput("f32", 64 * 56 * 56),
                         w = makeInput("f32", 64 * 64 * 9);
    auto call = [&](int) {
      MemRef4D dx{x.data(),
                  x.data(),
                  0,
                  {1, 64, 56, 56},
                  {64 * 56 * 56, 56 * 56, 56, 1}};
      MemRef4D dw{w.data(), w.data(), 0, {64, 64, 3, 3}, {64 * 9, 9, 3, 1}};
      MemRef4D result;
      conv(&result, &dx, &dw);
      std::free(result.allocated);
    };
    cpu.convF32 = concurrentRate(1, 2.0 * 64 * 9 * 64 * 56 * 56, budget, call);
  }

  // Elementwise loops in the cache: exp (10 FLOP per element in the cost
  // model) for floats, add (1) for integers.
  for (size_t i = 0; i < kCpuDTypes.size(); ++i) {
    std::string dtype = kCpuDTypes[i];
    bool isFloat = dtype[0] == 'f' || dtype == "bf16";
    int64_t n = quick ? 1024 : 8192;
    step("cpu elementwise " + std::string(isFloat ? "exp " : "add ") + dtype +
         " (generated loops, " + std::to_string(threads) + " threads)");
    std::vector<uint8_t> x = makeInput(dtype, n), y = makeInput(dtype, n);
    MemRef1D dx{x.data(), x.data(), 0, n, 1}, dy{y.data(), y.data(), 0, n, 1};
    std::function<void(int)> call;
    if (isFloat) {
      auto fn = loops.get<UnaryFn>("exp_" + dtype);
      if (!fn)
        continue;
      call = [fn, dx](int) {
        MemRef1D in = dx, result;
        fn(&result, &in);
        freeResult(result);
      };
    } else {
      auto fn = loops.get<BinaryFn>("add_" + dtype);
      if (!fn)
        continue;
      call = [fn, dx, dy](int) {
        MemRef1D in0 = dx, in1 = dy, result;
        fn(&result, &in0, &in1);
        freeResult(result);
      };
    }
    cpu.elementwise[i] =
        concurrentRate(threads, double(n) * (isFloat ? 10 : 1), budget, call);
  }

  // The transcendental ops' cost per element against exp's, on one thread
  // in the cache (loops.mlir's unary_<op>_f32): how much a tanh costs
  // depends on the CPU and on the math library's vector code.
  step("cpu per-element cost of f32 math ops against exp (one thread)");
  if (auto expFn = loops.get<UnaryFn>("exp_f32")) {
    int64_t n = quick ? 1024 : 8192;
    std::vector<uint8_t> x = makeInput("f32", n), above = x;
    // acosh's domain starts at 1: its input is x + 1.
    for (int64_t i = 0; i < n; ++i) {
      float v;
      std::memcpy(&v, above.data() + 4 * i, 4);
      v += 1.0f;
      std::memcpy(above.data() + 4 * i, &v, 4);
    }
    auto seconds = [&](UnaryFn fn, std::vector<uint8_t> &data) {
      auto call = [&](int) {
        MemRef1D in{data.data(), data.data(), 0, n, 1}, result;
        fn(&result, &in);
        freeResult(result);
      };
      double rate = concurrentRate(1, double(n), budget / 4, call);
      return rate > 0 ? 1 / rate : 0.0;
    };
    double expSeconds = seconds(expFn, x);
    for (const char *op : kMathOps) {
      auto fn = loops.get<UnaryFn>("unary_" + std::string(op) + "_f32");
      if (!fn || expSeconds <= 0)
        continue;
      double opSeconds = seconds(fn, std::string(op) == "acosh" ? above : x);
      if (opSeconds > 0)
        cpu.flopsPerElement.emplace_back(op, 10 * opSeconds / expSeconds);
    }
  }

  step("cpu cost of a call (one-element add)");
  if (auto fn = loops.get<BinaryFn>("call")) {
    float x = 1, y = 2;
    auto call = [&](int) {
      MemRef1D dx{&x, &x, 0, 1, 1}, dy{&y, &y, 0, 1, 1}, result;
      fn(&result, &dx, &dy);
      freeResult(result);
    };
    double callsPerSecond = concurrentRate(1, 1, budget / 3, call);
    cpu.callSeconds = callsPerSecond > 0 ? 1 / callsPerSecond : 0;
  }

  // The all-thread bandwidth again, some seconds after the first pass:
  // every core of a shared host is the figure another tenant's load moves
  // most (checks on H100 machines' 16-CPU hosts read it 0.86x and 1.16x of
  // torch.add's seconds later, in both directions). Before the products'
  // second pass: the libraries' idle threads spin for a while after a call.
  step(threads > 1 ? "cpu memory bandwidth, " + std::to_string(threads) +
                         " threads again (the best of both passes)"
                   : std::string("cpu memory bandwidth again (one thread: "
                                 "measured once)"));
  if (threads > 1)
    cpu.bandwidth =
        std::max(cpu.bandwidth, triadBandwidth(threads, elements, budget));

  // The library products again, some seconds after the first pass: on a
  // shared host the load changes within seconds (a check on an H200
  // machine's 16-CPU host read 1385 and 1132 GFLOP/s for the f32 product in
  // two calibrations a minute apart, `tide-run` of the same module 1070 and
  // 1458 between them), and the best of two stretches of time describes the
  // machine better than one. Before the parallel kernel: its OpenMP runtime
  // is not the libraries' one, and its idle threads spin for a while.
  for (size_t i = 0; i < kCpuDTypes.size(); ++i) {
    std::string dtype = kCpuDTypes[i];
    if (dtype != "f32" && dtype != "f64")
      continue;
    int64_t n = quick ? 64 : 2048;
    step("cpu GEMM " + dtype + " " + std::to_string(n) +
         "^3 again (the best of both passes)");
    if (auto fn = gemm.get<GemmFn>("gemm_" + dtype))
      cpu.gemm[i] = std::max(cpu.gemm[i], gemmRate(fn, dtype, n, 1, budget));
  }

  // What one parallel loop nest costs beyond its share of the work: exp
  // over two grains (32768 elements, the pipelines' default) per thread,
  // in the cache, through the parallel kernel on every thread, against the
  // same loop on one thread divided by the threads.
  int64_t n = int64_t(2) * 32768 * threads;
  step(threads > 1 ? "cpu parallel loop start (exp over " + std::to_string(n) +
                         " f32, " + std::to_string(threads) + " threads)"
                   : std::string("cpu parallel loop start (one thread: none)"));
  if (threads > 1 && !dir.empty()) {
    std::string path = dir + "/parallel.so";
    parallel.handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    auto serialFn = loops.get<UnaryFn>("exp_f32");
    auto parallelFn = parallel.get<UnaryFn>("exp_f32");
    if (!parallel.handle) {
      const char *why = dlerror();
      note(std::string("CPU parallel loop start not measured: ") +
           (why ? why : "cannot load " + path));
    } else if (serialFn && parallelFn) {
      std::vector<uint8_t> x = makeInput("f32", n);
      auto seconds = [&](UnaryFn fn) {
        auto call = [&](int) {
          MemRef1D in{x.data(), x.data(), 0, n, 1}, result;
          fn(&result, &in);
          freeResult(result);
        };
        double rate = concurrentRate(1, 1, budget / 3, call);
        return rate > 0 ? 1 / rate : 0.0;
      };
      double serial = seconds(serialFn), par = seconds(parallelFn);
      cpu.parallelLaunchSeconds = std::max(0.0, par - serial / threads);
    }
  }
  return true;
}
