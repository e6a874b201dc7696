//===- CudaStaging.cpp - Host copies through pinned staging ---------------===//
//
// Part of the Tide project.
//
// mgpuMemcpy in every direction. Pageable host memory goes through a ring of
// pinned slots that copy workers fill while the copy engine drains them, so
// copies from plain host memory run at about the speed of pinned ones.
//
//===----------------------------------------------------------------------===//

#include "CudaCopyWorkers.h"
#include "CudaInternal.h"
#include "tide/Runtime/CudaRuntime.h"

#include <algorithm>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <vector>

using namespace tide::cudart;

namespace {

//===----------------------------------------------------------------------===//
// Pinned staging
//===----------------------------------------------------------------------===//

#if defined(__x86_64__) || defined(__i386__)
/// Copies with non-temporal stores: the staging buffer is read next by the
/// copy engine, not by this core, so the stores need not fill the cache.
__attribute__((target("avx2"))) void streamCopy(char *dst, const char *src,
                                                size_t bytes) {
  size_t i = 0;
  if (reinterpret_cast<uintptr_t>(dst) % 32 == 0) {
    for (; i + 128 <= bytes; i += 128) {
      __m256i a =
          _mm256_loadu_si256(reinterpret_cast<const __m256i *>(src + i));
      __m256i b =
          _mm256_loadu_si256(reinterpret_cast<const __m256i *>(src + i + 32));
      __m256i c =
          _mm256_loadu_si256(reinterpret_cast<const __m256i *>(src + i + 64));
      __m256i e =
          _mm256_loadu_si256(reinterpret_cast<const __m256i *>(src + i + 96));
      _mm256_stream_si256(reinterpret_cast<__m256i *>(dst + i), a);
      _mm256_stream_si256(reinterpret_cast<__m256i *>(dst + i + 32), b);
      _mm256_stream_si256(reinterpret_cast<__m256i *>(dst + i + 64), c);
      _mm256_stream_si256(reinterpret_cast<__m256i *>(dst + i + 96), e);
    }
    _mm_sfence();
  }
  std::memcpy(dst + i, src + i, bytes - i);
}

void stageCopy(char *dst, const char *src, size_t bytes) {
  static const bool stream = [] {
    const char *env = std::getenv("TIDE_STAGING_NT");
    return __builtin_cpu_supports("avx2") &&
           !(env && std::strcmp(env, "0") == 0);
  }();
  if (stream)
    streamCopy(dst, src, bytes);
  else
    std::memcpy(dst, src, bytes);
}
#else
void stageCopy(char *dst, const char *src, size_t bytes) {
  std::memcpy(dst, src, bytes);
}
#endif

/// A ring of pinned slots. Host-to-device copies from pageable memory are
/// pipelined: workers copy pieces of the source into free slots while the
/// calling thread hands each filled slot to the copy engine, so the CPU
/// copies and the DMA overlap. Pieces are small so that all workers share
/// even a small copy; a slot (one DMA and one event) holds many pieces, so
/// driver calls stay few. The first slots of a copy are used partly (the
/// copy engine starts after microseconds, not after a whole slot).
struct Staging {
  size_t slotBytes = 0, slots = 0, pieceBytes = 0;
  char *ring = nullptr;
  std::vector<CUevent> done;
  /// For each slot, how many pieces of its current chunk are written.
  std::unique_ptr<std::atomic<size_t>[]> filled;
  std::mutex busy; // one staged copy at a time
};

Staging &staging(Driver &d) {
  // Set up once, by the first thread to get here (a function-local static
  // is initialized once even when several threads copy at the same time).
  static Staging &s = *[&d] {
    auto *s = new Staging();
    s->pieceBytes = std::max<size_t>(envSize("TIDE_STAGING_PIECE_KB", 256), 4)
                    << 10;
    s->slotBytes =
        std::max(envSize("TIDE_STAGING_SLOT_KB", 4096) << 10, s->pieceBytes);
    s->slotBytes = s->slotBytes / s->pieceBytes * s->pieceBytes;
    s->slots = std::max<size_t>(envSize("TIDE_STAGING_SLOTS", 8), 2);
    void *ring = nullptr;
    check(d, d.cuMemHostAlloc(&ring, s->slotBytes * s->slots, 0),
          "allocating pinned staging memory (cuMemHostAlloc)");
    s->ring = static_cast<char *>(ring);
    s->done.resize(s->slots);
    for (CUevent &e : s->done)
      check(d, d.cuEventCreate(&e, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
    s->filled.reset(new std::atomic<size_t>[s->slots]);
    for (size_t i = 0; i < s->slots; ++i)
      s->filled[i].store(0);
    return s;
  }();
  return s;
}

/// How a staged copy is cut: chunk c (one DMA, in slot c % slots) covers
/// pieces [first(c), first(c + 1)); the first chunks hold 1, 2, 4, ...
/// pieces, up to a slot.
struct ChunkPlan {
  size_t pieceBytes, piecesPerSlot, bytes, pieces, ramp = 0, rampPieces = 0,
                                                   chunks = 0;
  ChunkPlan(const Staging &s, size_t bytes)
      : pieceBytes(s.pieceBytes), piecesPerSlot(s.slotBytes / s.pieceBytes),
        bytes(bytes), pieces((bytes + pieceBytes - 1) / pieceBytes) {
    for (size_t n = 1; n < piecesPerSlot && rampPieces < pieces; n *= 2, ++ramp)
      rampPieces += n;
    chunks =
        rampPieces >= pieces
            ? ramp
            : ramp + (pieces - rampPieces + piecesPerSlot - 1) / piecesPerSlot;
  }
  size_t first(size_t c) const {
    size_t p = c < ramp ? (size_t(1) << c) - 1
                        : rampPieces + (c - ramp) * piecesPerSlot;
    return std::min(p, pieces);
  }
  size_t chunkOf(size_t piece) const {
    if (piece < rampPieces) {
      size_t c = 0;
      while (first(c + 1) <= piece)
        ++c;
      return c;
    }
    return ramp + (piece - rampPieces) / piecesPerSlot;
  }
  size_t byteOffset(size_t piece) const { return piece * pieceBytes; }
  size_t byteEnd(size_t piece) const {
    return std::min(bytes, (piece + 1) * pieceBytes);
  }
};

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

/// Host (pageable) -> device, pipelined through the staging ring.
void stagedToDevice(Driver &d, CUdeviceptr dst, const char *src, size_t bytes,
                    CUstream stream) {
  Staging &s = staging(d);
  std::lock_guard<std::mutex> lock(s.busy);
  ChunkPlan plan(s, bytes);
  size_t chunks = plan.chunks;
  for (size_t i = 0; i < s.slots; ++i)
    s.filled[i].store(0, std::memory_order_relaxed);
  // Chunks below `fillable` may be written: their slot's previous DMA (of
  // this copy or, for the first chunks, of an earlier one still in flight)
  // is done. The job is shared with workers that may come late: what its
  // pieces read (the plan, `fillable`) lives with it.
  struct State {
    ChunkPlan plan;
    std::atomic<size_t> fillable{0};
    explicit State(const ChunkPlan &plan) : plan(plan) {}
  };
  auto state = std::make_shared<State>(plan);
  auto job = std::make_shared<Job>();
  job->pieces = plan.pieces;
  char *ring = s.ring;
  size_t slots = s.slots, slotBytes = s.slotBytes;
  std::atomic<size_t> *filled = s.filled.get();
  job->piece = [state, ring, slots, slotBytes, filled, src](size_t p) {
    const ChunkPlan &plan = state->plan;
    size_t c = plan.chunkOf(p);
    for (unsigned spins = 0;
         c >= state->fillable.load(std::memory_order_acquire); ++spins) {
      cpuRelax();
      if (spins % 1024 == 1023) // let the thread that frees slots run
        std::this_thread::yield();
    }
    size_t slot = c % slots;
    size_t begin = plan.byteOffset(p);
    stageCopy(ring + slot * slotBytes +
                  (begin - plan.byteOffset(plan.first(c))),
              src + begin, plan.byteEnd(p) - begin);
    filled[slot].fetch_add(1, std::memory_order_release);
  };
  std::atomic<size_t> &fillable = state->fillable;
  Workers &w = workers();
  w.start(job);
  // While waiting for chunk c, the calling thread copies its next piece
  // itself (so a copy never waits for a late worker, and the chunk's DMA is
  // not put off by work on later chunks).
  auto helpOut = [&](size_t c) {
    size_t p = job->next.load(std::memory_order_relaxed);
    if (p >= job->pieces || plan.chunkOf(p) > c ||
        plan.chunkOf(p) >= fillable.load(std::memory_order_acquire) ||
        !job->next.compare_exchange_strong(p, p + 1, std::memory_order_relaxed))
      return false;
    job->piece(p);
    job->done.fetch_add(1, std::memory_order_release);
    return true;
  };
  // Frees the slot that chunk `fillable` needs once the DMA last issued
  // from it is done (waiting for it only when `block`).
  auto advance = [&](size_t issued, bool block) {
    size_t f = fillable.load(std::memory_order_relaxed);
    if (f >= chunks || (f >= s.slots && f - s.slots >= issued))
      return false;
    CUevent e = s.done[f % s.slots];
    CUresult r = block ? d.cuEventSynchronize(e) : d.cuEventQuery(e);
    if (r == CUDA_ERROR_NOT_READY)
      return false;
    check(d, r, "host-to-device copy (wait)");
    // The slot's counter restarts before workers may write the next chunk.
    s.filled[f % s.slots].store(0, std::memory_order_relaxed);
    fillable.store(f + 1, std::memory_order_release);
    return true;
  };
  for (size_t c = 0; c < chunks; ++c) {
    size_t slot = c % s.slots;
    size_t pieces = plan.first(c + 1) - plan.first(c);
    while (s.filled[slot].load(std::memory_order_acquire) != pieces) {
      if (!advance(c, /*block=*/false) && !helpOut(c))
        cpuRelax();
    }
    size_t begin = plan.byteOffset(plan.first(c));
    size_t end = plan.byteEnd(plan.first(c + 1) - 1);
    check(d,
          d.cuMemcpyHtoDAsync(dst + begin, s.ring + slot * s.slotBytes,
                              end - begin, stream),
          "host-to-device copy (cuMemcpyHtoDAsync)");
    check(d, d.cuEventRecord(s.done[slot], stream), "cuEventRecord");
    // Keep the workers supplied: free slots as their copies complete, and
    // block when every slot is in flight and the next chunk needs one.
    while (advance(c + 1, /*block=*/false))
      ;
    if (c + 1 < chunks && fillable.load(std::memory_order_relaxed) <= c + 1)
      advance(c + 1, /*block=*/true);
  }
}

/// Device -> host (pageable) through the staging ring, a slot at a time,
/// each slot copied out by all workers.
void stagedToHost(Driver &d, char *dst, CUdeviceptr src, size_t bytes,
                  CUstream stream) {
  Staging &s = staging(d);
  std::lock_guard<std::mutex> lock(s.busy);
  size_t chunk = s.slotBytes, chunks = (bytes + chunk - 1) / chunk;
  auto issue = [&](size_t c) {
    size_t n = std::min(chunk, bytes - c * chunk);
    size_t i = c % s.slots;
    // The slot may still feed an earlier host-to-device copy.
    check(d, d.cuEventSynchronize(s.done[i]), "device-to-host copy (wait)");
    check(d,
          d.cuMemcpyDtoHAsync(s.ring + i * chunk, src + c * chunk, n, stream),
          "device-to-host copy (cuMemcpyDtoHAsync)");
    check(d, d.cuEventRecord(s.done[i], stream), "cuEventRecord");
  };
  for (size_t c = 0; c < chunks && c < s.slots; ++c)
    issue(c);
  for (size_t c = 0; c < chunks; ++c) {
    size_t i = c % s.slots;
    size_t n = std::min(chunk, bytes - c * chunk);
    check(d, d.cuEventSynchronize(s.done[i]), "device-to-host copy (wait)");
    parallelCopy(dst + c * chunk, s.ring + i * chunk, n);
    if (c + s.slots < chunks)
      issue(c + s.slots);
  }
}

} // namespace

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

namespace {
/// The device copies of module constants, by slot (see
/// tide_rt_gpu_copy_constant): the copy's address and size.
struct ConstantCopies {
  std::mutex mutex;
  std::unordered_map<int64_t *, std::pair<CUdeviceptr, size_t>> bySlot;
};
ConstantCopies &constantCopies() {
  static ConstantCopies *copies = new ConstantCopies();
  return *copies;
}
} // namespace

extern "C" void tide_rt_release_constants(const void *begin, const void *end) {
  std::vector<CUdeviceptr> copies;
  {
    ConstantCopies &all = constantCopies();
    std::lock_guard<std::mutex> lock(all.mutex);
    for (auto it = all.bySlot.begin(); it != all.bySlot.end();) {
      auto *slot = reinterpret_cast<const char *>(it->first);
      if (slot >= static_cast<const char *>(begin) &&
          slot < static_cast<const char *>(end)) {
        copies.push_back(it->second.first);
        it = all.bySlot.erase(it);
      } else {
        ++it;
      }
    }
  }
  // Back to the allocator's cache (no driver call: this also runs while the
  // process exits). No call of the module is in flight: each call waited
  // for its GPU work before it returned.
  for (CUdeviceptr copy : copies)
    mgpuMemFree(reinterpret_cast<void *>(copy), nullptr);
}

namespace {
/// The device copy of the module constant `src` behind `slot` (see
/// tide_rt_gpu_copy_constant): uploaded on the first call, kept for the
/// module's life. Ends the process when the GPU has no memory for it.
CUdeviceptr deviceConstant(Driver &d, const void *src, size_t size,
                           int64_t *slot, CUstream s) {
  CUdeviceptr copy = 0;
  char why[512] = {0};
  bool fresh = false;
  {
    ConstantCopies &copies = constantCopies();
    std::lock_guard<std::mutex> lock(copies.mutex);
    auto it = copies.bySlot.find(slot);
    if (it != copies.bySlot.end() &&
        *slot == static_cast<int64_t>(it->second.first) &&
        it->second.second == size) {
      copy = it->second.first;
    } else {
      if (it != copies.bySlot.end()) {
        // The module that owned this slot is gone.
        check(d, d.cuStreamSynchronize(s), "freeing a constant's copy (wait)");
        mgpuMemFree(reinterpret_cast<void *>(it->second.first), s);
        copies.bySlot.erase(it);
      }
      // Not the call's: the copy outlives it (untracked). Out of memory is
      // reported below, once the lock is released.
      copy = tryAllocate(d, size, s, /*tracked=*/false, why, sizeof(why));
      fresh = true;
    }
    if (copy && fresh) {
      timed(d, s, "copy constant host->device (once)",
            static_cast<int64_t>(size), [&] {
              stagedToDevice(d, copy, static_cast<const char *>(src), size, s);
            });
      // Other threads' streams may use it as soon as the slot is set.
      check(d, d.cuStreamSynchronize(s), "copying a constant to the GPU");
      copies.bySlot[slot] = {copy, size};
      *slot = static_cast<int64_t>(copy);
    }
  }
  if (!copy)
    outOfMemory(why);
  return copy;
}
} // namespace

extern "C" void tide_rt_gpu_copy_constant(void *dst, const void *src,
                                          int64_t bytes, int64_t *slot) {
  Driver &d = ready("copying a constant to the GPU");
  auto s = static_cast<CUstream>(mgpuStreamCreate());
  size_t size = static_cast<size_t>(bytes);
  CUdeviceptr copy = deviceConstant(d, src, size, slot, s);
  timed(d, s, "copy constant device->device", bytes, [&] {
    check(
        d,
        d.cuMemcpyDtoDAsync(reinterpret_cast<CUdeviceptr>(dst), copy, size, s),
        "copying a constant on the GPU (cuMemcpyDtoDAsync)");
  });
}

extern "C" void *tide_rt_gpu_constant(const void *src, int64_t bytes,
                                      int64_t *slot) {
  Driver &d = ready("copying a constant to the GPU");
  auto s = static_cast<CUstream>(mgpuStreamCreate());
  return reinterpret_cast<void *>(
      deviceConstant(d, src, static_cast<size_t>(bytes), slot, s));
}
