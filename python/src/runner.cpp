//===- runner.cpp - tide._runner: load and call compiled modules ---------===//
//
// Part of the Tide project.
//
// Over Tide's runner C API (include/tide-c/Runner.h): NumPy arrays and
// DLPack tensors in (no copy where they already live where the function
// wants them), NumPy arrays (host results) and DLPack tensors (GPU-resident
// results) out.
//
//===----------------------------------------------------------------------===//

#include "tide-c/Runner.h"
#include "tide-c/Calibrate.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace nb = nanobind;
namespace dl = nb::dlpack;

namespace {

/// A loaded module, kept alive by the Module and by every GPU result.
struct Loaded {
  explicit Loaded(TideRunnerModule *module) : module(module) {}
  Loaded(const Loaded &) = delete;
  Loaded &operator=(const Loaded &) = delete;
  ~Loaded() { tideRunnerDestroy(module); }
  TideRunnerModule *module;
};

/// Takes a message from the C API and frees it.
std::string take(char *message) {
  std::string text = message ? message : "unknown error";
  tideFreeString(message);
  return text;
}

/// The Tide element type of a DLPack dtype, or null.
const char *tideDType(dl::dtype t) {
  if (t.lanes != 1)
    return nullptr;
  switch (static_cast<dl::dtype_code>(t.code)) {
  case dl::dtype_code::Int:
    return t.bits == 8    ? "i8"
           : t.bits == 16 ? "i16"
           : t.bits == 32 ? "i32"
           : t.bits == 64 ? "i64"
                          : nullptr;
  case dl::dtype_code::UInt:
    return t.bits == 8    ? "ui8"
           : t.bits == 16 ? "ui16"
           : t.bits == 32 ? "ui32"
           : t.bits == 64 ? "ui64"
                          : nullptr;
  case dl::dtype_code::Float:
    return t.bits == 16   ? "f16"
           : t.bits == 32 ? "f32"
           : t.bits == 64 ? "f64"
                          : nullptr;
  case dl::dtype_code::Bfloat:
    return t.bits == 16 ? "bf16" : nullptr;
  case dl::dtype_code::Bool:
    return t.bits == 8 ? "i1" : nullptr;
  default:
    return nullptr;
  }
}

std::string describeDType(dl::dtype t) {
  const char *kinds[] = {"int",    "uint",    "float", "opaque",
                         "bfloat", "complex", "bool"};
  std::string kind =
      t.code < 7 ? kinds[t.code] : "code " + std::to_string(t.code);
  std::string s = kind + std::to_string(t.bits);
  if (t.lanes != 1)
    s += "x" + std::to_string(t.lanes);
  return s;
}

/// The DLPack dtype a result is returned with. NumPy has no bfloat16, so a
/// bf16 host result travels as its bits in uint16 (as tide-run's .npy).
dl::dtype dlDType(const std::string &name, bool forNumPy) {
  if (name == "i1")
    return nb::dtype<bool>();
  if (name == "bf16")
    return forNumPy ? dl::dtype{uint8_t(dl::dtype_code::UInt), 16, 1}
                    : dl::dtype{uint8_t(dl::dtype_code::Bfloat), 16, 1};
  uint8_t code = name[0] == 'f'   ? uint8_t(dl::dtype_code::Float)
                 : name[0] == 'u' ? uint8_t(dl::dtype_code::UInt)
                                  : uint8_t(dl::dtype_code::Int);
  uint8_t bits =
      static_cast<uint8_t>(std::atoi(name.c_str() + (name[0] == 'u' ? 2 : 1)));
  return dl::dtype{code, bits, 1};
}

std::string shapeText(const std::vector<int64_t> &v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? "x" : "") + std::to_string(v[i]);
  return s + "]";
}

/// A result buffer owned by Python until handed to a NumPy array or a DLPack
/// tensor.
struct Result {
  std::shared_ptr<Loaded> loaded;
  void *allocated = nullptr, *data = nullptr;
  std::string dtype;
  std::vector<size_t> shape;
  int32_t deviceKind = TIDE_DEVICE_CPU, deviceId = 0;
  ~Result() {
    if (allocated)
      tideRunnerFreeBuffer(loaded->module, allocated, deviceKind);
  }
};

//===----------------------------------------------------------------------===//
// DLPack's C exchange API (dlpack.h 1.2+): a tensor type may publish, as
// `type(x).__dlpack_c_exchange_api__`, a capsule with C functions that
// export its tensors without calling `x.__dlpack__()` in Python (PyTorch's
// costs about 5 us a tensor: a model with 194 weight arguments paid 1 ms a
// call). The layouts are DLPack's stable ABI.
//===----------------------------------------------------------------------===//

struct ExDevice {
  int32_t type, id;
};
struct ExDType {
  uint8_t code, bits;
  uint16_t lanes;
};
struct ExTensor {
  void *data;
  ExDevice device;
  int32_t ndim;
  ExDType dtype;
  int64_t *shape, *strides;
  uint64_t byteOffset;
};
struct ExVersion {
  uint32_t major, minor;
};
struct ExManagedTensor {
  ExVersion version;
  void *managerContext;
  void (*deleter)(ExManagedTensor *);
  uint64_t flags;
  ExTensor tensor;
};
struct ExchangeApi {
  struct Header {
    ExVersion version;
    Header *previous;
  } header;
  void *managedTensorAllocator;
  int (*managedTensorFromPyObjectNoSync)(void *, ExManagedTensor **);
  void *managedTensorToPyObjectNoSync;
  void *dltensorFromPyObjectNoSync;
  void *currentWorkStream;
};

/// The exchange API of an argument's type, or null; looked up once a type
/// (the cache holds the type, so its address is never reused).
const ExchangeApi *exchangeApi(nb::handle arg) {
  static auto *cache =
      new std::vector<std::pair<nb::object, const ExchangeApi *>>();
  nb::handle type = arg.type();
  for (auto &[t, api] : *cache)
    if (t.is(type))
      return api;
  const ExchangeApi *api = nullptr;
  PyObject *capsule =
      PyObject_GetAttrString(type.ptr(), "__dlpack_c_exchange_api__");
  if (!capsule) {
    PyErr_Clear();
  } else {
    if (PyCapsule_IsValid(capsule, "dlpack_exchange_api")) {
      auto *found = static_cast<const ExchangeApi *>(
          PyCapsule_GetPointer(capsule, "dlpack_exchange_api"));
      // Walk back to a table of major version 1 (the one this reads).
      for (auto *h = found ? &found->header : nullptr; h; h = h->previous)
        if (h->version.major == 1) {
          api = reinterpret_cast<const ExchangeApi *>(h);
          break;
        }
      if (api && !api->managedTensorFromPyObjectNoSync)
        api = nullptr;
    }
    Py_DECREF(capsule);
  }
  cache->emplace_back(nb::borrow(type), api);
  return api;
}

/// An argument exported through the exchange API, released after the call.
struct ExportedTensor {
  explicit ExportedTensor(ExManagedTensor *t) : t(t) {}
  ExportedTensor(ExportedTensor &&o) noexcept : t(o.t) { o.t = nullptr; }
  ExportedTensor(const ExportedTensor &) = delete;
  ~ExportedTensor() {
    if (t && t->deleter)
      t->deleter(t);
  }
  ExManagedTensor *t;
};

struct Inputs {
  std::vector<nb::ndarray<nb::ro>> arrays;
  std::vector<ExportedTensor> exported;
  std::vector<std::vector<int64_t>> shapes;
  std::vector<TideTensor> tensors;
};

class Module {
public:
  explicit Module(const std::string &path) {
    char *error = nullptr;
    TideRunnerModule *m = tideRunnerLoad(path.c_str(), &error);
    if (!m)
      throw nb::value_error(take(error).c_str());
    loaded = std::make_shared<Loaded>(m);
  }

  void close() { loaded.reset(); }
  bool closed() const { return !loaded; }

  /// [{"name", "args": [{"dtype", "shape", "device"}], "results": [...]}]
  nb::list functions() const {
    TideRunnerModule *m = get();
    nb::list out;
    for (size_t f = 0; f < tideRunnerGetNumFunctions(m); ++f) {
      auto specs = [&](bool args) {
        nb::list list;
        size_t n =
            args ? tideRunnerGetNumArgs(m, f) : tideRunnerGetNumResults(m, f);
        for (size_t i = 0; i < n; ++i) {
          TideTensorSpec s =
              args ? tideRunnerGetArg(m, f, i) : tideRunnerGetResult(m, f, i);
          nb::list shape;
          for (int32_t d = 0; d < s.rank; ++d)
            shape.append(s.dims[d] < 0 ? nb::object(nb::none())
                                       : nb::object(nb::int_(s.dims[d])));
          nb::dict spec;
          spec["dtype"] = s.dtype;
          spec["shape"] = nb::tuple(shape);
          spec["device"] = s.device;
          if (args)
            spec["donated"] = s.donated != 0;
          list.append(spec);
        }
        return list;
      };
      nb::dict fn;
      fn["name"] = tideRunnerGetFunctionName(m, f);
      fn["args"] = specs(true);
      fn["results"] = specs(false);
      out.append(fn);
    }
    return out;
  }

  /// Checks and calls function `f`; returns the list of its results.
  nb::list call(size_t f, nb::sequence args) {
    // The call holds the module loaded: another thread may close it while
    // the call runs without the GIL.
    std::shared_ptr<Loaded> keep = loaded;
    TideRunnerModule *m = get();
    std::string name = tideRunnerGetFunctionName(m, f);
    Inputs in;
    size_t n = nb::len(args);
    in.arrays.resize(n);
    in.shapes.resize(n);
    in.tensors.resize(n);
    in.exported.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      nb::handle arg = args[i];
      // The message prefix, built only for an error.
      auto which = [&] {
        return "input " + std::to_string(i) + " of @" + name;
      };
      // What the function reads, as DLPack describes it.
      dl::dtype type;
      const void *data;
      int32_t kind, deviceId;
      std::vector<int64_t> &shape = in.shapes[i];
      // Strides in elements: on the stack for the usual ranks.
      int64_t strideStack[8];
      std::vector<int64_t> strideHeap;
      int64_t *strides = strideStack;
      auto rankIs = [&](size_t rank) {
        if (rank > 8) {
          strideHeap.resize(rank);
          strides = strideHeap.data();
        }
      };
      if (const ExchangeApi *api = exchangeApi(arg)) {
        ExManagedTensor *t = nullptr;
        if (api->managedTensorFromPyObjectNoSync(arg.ptr(), &t) != 0 || !t) {
          if (PyErr_Occurred())
            throw nb::python_error(); // the producer's own exception
          throw nb::value_error(
              (which() + " (a " + nb::inst_name(arg).c_str() +
               ") could not be exported through its type's DLPack exchange "
               "API, which gave no reason")
                  .c_str());
        }
        in.exported.emplace_back(t);
        const ExTensor &x = t->tensor;
        type = dl::dtype{x.dtype.code, x.dtype.bits, x.dtype.lanes};
        data = static_cast<const char *>(x.data) + x.byteOffset;
        kind = x.device.type;
        deviceId = x.device.id;
        rankIs(x.ndim);
        int64_t dense = 1;
        for (int32_t d = x.ndim; d-- > 0;) {
          // No strides: dense row-major.
          strides[d] = x.strides ? x.strides[d] : dense;
          dense *= x.shape[d];
        }
        shape.assign(x.shape, x.shape + x.ndim);
      } else {
        nb::ndarray<nb::ro> &a = in.arrays[i];
        // No conversion: what the caller passes is what the function reads.
        if (!nb::try_cast(arg, a, /*convert=*/false))
          throw nb::value_error(
              (which() + " is a " + nb::inst_name(arg).c_str() +
               "; pass a NumPy array or a tensor with __dlpack__ (PyTorch, "
               "CuPy, JAX)")
                  .c_str());
        type = a.dtype();
        data = a.data();
        kind = a.device_type();
        deviceId = a.device_id();
        rankIs(a.ndim());
        shape.resize(a.ndim());
        for (size_t d = 0; d < a.ndim(); ++d) {
          shape[d] = static_cast<int64_t>(a.shape(d));
          strides[d] = a.stride(d);
        }
      }
      const char *dtype = tideDType(type);
      if (!dtype)
        throw nb::value_error((which() + " has element type " +
                               describeDType(type) +
                               ", which Tide has no element type for")
                                  .c_str());
      // An empty tensor holds no element, so any strides describe it (a
      // slice that selects nothing keeps its parent's).
      bool empty = std::find(shape.begin(), shape.end(), 0) != shape.end();
      int64_t expected = 1;
      for (size_t d = shape.size(); d-- > 0 && !empty;) {
        if (shape[d] != 1 && strides[d] != expected)
          throw nb::value_error(
              (which() + " is not contiguous (shape " + shapeText(shape) +
               ", strides " +
               shapeText(
                   std::vector<int64_t>(strides, strides + shape.size())) +
               " in elements) but Tide takes dense row-major tensors; pass "
               "numpy.ascontiguousarray(x) or x.contiguous() (Tide never "
               "copies silently)")
                  .c_str());
        expected *= shape[d];
      }
      // Pinned host memory is host memory; managed memory is used as GPU
      // memory.
      if (kind == nb::device::cuda_host::value)
        kind = TIDE_DEVICE_CPU;
      else if (kind == nb::device::cuda_managed::value)
        kind = TIDE_DEVICE_CUDA;
      in.tensors[i] = TideTensor{const_cast<void *>(data),
                                 dtype, // a static string
                                 static_cast<int32_t>(shape.size()),
                                 shape.data(),
                                 kind,
                                 kind == TIDE_DEVICE_CPU ? 0 : deviceId};
    }
    char *error = nullptr;

    std::vector<std::unique_ptr<Result>> results;
    auto collect = [](size_t, const TideResult *r, void *user) {
      auto &ctx = *static_cast<std::pair<std::vector<std::unique_ptr<Result>> *,
                                         std::shared_ptr<Loaded> *> *>(user);
      auto result = std::make_unique<Result>();
      result->loaded = *ctx.second;
      result->allocated = r->allocated;
      result->data = r->data;
      result->dtype = r->dtype;
      result->shape.assign(r->shape, r->shape + r->rank);
      result->deviceKind = r->deviceKind;
      result->deviceId = r->deviceId;
      ctx.first->push_back(std::move(result));
    };
    std::pair<std::vector<std::unique_ptr<Result>> *, std::shared_ptr<Loaded> *>
        ctx{&results, &keep};
    int ok;
    {
      nb::gil_scoped_release release;
      ok = tideRunnerCall(m, f, in.tensors.data(), n, collect, &ctx, &error);
    }
    if (!ok) {
      // The call checks its inputs before anything else: a failure there is
      // the caller's (ValueError), any other the call's.
      char *inputError = nullptr;
      if (!tideRunnerCheck(m, f, in.tensors.data(), n, &inputError)) {
        tideFreeString(error);
        throw nb::value_error(take(inputError).c_str());
      }
      throw std::runtime_error(take(error));
    }

    nb::list out;
    for (std::unique_ptr<Result> &r : results) {
      bool host = r->deviceKind == TIDE_DEVICE_CPU;
      void *data = r->data;
      Result *owned = r.release();
      // The capsule owns the buffer (and keeps the module loaded).
      nb::capsule owner(
          owned, [](void *p) noexcept { delete static_cast<Result *>(p); });
      if (host) {
        nb::ndarray<nb::numpy> array(
            data, owned->shape.size(), owned->shape.data(), owner, nullptr,
            dlDType(owned->dtype, true), nb::device::cpu::value, 0);
        out.append(nb::cast(array));
      } else {
        nb::ndarray<> array(data, owned->shape.size(), owned->shape.data(),
                            owner, nullptr, dlDType(owned->dtype, false),
                            nb::device::cuda::value, owned->deviceId);
        out.append(nb::cast(array));
      }
    }
    return out;
  }

private:
  TideRunnerModule *get() const {
    if (!loaded)
      throw std::runtime_error(
          "the module was closed; load or compile it again");
    return loaded->module;
  }

  std::shared_ptr<Loaded> loaded;
};

nb::list devices() {
  nb::list out;
  std::vector<TideDeviceInfo> found;
  std::vector<std::string> names;
  char *note = nullptr;
  std::pair<std::vector<TideDeviceInfo> *, std::vector<std::string> *> ctx{
      &found, &names};
  tideListDevices(
      [](const TideDeviceInfo *d, void *user) {
        auto *ctx = static_cast<std::pair<std::vector<TideDeviceInfo> *,
                                          std::vector<std::string> *> *>(user);
        ctx->first->push_back(*d);
        ctx->second->push_back(d->name);
      },
      &ctx, &note);
  for (size_t i = 0; i < found.size(); ++i) {
    const TideDeviceInfo &d = found[i];
    nb::dict info;
    bool gpu = d.kind == TIDE_DEVICE_CUDA;
    info["kind"] = gpu ? "cuda" : "cpu";
    info["device"] = gpu ? "cuda:" + std::to_string(d.index) : "cpu";
    info["index"] = d.index;
    info["name"] = names[i];
    info["memory_bytes"] = d.memoryBytes;
    if (gpu) {
      info["compute_capability"] =
          nb::make_tuple(d.computeCapabilityMajor, d.computeCapabilityMinor);
      info["multiprocessors"] = d.cores;
      info["fp64_fp32_ratio"] =
          d.fp64PerFp32 > 0 ? nb::cast(d.fp64PerFp32) : nb::none();
    } else {
      info["threads"] = d.cores;
    }
    out.append(info);
  }
  if (note)
    tideFreeString(note);
  return out;
}

/// tideCalibrate with Python callables for progress and notes (each called
/// with the GIL held); the measurements run without it. Returns (target
/// JSON text, native target path or None).
nb::tuple calibrate(bool quick, std::optional<std::string> output,
                    bool saveNative, nb::object progress, nb::object note) {
  struct Callbacks {
    nb::object progress, note;
  } callbacks{progress, note};
  TideCalibrateOptions options{};
  options.quick = quick;
  options.output = output ? output->c_str() : nullptr;
  options.saveNative = saveNative;
  options.userData = &callbacks;
  if (!progress.is_none())
    options.progress = [](const char *step, int32_t index, int32_t total,
                          void *user) {
      // The C API cannot pass exceptions on: a failing callable is
      // reported as unraisable.
      nb::gil_scoped_acquire gil;
      try {
        static_cast<Callbacks *>(user)->progress(step, index, total);
      } catch (nb::python_error &e) {
        e.discard_as_unraisable("tide.calibrate's progress");
      }
    };
  if (!note.is_none())
    options.note = [](const char *text, void *user) {
      nb::gil_scoped_acquire gil;
      try {
        static_cast<Callbacks *>(user)->note(text);
      } catch (nb::python_error &e) {
        e.discard_as_unraisable("tide.calibrate's notes");
      }
    };
  char *json = nullptr, *native = nullptr, *error = nullptr;
  int ok;
  {
    nb::gil_scoped_release release;
    ok = tideCalibrate(&options, &json, &native, &error);
  }
  if (!ok)
    throw std::runtime_error(take(error));
  std::string text = take(json);
  nb::object path = nb::none();
  if (native)
    path = nb::cast(take(native));
  return nb::make_tuple(text, path);
}

} // namespace

NB_MODULE(_runner, m) {
  m.doc() = "Tide's runner: load and call compiled modules (no LLVM or MLIR)";
  nb::class_<Module>(m, "Module")
      .def(nb::init<const std::string &>(), nb::arg("path"))
      .def("close", &Module::close)
      .def_prop_ro("closed", &Module::closed)
      .def("functions", &Module::functions)
      .def("call", &Module::call, nb::arg("function"), nb::arg("args"));
  m.def("devices", &devices);
  m.def("calibrate", &calibrate, nb::arg("quick"), nb::arg("output").none(),
        nb::arg("save_native"), nb::arg("progress").none(),
        nb::arg("note").none());
}
