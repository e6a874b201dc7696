//===- Runner.cpp - C API for loading and calling compiled modules -------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide-c/Runner.h"

#include "tide/Runner/Devices.h"
#include "tide/Runner/Module.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <vector>

using namespace tide::runner;

struct TideRunnerModule {
  std::unique_ptr<CompiledModule> module;
};

static void setError(char **error, const std::string &message) {
  if (error)
    *error = strdup(message.c_str());
}

void tideFreeString(char *string) { std::free(string); }

TideRunnerModule *tideRunnerLoad(const char *path, char **error) {
  if (error)
    *error = nullptr;
  std::string why;
  std::unique_ptr<CompiledModule> module =
      CompiledModule::load(path ? path : "", why);
  if (!module) {
    setError(error, why);
    return nullptr;
  }
  return new TideRunnerModule{std::move(module)};
}

void tideRunnerDestroy(TideRunnerModule *module) { delete module; }

/// Function `f` of `m`, or null (a null module, an index out of range).
static const FunctionSpec *function(const TideRunnerModule *m, size_t f) {
  if (!m || f >= m->module->functions().size())
    return nullptr;
  return &m->module->functions()[f];
}

size_t tideRunnerGetNumFunctions(const TideRunnerModule *m) {
  return m ? m->module->functions().size() : 0;
}

const char *tideRunnerGetFunctionName(const TideRunnerModule *m, size_t f) {
  const FunctionSpec *fn = function(m, f);
  return fn ? fn->name.c_str() : nullptr;
}

size_t tideRunnerGetNumArgs(const TideRunnerModule *m, size_t f) {
  const FunctionSpec *fn = function(m, f);
  return fn ? fn->args.size() : 0;
}

size_t tideRunnerGetNumResults(const TideRunnerModule *m, size_t f) {
  const FunctionSpec *fn = function(m, f);
  return fn ? fn->results.size() : 0;
}

static TideTensorSpec wrap(const std::vector<TensorSpec> *specs, size_t i) {
  if (!specs || i >= specs->size())
    return {nullptr, 0, nullptr, nullptr, 0};
  const TensorSpec &spec = (*specs)[i];
  return {spec.dtype->name, static_cast<int32_t>(spec.dims.size()),
          spec.dims.data(), spec.device.c_str(), spec.donated ? 1 : 0};
}

TideTensorSpec tideRunnerGetArg(const TideRunnerModule *m, size_t f, size_t i) {
  const FunctionSpec *fn = function(m, f);
  return wrap(fn ? &fn->args : nullptr, i);
}

TideTensorSpec tideRunnerGetResult(const TideRunnerModule *m, size_t f,
                                   size_t i) {
  const FunctionSpec *fn = function(m, f);
  return wrap(fn ? &fn->results : nullptr, i);
}

static int32_t deviceOrdinal(const std::string &device) {
  return device.rfind("cuda:", 0) == 0 ? std::atoi(device.c_str() + 5) : 0;
}

/// Waits for all work on the primary CUDA context of each GPU in `devices`
/// (a PyTorch tensor may still be being written on the caller's stream), made
/// current for the wait: the calling thread may have none current (a thread
/// that has not used CUDA yet) or another GPU's. Only where the process has
/// loaded the driver; failures leave nothing to wait for.
static void synchronizeCallerStreams(const std::vector<int32_t> &devices) {
  using GetFn = int (*)(int *, int);
  using RetainFn = int (*)(void **, int);
  using ReleaseFn = int (*)(int);
  using PushFn = int (*)(void *);
  using PopFn = int (*)(void **);
  using SyncFn = int (*)();
  /// The driver's entry points, looked up once it is loaded (a call per
  /// function call cost more than the wait itself).
  struct Entry {
    GetFn get = nullptr;
    RetainFn retain = nullptr;
    ReleaseFn release = nullptr;
    PushFn push = nullptr;
    PopFn pop = nullptr;
    SyncFn sync = nullptr;
  };
  static std::atomic<const Entry *> resolved{nullptr};
  const Entry *e = resolved.load(std::memory_order_acquire);
  if (!e) {
    // Kept open (RTLD_NOLOAD takes a reference) for the process's life.
    void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!cuda)
      return;
    auto *entry = new Entry();
    entry->get = reinterpret_cast<GetFn>(dlsym(cuda, "cuDeviceGet"));
    entry->retain =
        reinterpret_cast<RetainFn>(dlsym(cuda, "cuDevicePrimaryCtxRetain"));
    entry->release = reinterpret_cast<ReleaseFn>(
        dlsym(cuda, "cuDevicePrimaryCtxRelease_v2"));
    entry->push = reinterpret_cast<PushFn>(dlsym(cuda, "cuCtxPushCurrent_v2"));
    entry->pop = reinterpret_cast<PopFn>(dlsym(cuda, "cuCtxPopCurrent_v2"));
    entry->sync = reinterpret_cast<SyncFn>(dlsym(cuda, "cuCtxSynchronize"));
    const Entry *expected = nullptr;
    if (resolved.compare_exchange_strong(expected, entry,
                                         std::memory_order_acq_rel)) {
      e = entry;
    } else {
      delete entry; // another thread resolved them first
      dlclose(cuda);
      e = expected;
    }
  }
  if (e->get && e->retain && e->release && e->push && e->pop && e->sync) {
    for (size_t i = 0; i < devices.size(); ++i) {
      if (std::find(devices.begin(), devices.begin() + i, devices[i]) !=
          devices.begin() + i)
        continue; // waited for already
      int device = 0;
      void *context = nullptr;
      if (e->get(&device, devices[i]) != 0 || e->retain(&context, device) != 0)
        continue;
      if (e->push(context) == 0) {
        e->sync();
        void *popped = nullptr;
        e->pop(&popped);
      }
      e->release(device);
    }
  } else if (e->sync) {
    e->sync(); // the current context's work, as before
  }
}

/// Reads the caller's tensors into views and checks them against `fn`.
static bool checkInputs(const CompiledModule &module, size_t f,
                        const TideTensor *inputs, size_t numInputs,
                        std::vector<TensorView> &views, bool &anyGpuInput,
                        char **error) {
  if (error)
    *error = nullptr;
  if (f >= module.functions().size()) {
    setError(error, "no function #" + std::to_string(f) + " in the module");
    return false;
  }
  const FunctionSpec &fn = module.functions()[f];
  if (numInputs > 0 && !inputs) {
    setError(error, "@" + fn.name + " was given " + std::to_string(numInputs) +
                        " inputs but a null input array");
    return false;
  }
  views.assign(numInputs, TensorView());
  anyGpuInput = false;
  for (size_t i = 0; i < numInputs; ++i) {
    const TideTensor &t = inputs[i];
    TensorView &v = views[i];
    // The message prefix, built only for an error.
    auto which = [&] {
      return "input " + std::to_string(i) + " of @" + fn.name;
    };
    v.dtype = findDType(t.dtype ? t.dtype : "");
    if (!v.dtype) {
      setError(error, which() + " has element type '" +
                          (t.dtype ? t.dtype : "") +
                          "', which Tide does not know");
      return false;
    }
    if (t.rank < 0 || (t.rank > 0 && !t.shape)) {
      setError(error, which() + " has no valid shape");
      return false;
    }
    v.shape.assign(t.shape, t.shape + t.rank);
    for (int64_t d : v.shape)
      if (d < 0) {
        setError(error, which() + " has a negative dimension");
        return false;
      }
    // A tensor with elements needs data, and its size in bytes must fit in
    // int64 (no allocation or copy could hold more).
    if (std::find(v.shape.begin(), v.shape.end(), 0) == v.shape.end()) {
      uint64_t bytes = v.dtype->bytes;
      for (int64_t d : v.shape) {
        if (bytes > static_cast<uint64_t>(INT64_MAX) / d) {
          setError(error, which() + " has more elements than fit in memory (" +
                              "its size in bytes is past 2^63 - 1)");
          return false;
        }
        bytes *= d;
      }
      if (!t.data) {
        setError(error, which() + " has a null data pointer but holds " +
                            std::to_string(bytes / v.dtype->bytes) +
                            " elements");
        return false;
      }
    }
    v.data = t.data;
    if (t.deviceKind == TIDE_DEVICE_CUDA) {
      v.device = "cuda:" + std::to_string(t.deviceId);
      anyGpuInput = true;
    } else if (t.deviceKind != TIDE_DEVICE_CPU) {
      setError(error, which() + " is on a device of DLPack type " +
                          std::to_string(t.deviceKind) +
                          ", which Tide cannot use (only the CPU and CUDA "
                          "GPUs)");
      return false;
    }
  }
  std::string why;
  if (!module.check(fn, views, why)) {
    setError(error, why);
    return false;
  }
  return true;
}

/// False with an error for a null module.
static bool haveModule(const TideRunnerModule *m, char **error) {
  if (error)
    *error = nullptr;
  if (!m)
    setError(error, "no module (a null TideRunnerModule)");
  return m;
}

int tideRunnerCheck(const TideRunnerModule *m, size_t f,
                    const TideTensor *inputs, size_t numInputs, char **error) {
  if (!haveModule(m, error))
    return 0;
  std::vector<TensorView> views;
  bool anyGpuInput = false;
  return checkInputs(*m->module, f, inputs, numInputs, views, anyGpuInput,
                     error);
}

int tideRunnerCall(const TideRunnerModule *m, size_t f,
                   const TideTensor *inputs, size_t numInputs,
                   TideResultCallback onResult, void *userData, char **error) {
  if (!haveModule(m, error))
    return 0;
  const CompiledModule &module = *m->module;
  std::vector<TensorView> views;
  bool anyGpuInput = false;
  if (!checkInputs(module, f, inputs, numInputs, views, anyGpuInput, error))
    return 0;
  const FunctionSpec &fn = module.functions()[f];
  std::string why;
  // The GPU runtime ends the process on a GPU error; refuse what it would.
  if (!module.canRun(fn, why, anyGpuInput)) {
    setError(error, why);
    return 0;
  }
  if (anyGpuInput) {
    std::vector<int32_t> gpus;
    for (size_t i = 0; i < numInputs; ++i)
      if (inputs[i].deviceKind == TIDE_DEVICE_CUDA)
        gpus.push_back(inputs[i].deviceId);
    synchronizeCallerStreams(gpus);
  }
  StagedInputs staged;
  std::vector<ResultBuffer> results;
  if (!module.stage(fn, std::move(views), staged, why) ||
      !module.invoke(fn, staged.views, results, why)) {
    setError(error, why);
    return 0;
  }
  // Every result gets a dense buffer of its own before any is handed out.
  bool ok = true;
  for (ResultBuffer &r : results)
    if (ok && !module.detach(r, why))
      ok = false;
  if (!ok) {
    for (ResultBuffer &r : results)
      module.release(r);
    setError(error, why);
    return 0;
  }
  for (size_t i = 0; i < results.size(); ++i) {
    ResultBuffer &r = results[i];
    TideResult result;
    result.allocated = r.allocated;
    result.data = r.aligned;
    result.dtype = r.dtype->name;
    result.rank = static_cast<int32_t>(r.shape.size());
    result.shape = r.shape.data();
    bool onGpu = r.device != "cpu";
    result.deviceKind = onGpu ? TIDE_DEVICE_CUDA : TIDE_DEVICE_CPU;
    result.deviceId = deviceOrdinal(r.device);
    if (onResult)
      onResult(i, &result, userData);
    else
      module.release(r);
  }
  return 1;
}

void tideRunnerFreeBuffer(const TideRunnerModule *m, void *allocated,
                          int32_t deviceKind) {
  if (!allocated)
    return;
  if (deviceKind == TIDE_DEVICE_CUDA)
    m->module->freeDeviceBuffer(allocated);
  else
    std::free(allocated);
}

void tideListDevices(TideDeviceCallback onDevice, void *userData, char **note) {
  if (note)
    *note = nullptr;
  std::string why;
  std::vector<DeviceInfo> devices = listDevices(why);
  for (const DeviceInfo &d : devices) {
    TideDeviceInfo info;
    info.kind = d.isGpu ? TIDE_DEVICE_CUDA : TIDE_DEVICE_CPU;
    info.index = d.index;
    info.name = d.name.c_str();
    info.computeCapabilityMajor = d.computeCapabilityMajor;
    info.computeCapabilityMinor = d.computeCapabilityMinor;
    info.memoryBytes = d.memoryBytes;
    info.cores = d.cores;
    info.fp64PerFp32 = d.fp64PerFp32;
    if (onDevice)
      onDevice(&info, userData);
  }
  if (!why.empty())
    setError(note, why);
}
