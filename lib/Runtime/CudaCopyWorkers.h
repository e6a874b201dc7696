//===- CudaCopyWorkers.h - Threads that share host copies -------*- C++ -*-===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// One thread cannot copy pageable memory into pinned buffers as fast as the
// copy engine drains them (about 10 GB/s against 50), so staging copies are
// spread over a pool of worker threads. Workers spin for a short while after
// a job (back-to-back copies find them awake: waking a sleeping thread costs
// tens of microseconds, a whole small copy's worth) and then sleep.
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_LIB_RUNTIME_CUDACOPYWORKERS_H
#define TIDE_LIB_RUNTIME_CUDACOPYWORKERS_H

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#pragma GCC visibility push(hidden)
namespace tide::cudart {

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
  bool finished() const {
    return done.load(std::memory_order_acquire) == pieces;
  }
};

class Workers {
public:
  Workers();

  unsigned size() const { return count; }

  /// Offers `job` to the workers. The caller waits for job->finished()
  /// (taking pieces itself meanwhile, where it can), never for the workers:
  /// a worker that is asleep or descheduled does not hold a copy up.
  void start(std::shared_ptr<Job> job);

private:
  void run();

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

/// The pool, started at first use; it lives until exit, never joined.
Workers &workers();

/// memcpy(dst, src, bytes) in 256 KiB pieces shared by the workers and the
/// calling thread.
void parallelCopy(void *dst, const void *src, size_t bytes);

} // namespace tide::cudart
#pragma GCC visibility pop

#endif // TIDE_LIB_RUNTIME_CUDACOPYWORKERS_H
