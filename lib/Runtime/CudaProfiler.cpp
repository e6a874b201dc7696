//===- CudaProfiler.cpp - GPU time per kernel, copy and GEMM --------------===//
//
// Part of the Tide project.
//
// With TIDE_PROFILE=1, work queued through the runtime is timed with CUDA
// events (see timed() in CudaInternal.h) and a table is printed at exit;
// with TIDE_PROFILE=host, the host's time in each call is (what per-call
// overhead is made of where the GPU waits for the host).
//
//===----------------------------------------------------------------------===//

#include "CudaInternal.h"
#include "tide/Runtime/CudaRuntime.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace tide::cudart;

namespace {

struct ProfileEntry {
  uint64_t calls = 0;
  double seconds = 0;
  double bytes = 0;
};

/// The table, by name; callers hold `mutex`.
std::map<std::string, ProfileEntry> &entries() {
  static auto *table = new std::map<std::string, ProfileEntry>();
  return *table;
}

} // namespace

Profiler::Profiler() {
  const char *env = std::getenv("TIDE_PROFILE");
  enabled = env && *env && std::strcmp(env, "0") != 0;
  host = enabled && std::strcmp(env, "host") == 0;
  if (enabled)
    std::atexit([] { tide_rt_profile_report(); });
}

void Profiler::record(const std::string &name, double seconds, double bytes) {
  Lock lock(mutex);
  ProfileEntry &e = entries()[name];
  e.calls++;
  e.seconds += seconds;
  e.bytes += bytes;
}

Profiler &tide::cudart::profiler() {
  static Profiler *p = new Profiler();
  return *p;
}

extern "C" void tide_rt_profile_reset(void) {
  Lock lock(mutex);
  entries().clear();
  profiler().warmupExcluded = true;
}

extern "C" void tide_rt_profile_report(void) {
  profiler(); // reads TIDE_PROFILE on a first call
  Lock lock(mutex);
  double total = 0;
  for (auto &e : entries())
    total += e.second.seconds;
  std::fprintf(stderr, "tide profile (%s%s):\n",
               profiler().host
                   ? "host time in the runtime's calls, issuing the work"
                   : "GPU time, measured with events",
               profiler().warmupExcluded ? "; the first call left out" : "");
  std::fprintf(stderr, "  %-40s %8s %12s %12s %10s %7s\n", "what", "calls",
               "time (us)", "bytes", "GB/s", "share");
  for (auto &e : entries()) {
    const ProfileEntry &x = e.second;
    std::fprintf(stderr, "  %-40s %8llu %12.1f %12.0f %10.2f %6.1f%%\n",
                 e.first.c_str(), static_cast<unsigned long long>(x.calls),
                 x.seconds * 1e6, x.bytes,
                 x.seconds > 0 ? x.bytes / x.seconds / 1e9 : 0.0,
                 total > 0 ? 100 * x.seconds / total : 0.0);
  }
}
