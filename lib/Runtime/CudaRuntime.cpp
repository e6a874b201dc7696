//===- CudaRuntime.cpp - The mgpu* ABI over the CUDA driver API -----------===//
//
// Part of the Tide project.
//
// GPU modules, streams and kernel launches for the code MLIR's gpu-to-llvm
// lowering emits. The rest of the runtime lives beside this file, one file a
// section: the driver (CudaDriver.cpp), the caching allocator
// (CudaAllocator.cpp), copies through pinned staging (CudaStaging.cpp,
// CudaCopyWorkers.cpp), the profile (CudaProfiler.cpp) and GEMM through
// cuBLAS (CudaBlas.cpp).
//
//===----------------------------------------------------------------------===//

#include "tide/Runtime/CudaRuntime.h"
#include "CudaInternal.h"

#include <unordered_map>

using namespace tide::cudart;

namespace {

/// Kernel names by function, for messages and the profile; callers hold
/// `mutex`.
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

extern "C" void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                                 intptr_t gridZ, intptr_t blockX,
                                 intptr_t blockY, intptr_t blockZ,
                                 int32_t sharedMemBytes, void *stream,
                                 void **params, void **extra, size_t) {
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

extern "C" void tide_rt_synchronize(void) {
  CUstream stream = threadStream();
  if (!stream)
    return;
  Driver &d = ready("waiting for the GPU");
  check(d, d.cuStreamSynchronize(stream),
        "waiting for the GPU (cuStreamSynchronize; an earlier kernel or copy "
        "may have failed)");
}
