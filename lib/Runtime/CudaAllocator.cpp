//===- CudaAllocator.cpp - The caching device allocator -------------------===//
//
// Part of the Tide project.
//
// mgpuMemAlloc and mgpuMemFree: freed blocks are cached by size and reused
// on the stream they were freed on, so that compiled functions that allocate
// per call do not pay cuMemAlloc and cuMemFree (which synchronize) each time.
//
//===----------------------------------------------------------------------===//

#include "CudaInternal.h"
#include "tide/Runtime/CudaRuntime.h"

#include <algorithm>
#include <csetjmp>
#include <cstdio>
#include <vector>

using namespace tide::cudart;

namespace {

/// Sizes are rounded so that blocks are reused across similar requests.
size_t roundSize(size_t bytes) {
  if (bytes < (1u << 20))
    return std::max<size_t>(512, (bytes + 511) & ~size_t(511));
  size_t granule = 2u << 20;
  return (bytes + granule - 1) / granule * granule;
}

/// Returns every cached block to the driver; the caller holds `mutex`.
void releaseCached(Driver &d, Allocator &a) {
  if (d.unavailable.empty())
    for (auto &block : a.free)
      d.cuMemFree(block.second);
  a.free.clear();
  a.freedOn.clear();
  a.cached = 0;
}

} // namespace

Allocator &tide::cudart::allocator() {
  static Allocator *a = new Allocator();
  return *a;
}

namespace {

/// A call run by tide_rt_guarded_call on this thread.
struct Guard {
  jmp_buf jump;
  char message[1024] = {0};
  Guard *outer = nullptr;
};

thread_local Guard *activeGuard = nullptr;

/// TIDE_GPU_MEMORY_LIMIT: the most device memory the allocator holds (in
/// use and cached), in bytes; 0 for no limit but the GPU's.
uint64_t memoryLimit() {
  static const uint64_t limit = envSize("TIDE_GPU_MEMORY_LIMIT", 0);
  return limit;
}

} // namespace

CUdeviceptr tide::cudart::tryAllocate(Driver &d, uint64_t bytes,
                                      CUstream stream, bool tracked, char *why,
                                      size_t whySize) {
  size_t size = roundSize(bytes ? bytes : 1);
  Lock lock(mutex);
  Allocator &a = allocator();
  CUdeviceptr ptr = 0;
  CUstream user = stream ? stream : threadStream();
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
    uint64_t limit = memoryLimit();
    // Over the limit counts as the driver's out-of-memory error.
    auto alloc = [&] {
      if (limit && a.inUse + a.cached + size > limit)
        return CUDA_ERROR_OUT_OF_MEMORY;
      return d.cuMemAlloc(&ptr, size);
    };
    CUresult r = alloc();
    if (r == CUDA_ERROR_OUT_OF_MEMORY && !a.free.empty()) {
      releaseCached(d, a);
      r = alloc();
    }
    if (r == CUDA_ERROR_OUT_OF_MEMORY) {
      size_t freeBytes = 0, totalBytes = 0;
      if (limit) {
        totalBytes = limit;
        freeBytes = a.inUse < limit ? limit - a.inUse : 0;
      } else {
        d.cuMemGetInfo(&freeBytes, &totalBytes);
      }
      std::snprintf(why, whySize,
                    "out of GPU memory: needed %llu bytes on cuda:0, %llu "
                    "free of %llu%s (Tide's allocator holds %llu bytes in use, "
                    "%llu cached)",
                    static_cast<unsigned long long>(bytes),
                    static_cast<unsigned long long>(freeBytes),
                    static_cast<unsigned long long>(totalBytes),
                    limit ? " (TIDE_GPU_MEMORY_LIMIT)" : "",
                    static_cast<unsigned long long>(a.inUse),
                    static_cast<unsigned long long>(a.cached));
      return 0;
    }
    check(d, r,
          "allocating " + std::to_string(bytes) +
              " bytes of device memory (cuMemAlloc)");
  }
  a.live[ptr] = size;
  a.inUse += size;
  if (tracked && activeGuard)
    a.callOf[ptr] = activeGuard;
  return ptr;
}

[[noreturn]] void tide::cudart::outOfMemory(const char *message) {
  Guard *g = activeGuard;
  if (!g)
    fatal(message);
  std::snprintf(g->message, sizeof(g->message), "%s", message);
  // The abandoned call's blocks go back to the cache, on this thread's
  // stream: work already queued there that uses them runs first.
  {
    std::vector<CUdeviceptr> blocks;
    {
      Lock lock(mutex);
      for (auto [block, call] : allocator().callOf)
        if (call == g)
          blocks.push_back(block);
    }
    for (CUdeviceptr block : blocks)
      mgpuMemFree(reinterpret_cast<void *>(block), nullptr);
  }
  longjmp(g->jump, 1);
}

extern "C" void tide_rt_fail_guarded_call(const char *message) {
  outOfMemory(message ? message : "the call failed");
}

extern "C" void *mgpuMemAlloc(uint64_t bytes, void *stream, bool isHostShared) {
  Driver &d = ready("allocating device memory");
  if (isHostShared)
    fatal("allocating device memory: host-shared (managed) memory is not "
          "supported by Tide's runtime");
  char why[512];
  CUdeviceptr ptr = tryAllocate(d, bytes, static_cast<CUstream>(stream),
                                /*tracked=*/true, why, sizeof(why));
  if (!ptr)
    outOfMemory(why);
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
  a.callOf.erase(it->first);
  a.freedOn[it->first] = user;
  a.free.emplace(it->second, it->first);
  a.inUse -= it->second;
  a.cached += it->second;
  a.live.erase(it);
}

extern "C" int tide_rt_guarded_call(void (*fn)(void *), void *context,
                                    char *error, size_t errorSize) {
  if (error && errorSize)
    error[0] = 0;
  Guard guard;
  guard.outer = activeGuard;
  activeGuard = &guard;
  if (setjmp(guard.jump) == 0) {
    fn(context);
    activeGuard = guard.outer;
    // What the call allocated and still holds is its caller's now (the
    // enclosing guarded call's, if any).
    Lock lock(mutex);
    auto &callOf = allocator().callOf;
    for (auto it = callOf.begin(); it != callOf.end();) {
      if (it->second != &guard) {
        ++it;
      } else if (guard.outer) {
        it->second = guard.outer;
        ++it;
      } else {
        it = callOf.erase(it);
      }
    }
    return 1;
  }
  activeGuard = guard.outer;
  if (error && errorSize)
    std::snprintf(error, errorSize, "%s", guard.message);
  return 0;
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
  releaseCached(d, allocator());
}
