//===- gpu-runtime-test.cpp - Tide's GPU runtime on a real GPU -----------===//
//
// Part of the Tide project.
//
// Built on the CPU machine, run on the GPU machine (bash bench/gpu.sh; see docs/gpu.md).
// Without a GPU it says so and exits 0 having run nothing. Prints
// "N passed, M failed". With --bench, times host-to-device copies of
// (b,3,448,448) float32 batches from pageable memory.
//
//===----------------------------------------------------------------------===//

#include "tide/Runtime/CudaCalibrate.h"
#include "tide/Runtime/CudaRuntime.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {
int passed = 0, failed = 0;

void expect(bool ok, const std::string &what) {
  (ok ? passed : failed)++;
  std::printf("%s: %s\n", ok ? "PASS" : "FAIL", what.c_str());
}

/// A kernel in PTX: x[i] = x[i] + 1 for i < n.
const char *kAddOnePtx = R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry add_one(.param .u64 x, .param .u32 n) {
  .reg .pred %p;
  .reg .b32 %r<5>;
  .reg .f32 %f<3>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [x];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r2, %r2, %r3, %r4;
  setp.ge.u32 %p, %r2, %r1;
  @%p ret;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd2, %rd2, %rd3;
  ld.global.f32 %f1, [%rd2];
  add.f32 %f2, %f1, 0f3F800000;
  st.global.f32 [%rd2], %f2;
  ret;
}
)";

std::string self;

/// Runs this program again as `self --case NAME` (CUDA does not survive a
/// fork); returns its exit status and what it wrote on stderr.
std::pair<int, std::string> inChild(const char *name) {
  int pipefd[2];
  if (pipe(pipefd) != 0)
    return {-1, ""};
  std::fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(pipefd[1], 2);
    int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
    close(pipefd[0]);
    execl(self.c_str(), self.c_str(), "--case", name, (char *)nullptr);
    _exit(127);
  }
  close(pipefd[1]);
  std::string err;
  char buf[512];
  ssize_t n;
  while ((n = read(pipefd[0], buf, sizeof buf)) > 0)
    err.append(buf, n);
  close(pipefd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, err};
}

void roundTrip(void *stream, size_t bytes, std::mt19937 &rng) {
  std::vector<unsigned char> host(bytes), back(bytes, 0);
  for (auto &b : host)
    b = rng() & 0xff;
  void *dev = mgpuMemAlloc(bytes, stream, false);
  void *dev2 = mgpuMemAlloc(bytes, stream, false);
  mgpuMemcpy(dev, host.data(), bytes, stream);
  mgpuMemcpy(dev2, dev, bytes, stream);
  mgpuMemcpy(back.data(), dev2, bytes, stream);
  mgpuStreamSynchronize(stream);
  expect(host == back, "round trip host->device->device->host of " +
                           std::to_string(bytes) + " bytes");
  mgpuMemFree(dev, stream);
  mgpuMemFree(dev2, stream);
}

/// The host's memcpy bandwidth with `threads` threads over `bytes` (median
/// of 10): the ceiling for copies through pinned staging.
double memcpyBandwidth(unsigned threads, size_t bytes) {
  std::vector<char> src(bytes, 1), dst(bytes, 2);
  std::vector<double> times;
  for (int rep = 0; rep < 10; ++rep) {
    auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    size_t per = (bytes + threads - 1) / threads;
    for (unsigned t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        size_t begin = std::min(bytes, per * t), end = std::min(bytes, begin + per);
        std::memcpy(dst.data() + begin, src.data() + begin, end - begin);
      });
    for (std::thread &t : pool)
      t.join();
    times.push_back(std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - start)
                        .count());
  }
  std::sort(times.begin(), times.end());
  return bytes / times[times.size() / 2] / 1e9;
}

void bench(void *stream) {
  std::printf("host memcpy, 77 MB (GB/s by thread count):");
  for (unsigned t : {1u, 2u, 4u, 8u, 16u})
    std::printf("  %u: %.1f", t, memcpyBandwidth(t, size_t(32) * 3 * 448 * 448 * 4));
  std::printf("\n");
  std::printf("host-to-device from pageable memory through pinned staging:\n");
  for (int b : {1, 2, 4, 8, 16, 32}) {
    size_t bytes = size_t(b) * 3 * 448 * 448 * 4;
    std::vector<float> host(bytes / 4, 1.0f);
    void *dev = mgpuMemAlloc(bytes, stream, false);
    mgpuMemcpy(dev, host.data(), bytes, stream); // warm up
    mgpuStreamSynchronize(stream);
    std::vector<double> times;
    for (int i = 0; i < 20; ++i) {
      auto start = std::chrono::steady_clock::now();
      mgpuMemcpy(dev, host.data(), bytes, stream);
      mgpuStreamSynchronize(stream);
      times.push_back(std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - start)
                          .count());
    }
    std::sort(times.begin(), times.end());
    double median = times[times.size() / 2];
    std::printf("  b=%2d %9zu bytes: median %8.1f us, %6.2f GB/s\n", b, bytes,
                median * 1e6, bytes / median / 1e9);
    mgpuMemFree(dev, stream);
  }
}
} // namespace

/// The failing cases, each in its own process.
int runCase(const std::string &name) {
  void *stream = mgpuStreamCreate();
  if (name == "missing-kernel") {
    void *module = mgpuModuleLoad(const_cast<char *>(kAddOnePtx),
                                  std::strlen(kAddOnePtx));
    mgpuModuleGetFunction(module, "nosuch");
  } else if (name == "foreign-free") {
    mgpuMemFree((void *)0x1234, stream);
  } else if (name == "huge-alloc") {
    mgpuMemAlloc(uint64_t(1) << 50, stream, false);
  } else if (name == "limit-oom") {
    setenv("TIDE_GPU_MEMORY_LIMIT", "16777216", 1);
    mgpuMemAlloc(32u << 20, stream, false);
  } else if (name == "guarded-oom") {
    // Out of memory inside tide_rt_guarded_call: the call is abandoned with
    // the message, its blocks are freed, and later calls work.
    setenv("TIDE_GPU_MEMORY_LIMIT", "16777216", 1);
    struct Call {
      void *stream;
      void *block;
    } call{stream, nullptr};
    char error[1024];
    int ok = tide_rt_guarded_call(
        [](void *c) {
          auto *call = static_cast<Call *>(c);
          call->block = mgpuMemAlloc(4u << 20, call->stream, false);
          mgpuMemAlloc(32u << 20, call->stream, false);
          std::abort(); // not reached
        },
        &call, error, sizeof error);
    bool good = ok == 0 &&
                std::strstr(error, "out of GPU memory: needed 33554432 bytes "
                                   "on cuda:0") &&
                std::strstr(error, "TIDE_GPU_MEMORY_LIMIT");
    uint64_t inUse = 1, cached = 0;
    tide_rt_allocator_stats(&inUse, &cached);
    good &= inUse == 0;
    std::fprintf(stderr, "guarded: %d, in use after: %llu, error: %s\n", ok,
                 static_cast<unsigned long long>(inUse), error);
    call.block = nullptr;
    ok = tide_rt_guarded_call(
        [](void *c) {
          auto *call = static_cast<Call *>(c);
          call->block = mgpuMemAlloc(8u << 20, call->stream, false);
        },
        &call, error, sizeof error);
    good &= ok == 1 && call.block;
    mgpuMemFree(call.block, stream);
    std::mt19937 rng(1);
    roundTrip(stream, (1u << 20) + 3, rng);
    good &= failed == 0;
    std::fprintf(stderr, "after: %d, %s\n", ok, good ? "good" : "BAD");
    return good ? 0 : 1;
  } else if (name == "bad-staging-env") {
    setenv("TIDE_STAGING_SLOTS", "many", 1);
    std::vector<char> host(1 << 20, 1);
    void *dev = mgpuMemAlloc(host.size(), stream, false);
    mgpuMemcpy(dev, host.data(), host.size(), stream);
  } else if (name == "tiny-staging") {
    // Many chunks through a two-slot ring of 12 KiB slots and 4 KiB pieces:
    // every slot is reused many times within one copy.
    setenv("TIDE_STAGING_PIECE_KB", "4", 1);
    setenv("TIDE_STAGING_SLOT_KB", "12", 1);
    setenv("TIDE_STAGING_SLOTS", "2", 1);
    std::mt19937 rng(7);
    for (size_t bytes : {size_t(5), size_t(12289), size_t(1u << 20) + 3})
      roundTrip(stream, bytes, rng);
    return failed ? 1 : 0;
  }
  return 0;
}

int main(int argc, char **argv) {
  self = argv[0];
  if (argc > 2 && std::strcmp(argv[1], "--case") == 0)
    return runCase(argv[2]);
  bool doBench = argc > 1 && std::strcmp(argv[1], "--bench") == 0;
  char reason[512];
  if (!tide_rt_gpu_available(reason, sizeof reason)) {
    std::printf("no GPU: %s\n", reason);
    // Calibration says the same, and measures nothing.
    TideGpuCalibration c;
    char why[512] = {0};
    int measured = tide_rt_calibrate_gpu(nullptr, &c, why, sizeof why);
    std::printf("calibration: %d, %s\n", measured, why);
    // A guarded call runs its function (nothing to allocate).
    int ran = 0;
    char error[256];
    int ok = tide_rt_guarded_call([](void *r) { *static_cast<int *>(r) = 1; },
                                  &ran, error, sizeof error);
    std::printf("guarded call: %d, ran %d\n", ok, ran);
    std::printf("0 passed, 0 failed\n");
    return 0;
  }
  void *stream = mgpuStreamCreate();
  if (doBench) {
    bench(stream);
    return 0;
  }
  std::mt19937 rng(42);
  // Sizes around the staging pipeline's cuts: one piece, the ramp of
  // growing chunks, whole slots, many trips around the ring.
  for (size_t bytes : {size_t(1), size_t(4097), size_t(256u << 10) + 1,
                       size_t(3u << 20) + 17, size_t(8u << 20) + 3,
                       size_t(64u << 20) + 5, size_t(77070336)})
    roundTrip(stream, bytes, rng);

  // Back-to-back copies from pageable memory with no wait between them: each
  // reuses the staging slots of the one before while its DMA may still run,
  // and its source is overwritten as soon as the copy returns.
  {
    const size_t bytes = (3u << 20) + 17;
    const int copies = 8;
    std::vector<std::vector<unsigned char>> want(copies);
    std::vector<void *> devs(copies);
    std::vector<unsigned char> src(bytes);
    for (int i = 0; i < copies; ++i) {
      for (auto &b : src)
        b = rng() & 0xff;
      want[i] = src;
      devs[i] = mgpuMemAlloc(bytes, stream, false);
      mgpuMemcpy(devs[i], src.data(), bytes, stream);
    }
    std::fill(src.begin(), src.end(), 0);
    bool same = true;
    std::vector<unsigned char> back(bytes);
    for (int i = 0; i < copies; ++i) {
      mgpuMemcpy(back.data(), devs[i], bytes, stream);
      mgpuStreamSynchronize(stream);
      same &= back == want[i];
      mgpuMemFree(devs[i], stream);
    }
    expect(same, "8 back-to-back copies from pageable memory, sources "
                 "overwritten at once, arrive intact");
  }

  // The caching allocator hands back a freed block of the same size (from
  // an empty cache: blocks cached above could serve the request too).
  mgpuStreamSynchronize(stream);
  tide_rt_release_cached();
  void *a = mgpuMemAlloc(1 << 20, stream, false);
  mgpuMemFree(a, stream);
  void *b = mgpuMemAlloc(1 << 20, stream, false);
  expect(a == b, "a freed block is reused for the next allocation");
  uint64_t inUse = 0, cached = 0;
  tide_rt_allocator_stats(&inUse, &cached);
  expect(inUse >= (1u << 20), "allocator reports memory in use");
  mgpuMemFree(b, stream);
  tide_rt_release_cached();
  tide_rt_allocator_stats(&inUse, &cached);
  expect(cached == 0, "release_cached returns cached memory");

  // A kernel from PTX.
  const int n = 1000003;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i)
    x[i] = static_cast<float>(i % 1000) * 0.5f;
  void *module = mgpuModuleLoad(const_cast<char *>(kAddOnePtx),
                                std::strlen(kAddOnePtx));
  void *kernel = mgpuModuleGetFunction(module, "add_one");
  void *dx = mgpuMemAlloc(n * sizeof(float), stream, false);
  mgpuMemcpy(dx, x.data(), n * sizeof(float), stream);
  unsigned count = n;
  void *params[] = {&dx, &count};
  mgpuLaunchKernel(kernel, (n + 255) / 256, 1, 1, 256, 1, 1, 0, stream, params,
                   nullptr, 2);
  mgpuMemcpy(y.data(), dx, n * sizeof(float), stream);
  mgpuStreamSynchronize(stream);
  bool ok = true;
  for (int i = 0; i < n; ++i)
    ok &= y[i] == x[i] + 1.0f;
  expect(ok, "a PTX kernel loaded with mgpuModuleLoad adds one everywhere");
  mgpuMemFree(dx, stream);

  // A quick calibration (tide-calibrate --quick): every figure is measured,
  // or a note says why (GEMM without cuBLAS on the library path).
  {
    TideGpuCalibrateOptions options{};
    options.quick = 1;
    TideGpuCalibration c;
    char why[512] = {0};
    int measured = tide_rt_calibrate_gpu(&options, &c, why, sizeof why);
    std::string notes = c.notes;
    bool gemms = true;
    for (double rate : c.gemmFlops)
      gemms &= rate > 0;
    bool gemmNoted = notes.find("GEMM") != std::string::npos;
    expect(measured == 1 && c.copyBandwidth > 0 && c.launchSeconds > 0 &&
               c.launchWaitSeconds >= c.launchSeconds * 0.5 &&
               c.h2dPinned > 0 && c.h2dPageable > 0 && c.d2hPinned > 0 &&
               c.d2hPageable > 0 && c.copyLatency > 0 &&
               (gemms || gemmNoted),
           "a quick calibration measures every figure (notes: '" + notes +
               "')");
  }

  // Errors name the operation and the CUDA error, and exit 1.
  auto [status, err] = inChild("missing-kernel");
  expect(status == 1 && err.find("looking up kernel 'nosuch'") !=
                            std::string::npos &&
             err.find("CUDA_ERROR_NOT_FOUND") != std::string::npos,
         "a missing kernel is reported by name with the CUDA error: " + err);
  auto [status2, err2] = inChild("foreign-free");
  expect(status2 == 1 && err2.find("did not allocate") != std::string::npos,
         "freeing a foreign pointer is reported: " + err2);
  auto [status3, err3] = inChild("huge-alloc");
  expect(status3 == 1 &&
             err3.find("out of GPU memory: needed 1125899906842624 bytes on "
                       "cuda:0") != std::string::npos,
         "an impossible allocation names the size and the free memory: " +
             err3);
  auto [status6, err6] = inChild("limit-oom");
  expect(status6 == 1 &&
             err6.find("out of GPU memory: needed 33554432 bytes on cuda:0, "
                       "16777216 free of 16777216 (TIDE_GPU_MEMORY_LIMIT)") !=
                 std::string::npos,
         "TIDE_GPU_MEMORY_LIMIT makes a larger allocation fail: " + err6);
  auto [status7, err7] = inChild("guarded-oom");
  expect(status7 == 0, "out of memory in tide_rt_guarded_call returns the "
                       "message and frees the call's blocks: " + err7);

  auto [status4, err4] = inChild("bad-staging-env");
  expect(status4 == 1 &&
             err4.find("TIDE_STAGING_SLOTS='many' is not a positive integer") !=
                 std::string::npos,
         "a bad staging setting is reported by name: " + err4);
  auto [status5, err5] = inChild("tiny-staging");
  expect(status5 == 0, "copies through a two-slot ring of 12 KiB slots are "
                       "exact (exit status " + std::to_string(status5) + ")");

  mgpuModuleUnload(module);
  mgpuStreamDestroy(stream);
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
