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
#include <string>
#include <vector>

namespace tide::runner {

struct TensorSpec {
  const DTypeInfo *dtype = nullptr;
  std::vector<int64_t> dims; ///< -1 for a dynamic dimension
  std::string device;        ///< "cpu" or "cuda:N"
  std::string str() const;   ///< "f32[?x4] on cpu"
};

struct FunctionSpec {
  std::string name;
  std::vector<TensorSpec> args, results;
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

  /// Calls `fn` `repeat` times; fills `outputs` from the last call and the
  /// seconds each call took in `times`.
  bool call(const FunctionSpec &fn, std::vector<Array> &inputs,
            std::vector<Array> &outputs, int repeat,
            std::vector<double> &times, std::string &error) const;

private:
  void *handle = nullptr;
  std::vector<FunctionSpec> specs;
};

} // namespace tide::runner

#endif // TIDE_RUNNER_MODULE_H
