//===- Module.h - Load and call a compiled Tide module ----------*- C++ -*-===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// A compiled module is a shared library that describes itself (the
// `tide_module_metadata` string, see tide-export-abi). This loader needs only
// the C library and libdl: no LLVM or MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_RUNNER_MODULE_H
#define TIDE_RUNNER_MODULE_H

#include "tide/Runner/Npy.h"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace tide::runner {

struct TensorSpec {
  const DTypeInfo *dtype = nullptr;
  std::vector<int64_t> dims; ///< -1 for a dynamic dimension
  std::string device;        ///< "cpu" or "cuda:N"
  bool donated = false;      ///< an argument the call may overwrite
  std::string str() const;   ///< "f32[?x4] on cpu"
};

struct FunctionSpec {
  std::string name;
  std::vector<TensorSpec> args, results;
};

/// A dense row-major tensor the caller owns, passed without a copy where it
/// already lives where the function wants it.
struct TensorView {
  const DTypeInfo *dtype = nullptr;
  std::vector<int64_t> shape;
  void *data = nullptr;
  std::string device = "cpu"; ///< "cpu" or "cuda:N"
};

/// A result as the function returned it (a strided memref).
struct ResultBuffer {
  const DTypeInfo *dtype = nullptr;
  std::vector<int64_t> shape, strides; ///< strides in elements
  int64_t offset = 0;                  ///< in elements, from `aligned`
  void *allocated = nullptr, *aligned = nullptr;
  std::string device; ///< "cpu" or "cuda:N"
  /// False where the buffer is an input's or an earlier result's: it must
  /// not be freed (detach() gives it a buffer of its own).
  bool owned = false;
  /// True for a dense row-major buffer that starts at `aligned`.
  bool isDense() const;
};

/// Inputs copied to where a function wants them (see CompiledModule::stage);
/// frees the copies when destroyed.
class StagedInputs {
public:
  StagedInputs() = default;
  StagedInputs(const StagedInputs &) = delete;
  StagedInputs &operator=(const StagedInputs &) = delete;
  ~StagedInputs();
  std::vector<TensorView> views;

private:
  friend class CompiledModule;
  void (*gpuFree)(void *, void *) = nullptr;
  std::vector<void *> deviceCopies;
  std::vector<std::vector<unsigned char>> hostCopies;
};

class CompiledModule {
public:
  ~CompiledModule();
  /// Loads `path` and reads its metadata; null with `error` set on failure.
  static std::unique_ptr<CompiledModule> load(const std::string &path,
                                              std::string &error);

  const std::vector<FunctionSpec> &functions() const { return specs; }
  const FunctionSpec *find(const std::string &name) const;

  /// Checks `inputs` against `fn`'s signature (count, dtype, rank, static
  /// sizes); on mismatch returns false with a message naming the input.
  bool check(const FunctionSpec &fn, const std::vector<Array> &inputs,
             std::string &error) const;

  /// The same checks for tensors the caller owns, plus where they live: a
  /// tensor on another GPU than the function's, or on a GPU where the module
  /// has no GPU runtime to copy it, is refused.
  bool check(const FunctionSpec &fn, const std::vector<TensorView> &inputs,
             std::string &error) const;

  /// Calls `fn` `repeat` times; fills `outputs` from the last call and the
  /// seconds each call took in `times`. With `warmupSeconds` > 0, untimed
  /// calls come first, one at least, until that much time has passed: a
  /// fresh process's threads start where the scheduler first put them, and
  /// a short run can end before it spreads them (on the 2-vCPU build VM, 20
  /// calls of a 2-thread exp over 230400 floats took 130-185 us a call in
  /// some processes and 30-50 in others; after 50 ms of calls, 30-45).
  bool call(const FunctionSpec &fn, std::vector<Array> &inputs,
            std::vector<Array> &outputs, int repeat, std::vector<double> &times,
            std::string &error, double warmupSeconds = 0) const;

  /// Copies the (checked) `inputs` that do not live where `fn` wants them:
  /// host data to the GPU for GPU-resident arguments, GPU data to the host
  /// for host arguments. The others are passed as they are. (Taken by
  /// value: a caller done with its views moves them in.)
  bool stage(const FunctionSpec &fn, std::vector<TensorView> inputs,
             StagedInputs &staged, std::string &error) const;

  /// Calls `fn` once on `inputs` (staged: each where `fn` wants it) and
  /// waits for the GPU; `results` receive the function's own buffers, to be
  /// given back with release() (or kept, when owned).
  bool invoke(const FunctionSpec &fn, const std::vector<TensorView> &inputs,
              std::vector<ResultBuffer> &results, std::string &error) const;

  /// Frees an owned result buffer (host or GPU); unowned ones are left.
  void release(ResultBuffer &result) const;
  /// Gives an unowned or strided result a dense buffer of its own, on its
  /// device.
  bool detach(ResultBuffer &result, std::string &error) const;
  /// Copies a result (host or GPU, any strides) into a host array.
  bool toHost(const ResultBuffer &result, Array &out, std::string &error) const;

  /// Whether `fn` can run on this machine without the GPU runtime ending the
  /// process: GPU code needs a usable GPU, unless the module was compiled
  /// with a CPU version beside it and `fn` has no GPU-resident tensors.
  /// False with the reason in `error`.
  bool canRun(const FunctionSpec &fn, std::string &error,
              bool gpuInputs = false) const;

  /// Frees a GPU buffer through the module's GPU runtime.
  void freeDeviceBuffer(void *pointer) const;

private:
  struct GpuRuntime {
    void *(*alloc)(uint64_t, void *, bool) = nullptr;
    void (*free)(void *, void *) = nullptr;
    void (*copy)(void *, void *, size_t, void *) = nullptr;
    void (*sync)(void *) = nullptr;
    void (*wait)() = nullptr;
    /// tide_rt_guarded_call: out of GPU memory returns here as an error.
    int (*guarded)(void (*)(void *), void *, char *, size_t) = nullptr;
    /// tide_rt_fail_guarded_call: ends a guarded call as out of GPU memory
    /// does (another failure inside it: its device memory is freed).
    void (*fail)(const char *) = nullptr;
  };
  /// The module's GPU runtime (the mgpu* functions it links), or null.
  const GpuRuntime *gpuRuntime() const;
  /// Runs fn(context) so that running out of GPU memory or host memory
  /// inside it is an error ("out of GPU memory: ...", "out of host memory:
  /// ...") instead of the end of the process.
  bool guardedCall(void (*fn)(void *), void *context, std::string &error) const;
  /// `bytes` of device memory, or false with `error` set (out of memory).
  bool allocateOnGpu(const GpuRuntime &rt, size_t bytes, void *&out,
                     std::string &error) const;

  void *handle = nullptr;
  std::vector<FunctionSpec> specs;
  bool cpuFallback = false; ///< imports tide_rt_use_gpu: a CPU version inside
  mutable GpuRuntime gpu;
  mutable std::once_flag gpuLooked;
};

/// Before the first module (or other code) brings OpenBLAS in: chooses its
/// kernels from the CPU's features (OPENBLAS_CORETYPE) where its own choice,
/// by CPU model number, would fall back to generic ones on a CPU newer than
/// the library (Debian 12's OpenBLAS 0.3.21 on Emerald Rapids). Does nothing
/// if the user set OPENBLAS_CORETYPE or OpenBLAS is loaded. Called by
/// CompiledModule::load; anything that dlopens Tide's code itself (the
/// calibrator) calls it first.
void chooseOpenBlasKernels();

} // namespace tide::runner

#endif // TIDE_RUNNER_MODULE_H
