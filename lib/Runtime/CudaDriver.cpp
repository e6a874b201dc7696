//===- CudaDriver.cpp - The CUDA driver, loaded at first use --------------===//
//
// Part of the Tide project.
//
// The driver is opened with dlopen at first use; every entry point is looked
// up by its versioned name. Context setup is lazy too: compiled modules load
// their GPU binaries from global constructors, before main.
//
//===----------------------------------------------------------------------===//

#include "CudaInternal.h"
#include "tide/Runtime/CudaRuntime.h"

#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>

namespace tide::cudart {

std::recursive_mutex mutex;

namespace {

Driver *theDriver = nullptr;

std::string errorText(Driver &d, CUresult result) {
  const char *name = nullptr, *text = nullptr;
  if (d.cuGetErrorName)
    d.cuGetErrorName(result, &name);
  if (d.cuGetErrorString)
    d.cuGetErrorString(result, &text);
  return std::string(name ? name : "CUDA error " + std::to_string(result)) +
         (text ? std::string(" (") + text + ")" : "");
}

} // namespace

[[noreturn]] void fatal(const std::string &message) {
  std::fprintf(stderr, "tide runtime: error: %s\n", message.c_str());
  std::fflush(stderr);
  std::exit(1);
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

} // namespace tide::cudart

using namespace tide::cudart;

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

extern "C" int tide_rt_gpu_available(char *reason, size_t reasonSize) {
  Driver &d = driver();
  if (reason && reasonSize)
    std::snprintf(reason, reasonSize, "%s", d.unavailable.c_str());
  return d.unavailable.empty() ? 1 : 0;
}
