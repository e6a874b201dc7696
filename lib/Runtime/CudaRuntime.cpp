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
#include <atomic>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif
#include <memory>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <map>
#include <condition_variable>
#include <functional>
#include <limits>
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
// Copy workers: one thread cannot copy pageable memory into pinned buffers as
// fast as the copy engine drains them (about 10 GB/s against 50), so staging
// copies are spread over a pool of worker threads. Workers spin for a short
// while after a job (back-to-back copies find them awake: waking a sleeping
// thread costs tens of microseconds, a whole small copy's worth) and then
// sleep.
//===----------------------------------------------------------------------===//

/// A positive integer from the environment, or `fallback`.
size_t envSize(const char *name, size_t fallback) {
  const char *v = std::getenv(name);
  if (!v || !*v)
    return fallback;
  char *end = nullptr;
  unsigned long long n = std::strtoull(v, &end, 10);
  if (*end || n == 0)
    fatal(std::string(name) + "='" + v + "' is not a positive integer");
  return static_cast<size_t>(n);
}

inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/// A job: `pieces` pieces of work, taken in order by whichever threads come
/// (workers and the caller). Workers hold the job by shared_ptr, so one that
/// comes late finds nothing left and touches nothing of the caller's.
struct Job {
  std::function<void(size_t)> piece;
  size_t pieces = 0;
  std::atomic<size_t> next{0}, done{0};

  /// Takes and runs one piece; false when none is left.
  bool runOne() {
    size_t p = next.fetch_add(1, std::memory_order_relaxed);
    if (p >= pieces)
      return false;
    piece(p);
    done.fetch_add(1, std::memory_order_release);
    return true;
  }
  bool finished() const { return done.load(std::memory_order_acquire) == pieces; }
};

class Workers {
public:
  Workers() {
    unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    // The calling thread coordinates and one core is left to the rest of
    // the process (14 copying threads measured best on a 16-core host).
    count = static_cast<unsigned>(
        std::clamp<size_t>(envSize("TIDE_STAGING_THREADS", hw > 2 ? hw - 2 : 1),
                           1, 64));
    for (unsigned i = 0; i < count; ++i)
      threads.emplace_back([this] { run(); });
  }

  unsigned size() const { return count; }

  /// Offers `job` to the workers. The caller waits for job->finished()
  /// (taking pieces itself meanwhile, where it can), never for the workers:
  /// a worker that is asleep or descheduled does not hold a copy up.
  void start(std::shared_ptr<Job> job) {
    {
      std::lock_guard<std::mutex> lock(jobMutex);
      current = std::move(job);
    }
    generation.fetch_add(1, std::memory_order_seq_cst);
    if (sleepers.load(std::memory_order_seq_cst)) {
      std::lock_guard<std::mutex> lock(m);
      cv.notify_all();
    }
  }

private:
  void run() {
    uint64_t seen = 0;
    while (true) {
      uint64_t g = generation.load(std::memory_order_acquire);
      for (int spin = 0; g == seen && spin < kSpins; ++spin) {
        cpuRelax();
        g = generation.load(std::memory_order_acquire);
      }
      if (g == seen) {
        std::unique_lock<std::mutex> lock(m);
        sleepers.fetch_add(1, std::memory_order_seq_cst);
        cv.wait(lock, [&] {
          return generation.load(std::memory_order_seq_cst) != seen;
        });
        sleepers.fetch_sub(1, std::memory_order_seq_cst);
        continue;
      }
      seen = g;
      std::shared_ptr<Job> job;
      {
        std::lock_guard<std::mutex> lock(jobMutex);
        job = current;
      }
      while (job && job->runOne())
        ;
    }
  }

  /// About a millisecond of pause instructions.
  static constexpr int kSpins = 1 << 15;
  std::vector<std::thread> threads;
  unsigned count = 1;
  std::mutex jobMutex;
  std::shared_ptr<Job> current;
  std::atomic<uint64_t> generation{0};
  std::atomic<unsigned> sleepers{0};
  std::mutex m;
  std::condition_variable cv;
};

Workers &workers() {
  static Workers *w = new Workers(); // lives until exit, never joined
  return *w;
}

/// memcpy(dst, src, bytes) in 256 KiB pieces shared by the workers and the
/// calling thread.
void parallelCopy(void *dst, const void *src, size_t bytes) {
  constexpr size_t kPiece = 256u << 10;
  Workers &w = workers();
  if (w.size() == 1 || bytes < 2 * kPiece) {
    std::memcpy(dst, src, bytes);
    return;
  }
  auto job = std::make_shared<Job>();
  job->pieces = (bytes + kPiece - 1) / kPiece;
  job->piece = [=](size_t p) {
    size_t begin = p * kPiece, end = std::min(bytes, begin + kPiece);
    std::memcpy(static_cast<char *>(dst) + begin,
                static_cast<const char *>(src) + begin, end - begin);
  };
  w.start(job);
  while (job->runOne())
    ;
  while (!job->finished())
    cpuRelax();
}

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
      __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(src + i));
      __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(src + i + 32));
      __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(src + i + 64));
      __m256i e = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(src + i + 96));
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
    return __builtin_cpu_supports("avx2") && !(env && std::strcmp(env, "0") == 0);
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
    s->slotBytes = std::max(envSize("TIDE_STAGING_SLOT_KB", 4096) << 10, s->pieceBytes);
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
    chunks = rampPieces >= pieces
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
    stageCopy(ring + slot * slotBytes + (begin - plan.byteOffset(plan.first(c))),
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
    check(d, d.cuMemcpyDtoHAsync(s.ring + i * chunk, src + c * chunk, n, stream),
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
  /// The handle is shared: its stream is set and the GEMM queued under this
  /// lock, so each thread's GEMM goes to that thread's stream.
  std::mutex calls;
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
  int (*gemmStridedBatchedEx)(void *, int, int, int, int, int, const void *,
                              const void *, int, int, long long, const void *,
                              int, int, long long, const void *, void *, int,
                              int, long long, int, int, int) = nullptr;
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
  c.gemmStridedBatchedEx = reinterpret_cast<decltype(c.gemmStridedBatchedEx)>(
      dlsym(c.handle, "cublasGemmStridedBatchedEx"));
  if (!c.create || !c.setStream || !c.sgemm || !c.dgemm || !c.gemmEx ||
      !c.gemmStridedBatchedEx) {
    c.unavailable = "the cuBLAS library found lacks cublasCreate_v2, "
                    "cublasSgemm_v2, cublasDgemm_v2, cublasGemmEx or "
                    "cublasGemmStridedBatchedEx";
    return c;
  }
  int status = c.create(&c.blas);
  if (status != 0) {
    c.unavailable = "cublasCreate failed with status " + std::to_string(status);
    return c;
  }
  return c;
}

/// A GEMM operand as cuBLAS sees it: rows x cols, the row stride, and the
/// batch count (0 for none).
struct GemmOperand {
  int64_t rows, cols, rowStride, batch;
};

/// cuBLAS takes 32-bit sizes and distinct rows (a leading dimension at
/// least the row length): anything else is reported, not run.
void checkGemmOperands(const char *what, std::initializer_list<GemmOperand> operands) {
  const int64_t limit = std::numeric_limits<int>::max();
  for (const GemmOperand &o : operands) {
    for (int64_t v : {o.rows, o.cols, o.rowStride, o.batch})
      if (v > limit)
        fatal(std::string(what) + ": a size or stride of " + std::to_string(v) +
              " exceeds cuBLAS's 32-bit limit");
    if (o.rows > 1 && o.rowStride < o.cols)
      fatal(std::string(what) + ": an operand's rows overlap (row stride " +
            std::to_string(o.rowStride) + " < row length " + std::to_string(o.cols) +
            "), which cuBLAS cannot read");
  }
}

size_t elementSize(int type) {
  return type == kR64F ? 8 : type == kR32F ? 4 : 2;
}

const char *elementName(int type) {
  return type == kR64F   ? "f64"
         : type == kR32F ? "f32"
         : type == kR16F ? "f16"
                         : "bf16";
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
  checkGemmOperands("a GPU matmul", {{a->sizes[0], a->sizes[1], a->strides[0], 0},
                                     {b->sizes[0], b->sizes[1], b->strides[0], 0},
                                     {c->sizes[0], c->sizes[1], c->strides[0], 0}});
  size_t size = elementSize(type);
  auto ptr = [&](TideMemRef2D *x) {
    return static_cast<char *>(x->aligned) + x->offset * size;
  };
  // Leading dimensions of 1-row (or 1-column) operands may be anything.
  auto ld = [](TideMemRef2D *x) {
    return static_cast<int>(std::max<int64_t>(x->strides[0], std::max<int64_t>(x->sizes[1], 1)));
  };
  std::string name = std::string("gemm ") + elementName(type) + " " +
                     std::to_string(m) + "x" + std::to_string(n) + "x" +
                     std::to_string(k);
  int status = 0;
  // On the calling thread's stream, after the kernels queued there.
  CUstream stream = static_cast<CUstream>(mgpuStreamCreate());
  std::lock_guard<std::mutex> serial(cb.calls);
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

/// For each batch b: C[b] (+)= A[b] * B[b], as one strided batched cuBLAS
/// call (row-major, as the column-major C^T = B^T * A^T).
void gemmBatched(TideMemRef3D *a, TideMemRef3D *b, TideMemRef3D *c,
                 int32_t accumulate, int type) {
  Driver &d = ready("running a GPU batched matmul");
  Cublas &cb = cublas(d);
  if (!cb.unavailable.empty())
    fatal("running a GPU batched matmul: " + cb.unavailable);
  int64_t batch = c->sizes[0], m = c->sizes[1], n = c->sizes[2], k = a->sizes[2];
  if (batch == 0 || m == 0 || n == 0)
    return;
  checkGemmOperands("a GPU batched matmul",
                    {{a->sizes[1], a->sizes[2], a->strides[1], batch},
                     {b->sizes[1], b->sizes[2], b->strides[1], batch},
                     {c->sizes[1], c->sizes[2], c->strides[1], batch}});
  size_t size = elementSize(type);
  auto ptr = [&](TideMemRef3D *x) {
    return static_cast<char *>(x->aligned) + x->offset * size;
  };
  auto ld = [](TideMemRef3D *x) {
    return static_cast<int>(std::max<int64_t>(x->strides[1], std::max<int64_t>(x->sizes[2], 1)));
  };
  std::string name = std::string("batched gemm ") + elementName(type) + " " +
                     std::to_string(batch) + "x" + std::to_string(m) + "x" +
                     std::to_string(n) + "x" + std::to_string(k);
  int status = 0;
  CUstream stream = static_cast<CUstream>(mgpuStreamCreate());
  std::lock_guard<std::mutex> serial(cb.calls);
  cb.setStream(cb.blas, stream);
  timed(d, stream, name, 2.0 * batch * m * n * k, [&] {
    const double one = 1.0, beta = accumulate ? 1.0 : 0.0;
    const float onef = 1.0f, betaf = accumulate ? 1.0f : 0.0f;
    bool f64 = type == kR64F;
    const void *alpha = f64 ? static_cast<const void *>(&one) : &onef;
    const void *betaPtr = f64 ? static_cast<const void *>(&beta) : &betaf;
    status = cb.gemmStridedBatchedEx(
        cb.blas, kNoTranspose, kNoTranspose, n, m, k, alpha, ptr(b), type, ld(b),
        b->strides[0], ptr(a), type, ld(a), a->strides[0], betaPtr, ptr(c), type,
        ld(c), c->strides[0], static_cast<int>(batch),
        f64 ? kCompute64F : kCompute32F, -1);
  });
  if (status != 0)
    fatal(name + ": cuBLAS returned status " + std::to_string(status));
}

} // namespace

extern "C" void _mlir_ciface_tide_rt_gpu_gemm_batched_f16(TideMemRef3D *a, TideMemRef3D *b,
                                                   TideMemRef3D *c, int32_t accumulate) {
  gemmBatched(a, b, c, accumulate, kR16F);
}
extern "C" void _mlir_ciface_tide_rt_gpu_gemm_batched_bf16(TideMemRef3D *a, TideMemRef3D *b,
                                                    TideMemRef3D *c, int32_t accumulate) {
  gemmBatched(a, b, c, accumulate, kR16BF);
}
extern "C" void _mlir_ciface_tide_rt_gpu_gemm_batched_f32(TideMemRef3D *a, TideMemRef3D *b,
                                                   TideMemRef3D *c, int32_t accumulate) {
  gemmBatched(a, b, c, accumulate, kR32F);
}
extern "C" void _mlir_ciface_tide_rt_gpu_gemm_batched_f64(TideMemRef3D *a, TideMemRef3D *b,
                                                   TideMemRef3D *c, int32_t accumulate) {
  gemmBatched(a, b, c, accumulate, kR64F);
}

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
