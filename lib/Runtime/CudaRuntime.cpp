//===- CudaRuntime.cpp - Tide's GPU runtime over the CUDA driver API -----===//
//
// Part of the Tide project.
//
// The driver is opened with dlopen at first use; every entry point is looked
// up by its versioned name. Context setup is lazy too: compiled modules load
// their GPU binaries from global constructors, before main.
//
//===----------------------------------------------------------------------===//

#include "tide/Runtime/CudaRuntime.h"
#include "tide/Runtime/RuntimeSymbols.h"

#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <map>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace {

//===----------------------------------------------------------------------===//
// The driver, loaded lazily
//===----------------------------------------------------------------------===//

struct Driver {
#define TIDE_CU_FN(name, symbol, ...) CUresult (*name)(__VA_ARGS__) = nullptr;
#include "CudaDriverFunctions.def"
#undef TIDE_CU_FN
  void *handle = nullptr;
  std::string unavailable; // why the GPU cannot be used ("" when it can)
  CUcontext context = nullptr;
  CUdevice device = 0;
};

// Recursive: a fatal error raised while the lock is held exits through the
// profile report, which takes it again.
std::recursive_mutex mutex;
using Lock = std::lock_guard<std::recursive_mutex>;
Driver *theDriver = nullptr;

[[noreturn]] void fatal(const std::string &message) {
  std::fprintf(stderr, "tide runtime: error: %s\n", message.c_str());
  std::fflush(stderr);
  std::exit(1);
}

std::string errorText(Driver &d, CUresult result) {
  const char *name = nullptr, *text = nullptr;
  if (d.cuGetErrorName)
    d.cuGetErrorName(result, &name);
  if (d.cuGetErrorString)
    d.cuGetErrorString(result, &text);
  return std::string(name ? name : "CUDA error " + std::to_string(result)) +
         (text ? std::string(" (") + text + ")" : "");
}

Driver &driver() {
  Lock lock(mutex);
  if (theDriver)
    return *theDriver;
  theDriver = new Driver();
  Driver &d = *theDriver;
  d.handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!d.handle) {
    d.unavailable = "no NVIDIA driver (libcuda.so.1) on this machine, so no "
                    "GPU can be used";
    return d;
  }
#define TIDE_CU_FN(name, symbol, ...)                                          \
  d.name = reinterpret_cast<decltype(d.name)>(dlsym(d.handle, symbol));        \
  if (!d.name && d.unavailable.empty())                                        \
    d.unavailable = std::string("the NVIDIA driver lacks ") + symbol +         \
                    " (too old for this runtime)";
#include "CudaDriverFunctions.def"
#undef TIDE_CU_FN
  if (!d.unavailable.empty())
    return d;
  CUresult r = d.cuInit(0);
  if (r != CUDA_SUCCESS) {
    d.unavailable = "the NVIDIA driver found no usable GPU: " + errorText(d, r);
    return d;
  }
  int count = 0;
  if (d.cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
    d.unavailable = "no CUDA device on this machine";
    return d;
  }
  if ((r = d.cuDeviceGet(&d.device, 0)) != CUDA_SUCCESS ||
      (r = d.cuDevicePrimaryCtxRetain(&d.context, d.device)) != CUDA_SUCCESS) {
    d.unavailable = "cannot open CUDA device 0: " + errorText(d, r);
    return d;
  }
  return d;
}

/// The driver with a current context, or a plain fatal error.
Driver &ready(const char *op) {
  Driver &d = driver();
  if (!d.unavailable.empty())
    fatal(std::string(op) + ": " + d.unavailable);
  CUcontext current = nullptr;
  d.cuCtxGetCurrent(&current);
  if (current != d.context)
    d.cuCtxSetCurrent(d.context);
  return d;
}

void check(Driver &d, CUresult result, const std::string &op) {
  if (result != CUDA_SUCCESS)
    fatal(op + " failed: " + errorText(d, result));
}

//===----------------------------------------------------------------------===//
// Profile (TIDE_PROFILE=1)
//===----------------------------------------------------------------------===//

struct ProfileEntry {
  uint64_t calls = 0;
  double seconds = 0;
  double bytes = 0;
};

struct Profiler {
  bool enabled = false;
  std::map<std::string, ProfileEntry> entries;
  Profiler() {
    const char *env = std::getenv("TIDE_PROFILE");
    enabled = env && *env && std::strcmp(env, "0") != 0;
    if (enabled)
      std::atexit([] { tide_rt_profile_report(); });
  }
};

// Singletons are never destroyed: the profile is printed from an atexit
// handler, after static destructors may have run.
Profiler &profiler() {
  static Profiler *p = new Profiler();
  return *p;
}

/// Times `work` on `stream` with events when profiling is on.
template <typename Fn>
void timed(Driver &d, CUstream stream, const std::string &name, double bytes,
           Fn work) {
  Profiler &p = profiler();
  if (!p.enabled) {
    work();
    return;
  }
  CUevent start, stop;
  d.cuEventCreate(&start, CU_EVENT_DEFAULT);
  d.cuEventCreate(&stop, CU_EVENT_DEFAULT);
  d.cuEventRecord(start, stream);
  work();
  d.cuEventRecord(stop, stream);
  d.cuEventSynchronize(stop);
  float ms = 0;
  d.cuEventElapsedTime(&ms, start, stop);
  d.cuEventDestroy(start);
  d.cuEventDestroy(stop);
  Lock lock(mutex);
  ProfileEntry &e = p.entries[name];
  e.calls++;
  e.seconds += ms * 1e-3;
  e.bytes += bytes;
}

//===----------------------------------------------------------------------===//
// Caching allocator
//===----------------------------------------------------------------------===//

struct Allocator {
  std::multimap<size_t, CUdeviceptr> free; // cached blocks by size
  /// The stream whose work may still use a cached block: a block is reused
  /// only on the stream it was freed on (work there is ordered after the
  /// old use), or when it was freed with no stream work pending (null).
  std::map<CUdeviceptr, CUstream> freedOn;
  std::map<CUdeviceptr, size_t> live;      // base -> size, ordered for lookups
  uint64_t inUse = 0, cached = 0;

  /// True when `p` points into a live block (Tide's device buffers and views
  /// of them).
  bool contains(const void *p) const {
    auto address = reinterpret_cast<CUdeviceptr>(p);
    auto it = live.upper_bound(address);
    if (it == live.begin())
      return false;
    --it;
    return address < it->first + it->second;
  }
};

Allocator &allocator() {
  static Allocator *a = new Allocator();
  return *a;
}

/// Sizes are rounded so that blocks are reused across similar requests.
size_t roundSize(size_t bytes) {
  if (bytes < (1u << 20))
    return std::max<size_t>(512, (bytes + 511) & ~size_t(511));
  size_t granule = 2u << 20;
  return (bytes + granule - 1) / granule * granule;
}

//===----------------------------------------------------------------------===//
// Parallel host memcpy: one thread cannot fill pinned buffers as fast as the
// copy engine drains them (about 10 GB/s against 50), so staging copies are
// split across a small pool of worker threads.
//===----------------------------------------------------------------------===//

class CopyPool {
public:
  CopyPool() {
    unsigned n = std::thread::hardware_concurrency();
    n = std::max(1u, std::min(n, 16u));
    for (unsigned i = 1; i < n; ++i)
      workers.emplace_back([this, i] { run(i); });
    count = n;
  }
  ~CopyPool() {
    {
      std::lock_guard<std::mutex> lock(m);
      stop = true;
      ++generation;
    }
    cv.notify_all();
    for (std::thread &t : workers)
      t.join();
  }

  /// memcpy(dst, src, bytes) with every thread taking one slice.
  void copy(void *dst, const void *src, size_t bytes) {
    if (count == 1 || bytes < (1u << 20)) {
      std::memcpy(dst, src, bytes);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(m);
      job = {static_cast<char *>(dst), static_cast<const char *>(src), bytes};
      pending = count - 1;
      ++generation;
    }
    cv.notify_all();
    slice(0);
    std::unique_lock<std::mutex> lock(m);
    doneCv.wait(lock, [&] { return pending == 0; });
  }

private:
  struct Job {
    char *dst = nullptr;
    const char *src = nullptr;
    size_t bytes = 0;
  };

  void slice(unsigned i) {
    size_t per = (job.bytes + count - 1) / count;
    size_t begin = std::min(job.bytes, per * i);
    size_t end = std::min(job.bytes, begin + per);
    if (end > begin)
      std::memcpy(job.dst + begin, job.src + begin, end - begin);
  }

  void run(unsigned i) {
    uint64_t seen = 0;
    while (true) {
      {
        std::unique_lock<std::mutex> lock(m);
        cv.wait(lock, [&] { return generation != seen; });
        seen = generation;
        if (stop)
          return;
      }
      slice(i);
      {
        std::lock_guard<std::mutex> lock(m);
        if (--pending == 0)
          doneCv.notify_one();
      }
    }
  }

  std::vector<std::thread> workers;
  unsigned count = 1;
  std::mutex m;
  std::condition_variable cv, doneCv;
  Job job;
  unsigned pending = 0;
  uint64_t generation = 0;
  bool stop = false;
};

CopyPool &copyPool() {
  static CopyPool *pool = new CopyPool(); // lives until exit, never joined
  return *pool;
}

//===----------------------------------------------------------------------===//
// Pinned staging
//===----------------------------------------------------------------------===//

constexpr size_t kChunk = 8u << 20; // bytes per staging buffer
constexpr int kBuffers = 3;

struct Staging {
  void *buffer[kBuffers] = {};
  CUevent done[kBuffers] = {};
};

Staging &staging(Driver &d) {
  static Staging &s = *new Staging();
  if (!s.buffer[0]) {
    for (int i = 0; i < kBuffers; ++i) {
      check(d, d.cuMemHostAlloc(&s.buffer[i], kChunk, 0),
            "allocating pinned staging memory (cuMemHostAlloc)");
      check(d, d.cuEventCreate(&s.done[i], CU_EVENT_DISABLE_TIMING),
            "cuEventCreate");
    }
  }
  return s;
}

/// Where a pointer lives, asked without errors for plain host memory
/// (cuPointerGetAttributes reports unknown pointers as memory type 0).
unsigned memoryType(Driver &d, const void *p) {
  {
    Lock lock(mutex);
    if (allocator().contains(p))
      return CU_MEMORYTYPE_DEVICE;
  }
  unsigned type = 0;
  CUpointer_attribute attribute = CU_POINTER_ATTRIBUTE_MEMORY_TYPE;
  void *data[] = {&type};
  if (d.cuPointerGetAttributes(1, &attribute, data,
                               reinterpret_cast<CUdeviceptr>(p)) !=
      CUDA_SUCCESS)
    return 0;
  return type;
}

bool isDevicePointer(Driver &d, const void *p) {
  return memoryType(d, p) == CU_MEMORYTYPE_DEVICE;
}

bool isPinnedHost(Driver &d, const void *p) {
  return memoryType(d, p) == CU_MEMORYTYPE_HOST;
}

/// Host (pageable) -> device through two pinned buffers: the CPU fills one
/// while the copy engine drains the other.
void stagedToDevice(Driver &d, CUdeviceptr dst, const char *src, size_t bytes,
                    CUstream stream) {
  Staging &s = staging(d);
  size_t offset = 0;
  for (int i = 0; offset < bytes; i = (i + 1) % kBuffers) {
    size_t n = std::min(kChunk, bytes - offset);
    check(d, d.cuEventSynchronize(s.done[i]), "host-to-device copy (wait)");
    copyPool().copy(s.buffer[i], src + offset, n);
    check(d, d.cuMemcpyHtoDAsync(dst + offset, s.buffer[i], n, stream),
          "host-to-device copy (cuMemcpyHtoDAsync)");
    check(d, d.cuEventRecord(s.done[i], stream), "cuEventRecord");
    offset += n;
  }
}

/// Device -> host (pageable) through two pinned buffers.
void stagedToHost(Driver &d, char *dst, CUdeviceptr src, size_t bytes,
                  CUstream stream) {
  Staging &s = staging(d);
  size_t chunks = (bytes + kChunk - 1) / kChunk;
  auto issue = [&](size_t c) {
    size_t n = std::min(kChunk, bytes - c * kChunk);
    int i = c % kBuffers;
    check(d, d.cuMemcpyDtoHAsync(s.buffer[i], src + c * kChunk, n, stream),
          "device-to-host copy (cuMemcpyDtoHAsync)");
    check(d, d.cuEventRecord(s.done[i], stream), "cuEventRecord");
  };
  for (size_t c = 0; c < chunks && c < kBuffers; ++c)
    issue(c);
  for (size_t c = 0; c < chunks; ++c) {
    int i = c % kBuffers;
    size_t n = std::min(kChunk, bytes - c * kChunk);
    check(d, d.cuEventSynchronize(s.done[i]), "device-to-host copy (wait)");
    copyPool().copy(dst + c * kChunk, s.buffer[i], n);
    if (c + kBuffers < chunks)
      issue(c + kBuffers);
  }
}

std::unordered_map<CUfunction, std::string> &functionNames() {
  static auto *names = new std::unordered_map<CUfunction, std::string>();
  return *names;
}

} // namespace

//===----------------------------------------------------------------------===//
// The mgpu* ABI
//===----------------------------------------------------------------------===//

/// A GPU binary registered by a module's constructor and loaded into the
/// driver at its first kernel lookup: loading a library with GPU code works
/// where there is no GPU, and only running it says so.
struct LazyModule {
  const void *data;
  CUmodule module = nullptr;
  std::unordered_map<std::string, CUfunction> functions;
};

extern "C" void *mgpuModuleLoad(void *data, size_t) {
  return new LazyModule{data};
}

extern "C" void mgpuModuleUnload(void *handle) {
  auto *lazy = static_cast<LazyModule *>(handle);
  if (!lazy)
    return;
  Driver &d = driver();
  if (d.unavailable.empty() && lazy->module)
    d.cuModuleUnload(lazy->module);
  delete lazy;
}

extern "C" void *mgpuModuleGetFunction(void *handle, const char *name) {
  auto *lazy = static_cast<LazyModule *>(handle);
  {
    // Looked up once per kernel: compiled code asks before every launch.
    Lock lock(mutex);
    auto it = lazy->functions.find(name);
    if (it != lazy->functions.end())
      return it->second;
  }
  Driver &d = ready((std::string("running GPU kernel '") + name + "'").c_str());
  Lock lock(mutex);
  if (!lazy->module)
    check(d, d.cuModuleLoadData(&lazy->module, lazy->data),
          "loading a GPU module (cuModuleLoadData; was it compiled for this "
          "GPU's architecture?)");
  CUfunction function = nullptr;
  check(d, d.cuModuleGetFunction(&function, lazy->module, name),
        std::string("looking up kernel '") + name + "' (cuModuleGetFunction)");
  functionNames()[function] = name;
  lazy->functions[name] = function;
  return function;
}

/// Each host thread has one stream, created at its first use: compiled
/// functions "create" a stream per call and "destroy" it at the end, which
/// would cost more than a small kernel, and on one stream the work of
/// successive calls (and cuBLAS, and the caching allocator's reuse of freed
/// blocks) is ordered without extra synchronization.
CUstream &threadStream() {
  thread_local CUstream stream = nullptr;
  return stream;
}

extern "C" void *mgpuStreamCreate(void) {
  CUstream &stream = threadStream();
  if (stream)
    return stream;
  Driver &d = ready("creating a stream");
  check(d, d.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING),
        "creating a stream (cuStreamCreate)");
  return stream;
}

extern "C" void mgpuStreamSynchronize(void *stream) {
  Driver &d = ready("synchronizing a stream");
  check(d, d.cuStreamSynchronize(static_cast<CUstream>(stream)),
        "waiting for the GPU (cuStreamSynchronize; an earlier kernel or copy "
        "may have failed)");
}

extern "C" void mgpuStreamDestroy(void *) {
  // The thread's stream lives on (see threadStream).
}

extern "C" void mgpuLaunchKernel(void *function, intptr_t gridX,
                                 intptr_t gridY, intptr_t gridZ,
                                 intptr_t blockX, intptr_t blockY,
                                 intptr_t blockZ, int32_t sharedMemBytes,
                                 void *stream, void **params, void **extra,
                                 size_t) {
  Driver &d = ready("launching a kernel");
  auto f = static_cast<CUfunction>(function);
  auto name = [&] {
    Lock lock(mutex);
    auto it = functionNames().find(f);
    return it == functionNames().end() ? std::string("?") : it->second;
  };
  auto launch = [&] {
    CUresult r = d.cuLaunchKernel(f, gridX, gridY, gridZ, blockX, blockY,
                                  blockZ, sharedMemBytes,
                                  static_cast<CUstream>(stream), params, extra);
    if (r != CUDA_SUCCESS)
      check(d, r,
            "launching kernel '" + name() + "' (cuLaunchKernel, grid " +
                std::to_string(gridX) + "x" + std::to_string(gridY) + "x" +
                std::to_string(gridZ) + ", block " + std::to_string(blockX) +
                "x" + std::to_string(blockY) + "x" + std::to_string(blockZ) +
                ")");
  };
  if (!profiler().enabled)
    return launch();
  timed(d, static_cast<CUstream>(stream), "kernel " + name(), 0, launch);
}

CUstream &threadStream();

extern "C" void *mgpuMemAlloc(uint64_t bytes, void *stream, bool isHostShared) {
  Driver &d = ready("allocating device memory");
  if (isHostShared)
    fatal("allocating device memory: host-shared (managed) memory is not "
          "supported by Tide's runtime");
  size_t size = roundSize(bytes ? bytes : 1);
  Lock lock(mutex);
  Allocator &a = allocator();
  CUdeviceptr ptr = 0;
  CUstream user = stream ? static_cast<CUstream>(stream) : threadStream();
  // Reuse a cached block of this size class (no more than 2x larger) that
  // is free on this stream.
  auto it = a.free.lower_bound(size);
  for (; it != a.free.end() && it->first <= 2 * size; ++it) {
    CUstream last = a.freedOn[it->second];
    if (!last || last == user)
      break;
  }
  if (it != a.free.end() && it->first <= 2 * size) {
    size = it->first;
    ptr = it->second;
    a.freedOn.erase(ptr);
    a.free.erase(it);
    a.cached -= size;
  } else {
    CUresult r = d.cuMemAlloc(&ptr, size);
    if (r == CUDA_ERROR_OUT_OF_MEMORY && !a.free.empty()) {
      for (auto &block : a.free)
        d.cuMemFree(block.second);
      a.free.clear();
      a.freedOn.clear();
      a.cached = 0;
      r = d.cuMemAlloc(&ptr, size);
    }
    check(d, r,
          "allocating " + std::to_string(bytes) +
              " bytes of device memory (cuMemAlloc)");
  }
  a.live[ptr] = size;
  a.inUse += size;
  return reinterpret_cast<void *>(ptr);
}

extern "C" void mgpuMemFree(void *ptr, void *stream) {
  if (!ptr)
    return;
  CUstream user = stream ? static_cast<CUstream>(stream) : threadStream();
  Lock lock(mutex);
  Allocator &a = allocator();
  auto it = a.live.find(reinterpret_cast<CUdeviceptr>(ptr));
  if (it == a.live.end())
    fatal("freeing device memory that Tide's allocator did not allocate");
  a.freedOn[it->first] = user;
  a.free.emplace(it->second, it->first);
  a.inUse -= it->second;
  a.cached += it->second;
  a.live.erase(it);
}

extern "C" void mgpuMemcpy(void *dst, void *src, size_t bytes, void *stream) {
  Driver &d = ready("copying memory");
  auto s = static_cast<CUstream>(stream);
  bool dstDevice = isDevicePointer(d, dst), srcDevice = isDevicePointer(d, src);
  if (dstDevice && srcDevice) {
    timed(d, s, "copy device->device", bytes, [&] {
      check(d,
            d.cuMemcpyDtoDAsync(reinterpret_cast<CUdeviceptr>(dst),
                                reinterpret_cast<CUdeviceptr>(src), bytes, s),
            "device-to-device copy (cuMemcpyDtoDAsync)");
    });
  } else if (dstDevice) {
    timed(d, s, "copy host->device", bytes, [&] {
      if (isPinnedHost(d, src))
        check(d,
              d.cuMemcpyHtoDAsync(reinterpret_cast<CUdeviceptr>(dst), src,
                                  bytes, s),
              "host-to-device copy (cuMemcpyHtoDAsync)");
      else
        stagedToDevice(d, reinterpret_cast<CUdeviceptr>(dst),
                       static_cast<const char *>(src), bytes, s);
    });
  } else if (srcDevice) {
    timed(d, s, "copy device->host", bytes, [&] {
      if (isPinnedHost(d, dst))
        check(d,
              d.cuMemcpyDtoHAsync(dst, reinterpret_cast<CUdeviceptr>(src),
                                  bytes, s),
              "device-to-host copy (cuMemcpyDtoHAsync)");
      else
        stagedToHost(d, static_cast<char *>(dst),
                     reinterpret_cast<CUdeviceptr>(src), bytes, s);
    });
  } else {
    check(d, d.cuStreamSynchronize(s), "host-to-host copy (wait)");
    std::memcpy(dst, src, bytes);
  }
}

//===----------------------------------------------------------------------===//
// GEMM through cuBLAS, opened at first use
//===----------------------------------------------------------------------===//

namespace {

enum CublasOp { kNoTranspose = 0 };
enum CudaDataType { kR16F = 2, kR32F = 0, kR64F = 1, kR16BF = 14 };
enum CublasComputeType { kCompute32F = 68, kCompute64F = 70 };

struct Cublas {
  void *handle = nullptr; // the library
  void *blas = nullptr;   // cublasHandle_t
  std::string unavailable;
  int (*create)(void **) = nullptr;
  int (*setStream)(void *, CUstream) = nullptr;
  int (*sgemm)(void *, int, int, int, int, int, const float *, const float *,
               int, const float *, int, const float *, float *, int) = nullptr;
  int (*dgemm)(void *, int, int, int, int, int, const double *,
               const double *, int, const double *, int, const double *,
               double *, int) = nullptr;
  int (*gemmEx)(void *, int, int, int, int, int, const void *, const void *,
                int, int, const void *, int, int, const void *, void *, int,
                int, int, int) = nullptr;
};

Cublas &cublas(Driver &d) {
  static Cublas *instance = nullptr;
  Lock lock(mutex);
  if (instance)
    return *instance;
  instance = new Cublas();
  Cublas &c = *instance;
  std::vector<std::string> candidates;
  if (const char *env = std::getenv("TIDE_CUBLAS"))
    candidates.push_back(env);
  for (const char *name :
       {"libcublas.so.13", "libcublas.so.12", "libcublas.so",
        "/usr/local/cuda/lib64/libcublas.so.13",
        "/usr/local/cuda/lib64/libcublas.so.12"})
    candidates.push_back(name);
  for (const std::string &name : candidates)
    if ((c.handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)))
      break;
  if (!c.handle) {
    c.unavailable = "cuBLAS (libcublas.so.13 or .12) was not found; put its "
                    "directory on LD_LIBRARY_PATH or name the file in "
                    "TIDE_CUBLAS";
    return c;
  }
  c.create = reinterpret_cast<decltype(c.create)>(dlsym(c.handle, "cublasCreate_v2"));
  c.setStream = reinterpret_cast<decltype(c.setStream)>(dlsym(c.handle, "cublasSetStream_v2"));
  c.sgemm = reinterpret_cast<decltype(c.sgemm)>(dlsym(c.handle, "cublasSgemm_v2"));
  c.dgemm = reinterpret_cast<decltype(c.dgemm)>(dlsym(c.handle, "cublasDgemm_v2"));
  c.gemmEx = reinterpret_cast<decltype(c.gemmEx)>(dlsym(c.handle, "cublasGemmEx"));
  if (!c.create || !c.setStream || !c.sgemm || !c.dgemm || !c.gemmEx) {
    c.unavailable = "the cuBLAS library found lacks cublasCreate_v2, "
                    "cublasSgemm_v2, cublasDgemm_v2 or cublasGemmEx";
    return c;
  }
  int status = c.create(&c.blas);
  if (status != 0) {
    c.unavailable = "cublasCreate failed with status " + std::to_string(status);
    return c;
  }
  return c;
}

/// C += A * B, row-major, as the column-major C^T += B^T * A^T.
void gemm(TideMemRef2D *a, TideMemRef2D *b, TideMemRef2D *c, int32_t accumulate,
          int type) {
  Driver &d = ready("running a GPU matmul");
  Cublas &cb = cublas(d);
  if (!cb.unavailable.empty())
    fatal("running a GPU matmul: " + cb.unavailable);
  int64_t m = c->sizes[0], n = c->sizes[1], k = a->sizes[1];
  if (m == 0 || n == 0)
    return;
  size_t size = type == kR64F ? 8 : type == kR32F ? 4 : 2;
  auto ptr = [&](TideMemRef2D *x) {
    return static_cast<char *>(x->aligned) + x->offset * size;
  };
  // Leading dimensions of 1-row (or 1-column) operands may be anything.
  auto ld = [](TideMemRef2D *x) {
    return static_cast<int>(std::max<int64_t>(x->strides[0], std::max<int64_t>(x->sizes[1], 1)));
  };
  std::string name = std::string("gemm ") +
                     (type == kR64F   ? "f64"
                      : type == kR32F ? "f32"
                      : type == kR16F ? "f16"
                                      : "bf16") +
                     " " + std::to_string(m) + "x" + std::to_string(n) + "x" +
                     std::to_string(k);
  int status = 0;
  // On the calling thread's stream, after the kernels queued there.
  CUstream stream = static_cast<CUstream>(mgpuStreamCreate());
  cb.setStream(cb.blas, stream);
  timed(d, stream, name, 2.0 * m * n * k, [&] {
    const double one = 1.0, beta = accumulate ? 1.0 : 0.0;
    const float onef = 1.0f, betaf = accumulate ? 1.0f : 0.0f;
    if (type == kR64F) {
      status = cb.dgemm(cb.blas, kNoTranspose, kNoTranspose, n, m, k, &one,
                        reinterpret_cast<double *>(ptr(b)), ld(b),
                        reinterpret_cast<double *>(ptr(a)), ld(a), &beta,
                        reinterpret_cast<double *>(ptr(c)), ld(c));
    } else if (type == kR32F) {
      status = cb.sgemm(cb.blas, kNoTranspose, kNoTranspose, n, m, k, &onef,
                        reinterpret_cast<float *>(ptr(b)), ld(b),
                        reinterpret_cast<float *>(ptr(a)), ld(a), &betaf,
                        reinterpret_cast<float *>(ptr(c)), ld(c));
    } else {
      // f16/bf16 inputs and output, accumulated in f32 (default algorithm).
      status = cb.gemmEx(cb.blas, kNoTranspose, kNoTranspose, n, m, k, &onef,
                         ptr(b), type, ld(b), ptr(a), type, ld(a), &betaf,
                         ptr(c), type, ld(c), kCompute32F, -1);
    }
  });
  if (status != 0)
    fatal(name + ": cuBLAS returned status " + std::to_string(status));
}

} // namespace

extern "C" void _mlir_ciface_tide_rt_gpu_gemm_f16(TideMemRef2D *a, TideMemRef2D *b,
                                           TideMemRef2D *c, int32_t accumulate) {
  gemm(a, b, c, accumulate, kR16F);
}
extern "C" void _mlir_ciface_tide_rt_gpu_gemm_bf16(TideMemRef2D *a, TideMemRef2D *b,
                                           TideMemRef2D *c, int32_t accumulate) {
  gemm(a, b, c, accumulate, kR16BF);
}
extern "C" void _mlir_ciface_tide_rt_gpu_gemm_f32(TideMemRef2D *a, TideMemRef2D *b,
                                           TideMemRef2D *c, int32_t accumulate) {
  gemm(a, b, c, accumulate, kR32F);
}
extern "C" void _mlir_ciface_tide_rt_gpu_gemm_f64(TideMemRef2D *a, TideMemRef2D *b,
                                           TideMemRef2D *c, int32_t accumulate) {
  gemm(a, b, c, accumulate, kR64F);
}

//===----------------------------------------------------------------------===//
// Tide's own
//===----------------------------------------------------------------------===//

extern "C" int tide_rt_use_gpu(void) {
  static const int use = [] {
    Driver &d = driver();
    if (d.unavailable.empty())
      return 1;
    std::fprintf(stderr,
                 "tide runtime: note: %s; running the CPU version compiled "
                 "beside the GPU code\n",
                 d.unavailable.c_str());
    return 0;
  }();
  return use;
}

extern "C" void tide_rt_synchronize(void) {
  CUstream stream = threadStream();
  if (!stream)
    return;
  Driver &d = ready("waiting for the GPU");
  check(d, d.cuStreamSynchronize(stream),
        "waiting for the GPU (cuStreamSynchronize; an earlier kernel or copy "
        "may have failed)");
}

extern "C" int tide_rt_gpu_available(char *reason, size_t reasonSize) {
  Driver &d = driver();
  if (reason && reasonSize)
    std::snprintf(reason, reasonSize, "%s", d.unavailable.c_str());
  return d.unavailable.empty() ? 1 : 0;
}

extern "C" void tide_rt_allocator_stats(uint64_t *inUse, uint64_t *cached) {
  Lock lock(mutex);
  if (inUse)
    *inUse = allocator().inUse;
  if (cached)
    *cached = allocator().cached;
}

extern "C" void tide_rt_release_cached(void) {
  Driver &d = driver();
  Lock lock(mutex);
  Allocator &a = allocator();
  if (d.unavailable.empty())
    for (auto &block : a.free)
      d.cuMemFree(block.second);
  a.free.clear();
  a.freedOn.clear();
  a.cached = 0;
}

extern "C" void tide_rt_profile_report(void) {
  Profiler &p = profiler();
  Lock lock(mutex);
  double total = 0;
  for (auto &e : p.entries)
    total += e.second.seconds;
  std::fprintf(stderr, "tide profile (GPU time, measured with events):\n");
  std::fprintf(stderr, "  %-40s %8s %12s %12s %10s %7s\n", "what", "calls",
               "time (us)", "bytes", "GB/s", "share");
  for (auto &e : p.entries) {
    const ProfileEntry &x = e.second;
    std::fprintf(stderr, "  %-40s %8llu %12.1f %12.0f %10.2f %6.1f%%\n",
                 e.first.c_str(), static_cast<unsigned long long>(x.calls),
                 x.seconds * 1e6, x.bytes,
                 x.seconds > 0 ? x.bytes / x.seconds / 1e9 : 0.0,
                 total > 0 ? 100 * x.seconds / total : 0.0);
  }
}
