//===- CudaInternal.h - What the GPU runtime's files share ------*- C++ -*-===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// Private to libTideCudaRuntime.so: the lazily loaded driver, the lock, fatal
// errors, the profiler and the caching allocator's state. All of it has
// hidden visibility: the library exports only the C symbols of
// tide/Runtime/CudaRuntime.h and tide/Runtime/RuntimeSymbols.h.
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_LIB_RUNTIME_CUDAINTERNAL_H
#define TIDE_LIB_RUNTIME_CUDAINTERNAL_H

#include <cuda.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

/// The calling thread's stream, created by mgpuStreamCreate at the thread's
/// first use (see CudaRuntime.cpp). Declared outside the namespace below, as
/// it always was: the library's exported symbols stay the same.
CUstream &threadStream();

#pragma GCC visibility push(hidden)
namespace tide::cudart {

//===----------------------------------------------------------------------===//
// The driver, loaded lazily (CudaDriver.cpp)
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

/// The runtime's one lock. Recursive: a fatal error raised while the lock is
/// held exits through the profile report, which takes it again.
extern std::recursive_mutex mutex;
using Lock = std::lock_guard<std::recursive_mutex>;

/// Prints "tide runtime: error: <message>" and exits with status 1.
[[noreturn]] void fatal(const std::string &message);

/// The driver, opened at the first call; `unavailable` says why it cannot be
/// used, if it cannot.
Driver &driver();

/// The driver with a current context, or a plain fatal error naming `op`.
Driver &ready(const char *op);

/// A fatal error naming `op` and the CUDA error unless `result` is success.
void check(Driver &d, CUresult result, const std::string &op);

/// A positive integer from the environment, or `fallback`.
size_t envSize(const char *name, size_t fallback);

/// Why cuBLAS cannot be used ("" when it can), opening it on first use
/// (CudaBlas.cpp).
std::string cublasUnavailable(Driver &d);

//===----------------------------------------------------------------------===//
// Profile, TIDE_PROFILE=1 (CudaProfiler.cpp)
//===----------------------------------------------------------------------===//

struct Profiler {
  bool enabled = false; // TIDE_PROFILE is set and not 0
  /// TIDE_PROFILE=host: the host's time in each call (issuing the work, no
  /// events, no waiting), not the GPU's.
  bool host = false;
  /// tide_rt_profile_reset was called (the first call was left out).
  bool warmupExcluded = false;
  Profiler();
  /// Adds a call of `name` that took `seconds` and moved `bytes`.
  void record(const std::string &name, double seconds, double bytes);
};

/// The profiler, never destroyed: the profile is printed from an atexit
/// handler, after static destructors may have run.
Profiler &profiler();

/// Times `work` on `stream` with events when profiling is on.
template <typename Fn>
void timed(Driver &d, CUstream stream, const std::string &name, double bytes,
           Fn work) {
  Profiler &p = profiler();
  if (!p.enabled) {
    work();
    return;
  }
  if (p.host) {
    auto begin = std::chrono::steady_clock::now();
    work();
    p.record(
        name,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin)
            .count(),
        bytes);
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
  p.record(name, ms * 1e-3, bytes);
}

//===----------------------------------------------------------------------===//
// Caching allocator (CudaAllocator.cpp)
//===----------------------------------------------------------------------===//

struct Allocator {
  std::multimap<size_t, CUdeviceptr> free; // cached blocks by size
  /// The stream whose work may still use a cached block: a block is reused
  /// only on the stream it was freed on (work there is ordered after the
  /// old use), or when it was freed with no stream work pending (null).
  std::map<CUdeviceptr, CUstream> freedOn;
  std::map<CUdeviceptr, size_t> live; // base -> size, ordered for lookups
  /// Live blocks allocated inside a tide_rt_guarded_call, by the call (its
  /// guard): freed if the call is abandoned.
  std::map<CUdeviceptr, const void *> callOf;
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

/// The allocator, never destroyed; callers hold `mutex`.
Allocator &allocator();

/// Device memory of at least `bytes` from the cache or the driver, or 0 when
/// the GPU is out of memory (cuMemAlloc's CUDA_ERROR_OUT_OF_MEMORY after the
/// cache was released, or over TIDE_GPU_MEMORY_LIMIT), with the message in
/// `why`. `tracked`: inside tide_rt_guarded_call, the block is the call's,
/// freed if the call is abandoned (not for blocks that outlive the call,
/// such as constants' copies). Takes `mutex` itself.
CUdeviceptr tryAllocate(Driver &d, uint64_t bytes, CUstream stream,
                        bool tracked, char *why, size_t whySize);

/// Out of GPU memory. Inside tide_rt_guarded_call on this thread: frees the
/// blocks the call allocated and returns from tide_rt_guarded_call with
/// `message` (a longjmp: the caller must hold no lock, and whatever the
/// frames in between own is abandoned). Elsewhere: a fatal error.
[[noreturn]] void outOfMemory(const char *message);

} // namespace tide::cudart
#pragma GCC visibility pop

#endif // TIDE_LIB_RUNTIME_CUDAINTERNAL_H
