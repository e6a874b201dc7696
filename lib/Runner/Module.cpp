//===- Module.cpp - Load and call a compiled Tide module -----------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Runner/Module.h"
#include "tide/ABI/ModuleMetadata.h"
#include "tide/Runner/ElfCheck.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <link.h>
#include <set>

using namespace tide;
using namespace tide::runner;

std::string TensorSpec::str() const {
  std::string s = std::string(dtype ? dtype->name : "?") + "[";
  for (size_t i = 0; i < dims.size(); ++i)
    s += (i ? "x" : "") +
         (dims[i] < 0 ? std::string("?") : std::to_string(dims[i]));
  return s + "] on " + device;
}

CompiledModule::~CompiledModule() {
  if (handle)
    dlclose(handle);
}

/// The metadata string of a loaded module, read no further than its symbol's
/// size (a string without its terminating null is not read past its end).
static bool readMetadata(void *handle, std::string &text) {
  auto *metadata =
      static_cast<const char *>(dlsym(handle, abi::kMetadataSymbol));
  if (!metadata)
    return false;
  Dl_info info;
  const ElfW(Sym) *symbol = nullptr;
  size_t size = 0;
  if (dladdr1(metadata, &info,
              reinterpret_cast<void **>(const_cast<ElfW(Sym) **>(&symbol)),
              RTLD_DL_SYMENT) &&
      symbol)
    size = symbol->st_size;
  text = size ? std::string(metadata, strnlen(metadata, size))
              : std::string(metadata);
  return true;
}

/// The message for a module whose metadata is missing (`bad` null) or
/// cannot be read.
static std::string describeBadMetadata(const std::string &path,
                                       const abi::MetadataError *bad) {
  using Kind = abi::MetadataError::Kind;
  if (!bad || bad->kind == Kind::NotTideMetadata)
    return "'" + path +
           "' is not a Tide module (no tide_module_metadata; "
           "compile it with tide-compile)";
  if (bad->kind == Kind::UnsupportedVersion)
    return "'" + path + "' has " + bad->reason +
           "; compile it again with this version of tide-compile";
  // No line at fault: the historical message, without detail.
  if (!bad->lineNumber)
    return "'" + path + "' has corrupt metadata";
  return "'" + path + "' has corrupt metadata: '" + bad->line + "' (" +
         bad->reason + ")";
}

std::unique_ptr<CompiledModule> CompiledModule::load(const std::string &path,
                                                     std::string &error) {
  std::string resolved =
      path.find('/') == std::string::npos ? "./" + path : path;
  // A truncated or corrupt file would make dlopen fault (SIGBUS) instead of
  // failing: look at its ELF headers first.
  std::string why;
  if (!checkElfFile(resolved, why)) {
    error = "cannot load '" + path + "': " + why;
    return nullptr;
  }
  void *handle = dlopen(resolved.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    error = "cannot load '" + path + "': " + dlerror();
    return nullptr;
  }
  auto module = std::unique_ptr<CompiledModule>(new CompiledModule());
  module->handle = handle;
  std::string text;
  abi::ModuleMetadata metadata;
  abi::MetadataError bad;
  bool found = readMetadata(handle, text);
  if (!found || !abi::parseModuleMetadata(text, metadata, bad)) {
    error = describeBadMetadata(path, found ? &bad : nullptr);
    return nullptr;
  }
  auto convert = [&](const abi::TensorDesc &t, TensorSpec &spec) {
    spec.dtype = findDType(t.dtype);
    spec.dims = t.dims;
    spec.device = t.device;
    if (!spec.dtype)
      error = "'" + path + "' has corrupt metadata: element type '" + t.dtype +
              "' is unknown to this runner";
    return spec.dtype != nullptr;
  };
  for (const abi::FunctionDesc &fn : metadata.functions) {
    FunctionSpec spec;
    spec.name = fn.name;
    spec.args.resize(fn.args.size());
    spec.results.resize(fn.results.size());
    for (size_t i = 0; i < fn.args.size(); ++i)
      if (!convert(fn.args[i], spec.args[i]))
        return nullptr;
    for (size_t i = 0; i < fn.results.size(); ++i)
      if (!convert(fn.results[i], spec.results[i]))
        return nullptr;
    module->specs.push_back(std::move(spec));
  }
  return module;
}

const FunctionSpec *CompiledModule::find(const std::string &name) const {
  for (const FunctionSpec &fn : specs)
    if (fn.name == name)
      return &fn;
  return nullptr;
}

static std::string shapeStr(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "x" : "") + std::to_string(shape[i]);
  return s + "]";
}

bool CompiledModule::check(const FunctionSpec &fn,
                           const std::vector<Array> &inputs,
                           std::string &error) const {
  if (inputs.size() != fn.args.size()) {
    error = "@" + fn.name + " takes " + std::to_string(fn.args.size()) +
            " input(s) but " + std::to_string(inputs.size()) + " were given";
    return false;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorSpec &spec = fn.args[i];
    const Array &a = inputs[i];
    std::string which = "input " + std::to_string(i) + " of @" + fn.name;
    if (!acceptsArray(spec.dtype, a.dtype)) {
      error = which + " has dtype " + a.dtype->name +
              " but the function "
              "expects " +
              spec.str() +
              "; convert it (Tide never converts "
              "silently)";
      return false;
    }
    if (a.shape.size() != spec.dims.size()) {
      error = which + " has rank " + std::to_string(a.shape.size()) +
              " (shape " + shapeStr(a.shape) + ") but the function expects " +
              spec.str();
      return false;
    }
    for (size_t d = 0; d < a.shape.size(); ++d)
      if (spec.dims[d] >= 0 && spec.dims[d] != a.shape[d]) {
        error = which + " has shape " + shapeStr(a.shape) +
                " but the function expects " + spec.str();
        return false;
      }
  }
  return true;
}

namespace {
using P = void *;
/// Calls `fn` with `args` (all pointers, as _mlir_ciface_ functions take).
bool invoke(void *fn, std::vector<P> &a) {
  switch (a.size()) {
  case 0:
    reinterpret_cast<void (*)()>(fn)();
    return true;
  case 1:
    reinterpret_cast<void (*)(P)>(fn)(a[0]);
    return true;
  case 2:
    reinterpret_cast<void (*)(P, P)>(fn)(a[0], a[1]);
    return true;
  case 3:
    reinterpret_cast<void (*)(P, P, P)>(fn)(a[0], a[1], a[2]);
    return true;
  case 4:
    reinterpret_cast<void (*)(P, P, P, P)>(fn)(a[0], a[1], a[2], a[3]);
    return true;
  case 5:
    reinterpret_cast<void (*)(P, P, P, P, P)>(fn)(a[0], a[1], a[2], a[3], a[4]);
    return true;
  case 6:
    reinterpret_cast<void (*)(P, P, P, P, P, P)>(fn)(a[0], a[1], a[2], a[3],
                                                     a[4], a[5]);
    return true;
  case 7:
    reinterpret_cast<void (*)(P, P, P, P, P, P, P)>(fn)(a[0], a[1], a[2], a[3],
                                                        a[4], a[5], a[6]);
    return true;
  case 8:
    reinterpret_cast<void (*)(P, P, P, P, P, P, P, P)>(fn)(
        a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
    return true;
  case 9:
    reinterpret_cast<void (*)(P, P, P, P, P, P, P, P, P)>(fn)(
        a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]);
    return true;
  case 10:
    reinterpret_cast<void (*)(P, P, P, P, P, P, P, P, P, P)>(fn)(
        a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9]);
    return true;
  case 11:
    reinterpret_cast<void (*)(P, P, P, P, P, P, P, P, P, P, P)>(fn)(
        a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10]);
    return true;
  case 12:
    reinterpret_cast<void (*)(P, P, P, P, P, P, P, P, P, P, P, P)>(fn)(
        a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10],
        a[11]);
    return true;
  case 13:
    reinterpret_cast<void (*)(P, P, P, P, P, P, P, P, P, P, P, P, P)>(fn)(
        a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10],
        a[11], a[12]);
    return true;
  case 14:
    reinterpret_cast<void (*)(P, P, P, P, P, P, P, P, P, P, P, P, P, P)>(fn)(
        a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10],
        a[11], a[12], a[13]);
    return true;
  case 15:
    reinterpret_cast<void (*)(P, P, P, P, P, P, P, P, P, P, P, P, P, P, P)>(fn)(
        a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10],
        a[11], a[12], a[13], a[14]);
    return true;
  case 16:
    reinterpret_cast<void (*)(P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P)>(
        fn)(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10],
            a[11], a[12], a[13], a[14], a[15]);
    return true;
  default:
    return false;
  }
}
} // namespace

bool CompiledModule::call(const FunctionSpec &fn, std::vector<Array> &inputs,
                          std::vector<Array> &outputs, int repeat,
                          std::vector<double> &times,
                          std::string &error) const {
  std::string symbol = "_mlir_ciface_" + fn.name;
  void *entry = dlsym(handle, symbol.c_str());
  if (!entry) {
    error = "the module has no symbol " + symbol;
    return false;
  }
  // Tensors resident on a GPU go through the module's GPU runtime (the
  // mgpu* functions it links), looked up only when needed.
  using AllocFn = void *(*)(uint64_t, void *, bool);
  using FreeFn = void (*)(void *, void *);
  using CopyFn = void (*)(void *, void *, size_t, void *);
  using SyncFn = void (*)(void *);
  using WaitFn = void (*)();
  WaitFn gpuWait = nullptr;
  AllocFn gpuAlloc = nullptr;
  FreeFn gpuFree = nullptr;
  CopyFn gpuCopy = nullptr;
  SyncFn gpuSync = nullptr;
  bool anyDevice = false;
  for (const TensorSpec &t : fn.args)
    anyDevice |= t.device != "cpu";
  for (const TensorSpec &t : fn.results)
    anyDevice |= t.device != "cpu";
  if (anyDevice) {
    gpuAlloc = reinterpret_cast<AllocFn>(dlsym(handle, "mgpuMemAlloc"));
    gpuFree = reinterpret_cast<FreeFn>(dlsym(handle, "mgpuMemFree"));
    gpuCopy = reinterpret_cast<CopyFn>(dlsym(handle, "mgpuMemcpy"));
    gpuSync = reinterpret_cast<SyncFn>(dlsym(handle, "mgpuStreamSynchronize"));
    gpuWait = reinterpret_cast<WaitFn>(dlsym(handle, "tide_rt_synchronize"));
    if (!gpuAlloc || !gpuFree || !gpuCopy || !gpuSync) {
      error = "@" + fn.name +
              " has GPU-resident tensors, but the module has no GPU runtime";
      return false;
    }
  }
  std::set<void *> deviceInputs;
  struct DeviceInputs {
    std::set<void *> *buffers;
    FreeFn free;
    ~DeviceInputs() {
      for (void *p : *buffers)
        free(p, nullptr);
    }
  } releaseDeviceInputs{&deviceInputs, gpuFree};

  // Argument descriptors: {allocated, aligned, offset, sizes, strides}.
  std::vector<std::vector<int64_t>> argWords(inputs.size());
  std::vector<P> pointers;
  size_t resultWords = 0;
  for (const TensorSpec &r : fn.results)
    resultWords += 3 + 2 * r.dims.size();
  std::vector<int64_t> results(resultWords ? resultWords : 1, 0);
  if (!fn.results.empty())
    pointers.push_back(results.data());
  std::set<void *> inputBuffers;
  for (size_t i = 0; i < inputs.size(); ++i) {
    Array &a = inputs[i];
    if (a.data.empty())
      a.data.resize(a.dtype->bytes); // keep a valid pointer for empty arrays
    auto &w = argWords[i];
    void *data = a.data.data();
    if (i < fn.args.size() && fn.args[i].device != "cpu") {
      void *device = gpuAlloc(a.data.size(), nullptr, false);
      gpuCopy(device, data, a.data.size(), nullptr);
      gpuSync(nullptr);
      deviceInputs.insert(device);
      data = device;
    }
    inputBuffers.insert(data);
    w.push_back(reinterpret_cast<int64_t>(data));
    w.push_back(reinterpret_cast<int64_t>(data));
    w.push_back(0);
    for (int64_t d : a.shape)
      w.push_back(d);
    int64_t stride = 1;
    std::vector<int64_t> strides(a.shape.size());
    for (size_t d = a.shape.size(); d-- > 0;) {
      strides[d] = stride;
      stride *= a.shape[d];
    }
    w.insert(w.end(), strides.begin(), strides.end());
    pointers.push_back(w.data());
  }
  if (pointers.size() > 16) {
    error = "@" + fn.name + " has too many tensors for this runner (" +
            std::to_string(pointers.size()) + " > 16)";
    return false;
  }
  auto freeResults = [&]() {
    std::set<void *> freed;
    size_t offset = 0;
    for (const TensorSpec &r : fn.results) {
      void *allocated = reinterpret_cast<void *>(results[offset]);
      if (allocated && !inputBuffers.count(allocated) &&
          freed.insert(allocated).second) {
        if (r.device != "cpu")
          gpuFree(allocated, nullptr);
        else
          std::free(allocated);
      }
      offset += 3 + 2 * r.dims.size();
    }
  };
  times.clear();
  for (int run = 0; run < repeat; ++run) {
    std::fill(results.begin(), results.end(), 0);
    auto start = std::chrono::steady_clock::now();
    if (!invoke(entry, pointers)) {
      error = "unsupported number of arguments";
      return false;
    }
    // Functions on GPU-resident tensors may return before the GPU is done.
    if (gpuWait)
      gpuWait();
    auto stop = std::chrono::steady_clock::now();
    times.push_back(std::chrono::duration<double>(stop - start).count());
    if (run + 1 < repeat)
      freeResults();
  }
  // Copy the results out (honouring strides), then release them.
  outputs.clear();
  size_t offset = 0;
  for (const TensorSpec &r : fn.results) {
    size_t rank = r.dims.size();
    Array out;
    out.dtype = r.dtype;
    auto *aligned = reinterpret_cast<unsigned char *>(results[offset + 1]);
    int64_t elementOffset = results[offset + 2];
    out.shape.assign(results.begin() + offset + 3,
                     results.begin() + offset + 3 + rank);
    std::vector<int64_t> strides(results.begin() + offset + 3 + rank,
                                 results.begin() + offset + 3 + 2 * rank);
    int64_t n = out.numElements();
    out.data.resize(n * r.dtype->bytes);
    // A GPU-resident result: bring the elements it spans to the host first.
    std::vector<unsigned char> staged;
    if (r.device != "cpu" && n > 0) {
      int64_t last = elementOffset;
      for (size_t d = 0; d < rank; ++d)
        last += (out.shape[d] - 1) * strides[d];
      staged.resize((last + 1) * r.dtype->bytes);
      gpuCopy(staged.data(), aligned, staged.size(), nullptr);
      gpuSync(nullptr);
      aligned = staged.data();
    }
    std::vector<int64_t> index(rank, 0);
    for (int64_t i = 0; i < n; ++i) {
      int64_t src = elementOffset;
      for (size_t d = 0; d < rank; ++d)
        src += index[d] * strides[d];
      std::memcpy(out.data.data() + i * r.dtype->bytes,
                  aligned + src * r.dtype->bytes, r.dtype->bytes);
      for (size_t d = rank; d-- > 0;) {
        if (++index[d] < out.shape[d])
          break;
        index[d] = 0;
      }
    }
    outputs.push_back(std::move(out));
    offset += 3 + 2 * rank;
  }
  freeResults();
  return true;
}
