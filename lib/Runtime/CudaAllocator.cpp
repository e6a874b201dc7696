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
      releaseCached(d, a);
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
