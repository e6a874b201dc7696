//===- CudaCopyWorkers.cpp - Threads that share host copies ---------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "CudaCopyWorkers.h"
#include "CudaInternal.h"

#include <algorithm>
#include <cstring>

using namespace tide::cudart;

Workers::Workers() {
  unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  // The calling thread coordinates and one core is left to the rest of
  // the process (14 copying threads measured best on a 16-core host).
  count = static_cast<unsigned>(std::clamp<size_t>(
      envSize("TIDE_STAGING_THREADS", hw > 2 ? hw - 2 : 1), 1, 64));
  for (unsigned i = 0; i < count; ++i)
    threads.emplace_back([this] { run(); });
}

void Workers::start(std::shared_ptr<Job> job) {
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

void Workers::run() {
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

Workers &tide::cudart::workers() {
  static Workers *w = new Workers(); // lives until exit, never joined
  return *w;
}

void tide::cudart::parallelCopy(void *dst, const void *src, size_t bytes) {
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
