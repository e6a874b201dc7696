//===- CudaDnn.cpp - Convolutions through cuDNN, opened at first use ------===//
//
// Part of the Tide project.
//
// The tide_rt_gpu_conv_* functions of RuntimeSymbols.h: 1-3-D convolutions
// (NCHW and its 1-D/3-D kin, groups, strides, dilations, symmetric zero
// padding) on device buffers, queued on the calling thread's stream. cuDNN 9
// is opened with dlopen at the first convolution, so modules without one
// never need it, and its types are declared here (no cudnn.h at build time).
//
// Precision is never lowered: f32 and f64 run on FMA kernels only (cuDNN's
// default math would let f32 convolutions use TF32 tensor cores on the
// H100/H200), f16 and bf16 on tensor cores accumulating in f32; FFT and
// Winograd algorithms, less accurate, only with TIDE_CUDNN_FAST_ALGORITHMS=1.
//
// Convolutions run through cuDNN's backend (graph) API: an execution plan per
// shape, built once from cuDNN's heuristics and kept, then one
// cudnnBackendExecute a call. (The legacy cudnnConvolutionForward, which
// cuDNN 9 runs through the same engines, took 30-65 us of host time a call
// on the H200's host: most of ResNet-50's per-call cost at batch 1.) Where
// no backend engine fits, or with TIDE_CUDNN_LEGACY=1, the legacy API runs
// the convolution. The workspace comes from Tide's stream-ordered caching
// allocator.
//
//===----------------------------------------------------------------------===//

#include "CudaInternal.h"
#include "tide/Runtime/CudaRuntime.h"
#include "tide/Runtime/RuntimeSymbols.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <limits>
#include <map>
#include <mutex>
#include <string>
#include <vector>

using namespace tide::cudart;

namespace {

// cuDNN 9's ABI (cudnn_graph_v9.h, cudnn_ops_v9.h, cudnn_cnn_v9.h).
enum CudnnDataType { kFloat = 0, kDouble = 1, kHalf = 2, kBFloat16 = 9 };
enum CudnnMathType {
  kDefaultMath = 0,
  kTensorOpMath = 1,
  kTensorOpMathAllowConversion = 2,
  kFmaMath = 3
};
constexpr int kTensorNCHW = 0;
constexpr int kTensorNHWC = 1;
constexpr int kCrossCorrelation = 1;
constexpr int kFwdAlgoCount = 8;

struct AlgoPerf {
  int algo;
  int status;
  float time;
  size_t memory;
  int determinism;
  int mathType;
  int reserved[3];
};

// The backend API's descriptor types, attribute names and attribute types
// (cudnn_graph_v9.h).
enum BackendDescriptor {
  kConvolutionDescriptor = 1,
  kEngineDescriptor = 2,
  kEngineCfgDescriptor = 3,
  kEngineHeurDescriptor = 4,
  kExecutionPlanDescriptor = 5,
  kConvolutionForwardDescriptor = 10,
  kOperationGraphDescriptor = 15,
  kVariantPackDescriptor = 16,
  kTensorDescriptor = 17,
};
enum BackendAttribute {
  kConvCompType = 100,
  kConvMode = 101,
  kConvDilations = 102,
  kConvFilterStrides = 103,
  kConvPostPaddings = 104,
  kConvPrePaddings = 105,
  kConvSpatialDims = 106,
  kHeurMode = 200,
  kHeurOperationGraph = 201,
  kHeurResults = 202,
  kCfgEngine = 300,
  kPlanHandle = 400,
  kPlanEngineConfig = 401,
  kPlanWorkspaceSize = 402,
  kForwardAlpha = 700,
  kForwardBeta = 701,
  kForwardConvDesc = 702,
  kForwardW = 703,
  kForwardX = 704,
  kForwardY = 705,
  kGraphHandle = 800,
  kGraphOps = 801,
  kTensorByteAlignment = 900,
  kTensorDataType = 901,
  kTensorDimensions = 902,
  kTensorStrides = 903,
  kTensorUniqueId = 906,
  kPackUniqueIds = 1000,
  kPackDataPointers = 1001,
  kPackWorkspace = 1003,
  kEngineGlobalIndex = 1301,
  kEngineNumericalNote = 1303,
  kEngineBehaviorNote = 1305,
};
enum BackendType {
  kTypeHandle = 0,
  kTypeDataType = 1,
  kTypeInt64 = 3,
  kTypeFloat = 4,
  kTypeDouble = 5,
  kTypeVoidPtr = 6,
  kTypeConvolutionMode = 7,
  kTypeHeurMode = 8,
  kTypeNumericalNote = 11,
  kTypeBackendDescriptor = 15,
  kTypeBehaviorNote = 19,
};
constexpr int kHeurModeA = 3;
enum NumericalNote {
  kNoteTensorCore = 0,
  kNoteDownConvertInputs = 1,
  kNoteReducedPrecisionReduction = 2,
  kNoteFft = 3,
  kNoteWinograd = 5,
  kNoteWinograd4x4 = 6,
  kNoteWinograd6x6 = 7,
  kNoteWinograd13x13 = 8,
};
constexpr int kBehaviorRuntimeCompilation = 0;
constexpr int kMaxNotes = 16;

struct Cudnn {
  void *handle = nullptr; // the library
  void *dnn = nullptr;    // cudnnHandle_t
  /// The handle is shared: its stream is set and the convolution queued
  /// under this lock.
  std::mutex calls;
  std::string unavailable;
  size_t version = 0;
  int (*create)(void **) = nullptr;
  int (*setStream)(void *, CUstream) = nullptr;
  const char *(*errorString)(int) = nullptr;
  size_t (*getVersion)() = nullptr;
  int (*createTensor)(void **) = nullptr;
  int (*setTensorNd)(void *, int, int, const int *, const int *) = nullptr;
  int (*setTensorNdEx)(void *, int, int, int, const int *) = nullptr;
  int (*createFilter)(void **) = nullptr;
  int (*setFilterNd)(void *, int, int, int, const int *) = nullptr;
  int (*createConv)(void **) = nullptr;
  int (*setConvNd)(void *, int, const int *, const int *, const int *, int,
                   int) = nullptr;
  int (*setGroupCount)(void *, int) = nullptr;
  int (*setMathType)(void *, int) = nullptr;
  int (*getAlgorithms)(void *, void *, void *, void *, void *, int, int *,
                       AlgoPerf *) = nullptr;
  int (*workspaceSize)(void *, void *, void *, void *, void *, int,
                       size_t *) = nullptr;
  int (*forward)(void *, const void *, void *, const void *, void *,
                 const void *, void *, int, void *, size_t, const void *,
                 void *, void *) = nullptr;
  // The backend API; null where the library lacks it (then: legacy only).
  int (*backendCreate)(int, void **) = nullptr;
  int (*backendDestroy)(void *) = nullptr;
  int (*backendFinalize)(void *) = nullptr;
  int (*backendSet)(void *, int, int, int64_t, const void *) = nullptr;
  int (*backendGet)(void *, int, int, int64_t, int64_t *, void *) = nullptr;
  int (*backendExecute)(void *, void *, void *) = nullptr;
  bool backend = false;
};

template <typename T>
bool bind(void *library, T &fn, const char *name) {
  fn = reinterpret_cast<T>(dlsym(library, name));
  return fn != nullptr;
}

Cudnn &cudnn() {
  static Cudnn *instance = nullptr;
  Lock lock(mutex);
  if (instance)
    return *instance;
  instance = new Cudnn();
  Cudnn &c = *instance;
  std::vector<std::string> candidates;
  if (const char *env = std::getenv("TIDE_CUDNN"); env && *env)
    candidates.push_back(env);
  else
    for (const char *name :
         {"libcudnn.so.9", "/usr/local/cuda/lib64/libcudnn.so.9",
          "/usr/lib/x86_64-linux-gnu/libcudnn.so.9"})
      candidates.push_back(name);
  for (const std::string &name : candidates)
    if ((c.handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)))
      break;
  if (!c.handle) {
    c.unavailable =
        std::getenv("TIDE_CUDNN") && *std::getenv("TIDE_CUDNN")
            ? std::string("cuDNN could not be opened from TIDE_CUDNN='") +
                  std::getenv("TIDE_CUDNN") + "'"
            : "cuDNN 9 (libcudnn.so.9) was not found; put its directory on "
              "LD_LIBRARY_PATH (PyTorch's wheels ship it in "
              "site-packages/nvidia/cudnn/lib) or name the file in TIDE_CUDNN";
    return c;
  }
  bool ok = bind(c.handle, c.create, "cudnnCreate") &&
            bind(c.handle, c.setStream, "cudnnSetStream") &&
            bind(c.handle, c.errorString, "cudnnGetErrorString") &&
            bind(c.handle, c.getVersion, "cudnnGetVersion") &&
            bind(c.handle, c.createTensor, "cudnnCreateTensorDescriptor") &&
            bind(c.handle, c.setTensorNd, "cudnnSetTensorNdDescriptor") &&
            bind(c.handle, c.setTensorNdEx, "cudnnSetTensorNdDescriptorEx") &&
            bind(c.handle, c.createFilter, "cudnnCreateFilterDescriptor") &&
            bind(c.handle, c.setFilterNd, "cudnnSetFilterNdDescriptor") &&
            bind(c.handle, c.createConv, "cudnnCreateConvolutionDescriptor") &&
            bind(c.handle, c.setConvNd, "cudnnSetConvolutionNdDescriptor") &&
            bind(c.handle, c.setGroupCount, "cudnnSetConvolutionGroupCount") &&
            bind(c.handle, c.setMathType, "cudnnSetConvolutionMathType") &&
            bind(c.handle, c.getAlgorithms,
                 "cudnnGetConvolutionForwardAlgorithm_v7") &&
            bind(c.handle, c.workspaceSize,
                 "cudnnGetConvolutionForwardWorkspaceSize") &&
            bind(c.handle, c.forward, "cudnnConvolutionForward");
  if (!ok) {
    c.unavailable = "the cuDNN library found lacks the convolution API "
                    "(cudnnConvolutionForward and its descriptors): cuDNN 9 "
                    "with libcudnn_cnn is needed";
    return c;
  }
  c.backend =
      bind(c.handle, c.backendCreate, "cudnnBackendCreateDescriptor") &&
      bind(c.handle, c.backendDestroy, "cudnnBackendDestroyDescriptor") &&
      bind(c.handle, c.backendFinalize, "cudnnBackendFinalize") &&
      bind(c.handle, c.backendSet, "cudnnBackendSetAttribute") &&
      bind(c.handle, c.backendGet, "cudnnBackendGetAttribute") &&
      bind(c.handle, c.backendExecute, "cudnnBackendExecute");
  if (const char *legacy = std::getenv("TIDE_CUDNN_LEGACY");
      legacy && *legacy && std::strcmp(legacy, "0") != 0)
    c.backend = false;
  c.version = c.getVersion();
  if (c.version < 90000) {
    c.unavailable = "cuDNN " + std::to_string(c.version) +
                    " is too old: Tide needs cuDNN 9";
    return c;
  }
  if (int status = c.create(&c.dnn)) {
    c.unavailable = std::string("cudnnCreate failed: ") + c.errorString(status);
    return c;
  }
  return c;
}

/// A ranked memref descriptor behind an unranked one: {allocated, aligned,
/// offset, sizes[rank], strides[rank]}.
struct View {
  int64_t rank;
  const int64_t *words;
  char *base(size_t element) const {
    char *aligned;
    std::memcpy(&aligned, words + 1, sizeof(aligned));
    return aligned + words[2] * static_cast<int64_t>(element);
  }
  int64_t size(int64_t d) const { return words[3 + d]; }
  int64_t stride(int64_t d) const { return words[3 + rank + d]; }
};

struct Plan {
  void *x = nullptr, *w = nullptr, *y = nullptr, *conv = nullptr;
  int algo = 0;
  size_t workspace = 0;
  /// The backend API's execution plan (null: the legacy API's algo), and
  /// its engine's global index, for the profile.
  void *plan = nullptr;
  int64_t engine = -1;
};

/// The operands' unique ids in a backend graph and its variant packs.
constexpr int64_t kUidX = 1, kUidW = 2, kUidY = 3;

/// Backend descriptors, destroyed with the builder unless kept.
struct BackendBuilder {
  Cudnn &c;
  std::vector<void *> made;
  explicit BackendBuilder(Cudnn &c) : c(c) {}
  ~BackendBuilder() {
    for (auto it = made.rbegin(); it != made.rend(); ++it)
      if (*it)
        c.backendDestroy(*it);
  }
  void *create(int type) {
    void *d = nullptr;
    if (c.backendCreate(type, &d) != 0)
      return nullptr;
    made.push_back(d);
    return d;
  }
  /// `d` survives the builder.
  void keep(void *d) {
    for (void *&m : made)
      if (m == d)
        m = nullptr;
  }
  bool set(void *d, int name, int type, int64_t count, const void *values) {
    return d && c.backendSet(d, name, type, count, values) == 0;
  }
};

/// An execution plan through cuDNN's backend API for y = alpha * conv(x, w)
/// + beta * y, the first of cuDNN's heuristics' engines that keeps
/// Tide's precision rules and fits `budget`; null when none does (the
/// caller then uses the legacy API).
void *
backendPlan(Cudnn &c, int type, const std::vector<int64_t> &xs,
            const std::vector<int64_t> &xt, const std::vector<int64_t> &ws,
            const std::vector<int64_t> &wt, const std::vector<int64_t> &ys,
            const std::vector<int64_t> &yt, const std::vector<int64_t> &pad,
            const std::vector<int64_t> &stride,
            const std::vector<int64_t> &dilation, int64_t alignment,
            bool accumulate, bool fastAlgorithms, size_t budget,
            size_t &workspace, int64_t &engine) {
  BackendBuilder b(c);
  auto tensor = [&](int64_t uid, const std::vector<int64_t> &sizes,
                    const std::vector<int64_t> &strides) -> void * {
    void *t = b.create(kTensorDescriptor);
    int64_t rank = static_cast<int64_t>(sizes.size());
    if (!b.set(t, kTensorDataType, kTypeDataType, 1, &type) ||
        !b.set(t, kTensorDimensions, kTypeInt64, rank, sizes.data()) ||
        !b.set(t, kTensorStrides, kTypeInt64, rank, strides.data()) ||
        !b.set(t, kTensorUniqueId, kTypeInt64, 1, &uid) ||
        !b.set(t, kTensorByteAlignment, kTypeInt64, 1, &alignment) ||
        c.backendFinalize(t) != 0)
      return nullptr;
    return t;
  };
  void *x = tensor(kUidX, xs, xt), *w = tensor(kUidW, ws, wt),
       *y = tensor(kUidY, ys, yt);
  if (!x || !w || !y)
    return nullptr;
  void *conv = b.create(kConvolutionDescriptor);
  int compute = type == kDouble ? kDouble : kFloat;
  int mode = kCrossCorrelation;
  int64_t spatial = static_cast<int64_t>(pad.size());
  if (!b.set(conv, kConvCompType, kTypeDataType, 1, &compute) ||
      !b.set(conv, kConvMode, kTypeConvolutionMode, 1, &mode) ||
      !b.set(conv, kConvSpatialDims, kTypeInt64, 1, &spatial) ||
      !b.set(conv, kConvDilations, kTypeInt64, spatial, dilation.data()) ||
      !b.set(conv, kConvFilterStrides, kTypeInt64, spatial, stride.data()) ||
      !b.set(conv, kConvPrePaddings, kTypeInt64, spatial, pad.data()) ||
      !b.set(conv, kConvPostPaddings, kTypeInt64, spatial, pad.data()) ||
      c.backendFinalize(conv) != 0)
    return nullptr;
  void *op = b.create(kConvolutionForwardDescriptor);
  double alpha = 1.0, beta = accumulate ? 1.0 : 0.0;
  float alphaf = 1.0f, betaf = accumulate ? 1.0f : 0.0f;
  bool f64 = type == kDouble;
  if (!b.set(op, kForwardX, kTypeBackendDescriptor, 1, &x) ||
      !b.set(op, kForwardW, kTypeBackendDescriptor, 1, &w) ||
      !b.set(op, kForwardY, kTypeBackendDescriptor, 1, &y) ||
      !b.set(op, kForwardConvDesc, kTypeBackendDescriptor, 1, &conv) ||
      !b.set(op, kForwardAlpha, f64 ? kTypeDouble : kTypeFloat, 1,
             f64 ? static_cast<const void *>(&alpha) : &alphaf) ||
      !b.set(op, kForwardBeta, f64 ? kTypeDouble : kTypeFloat, 1,
             f64 ? static_cast<const void *>(&beta) : &betaf) ||
      c.backendFinalize(op) != 0)
    return nullptr;
  void *graph = b.create(kOperationGraphDescriptor);
  if (!b.set(graph, kGraphHandle, kTypeHandle, 1, &c.dnn) ||
      !b.set(graph, kGraphOps, kTypeBackendDescriptor, 1, &op) ||
      c.backendFinalize(graph) != 0)
    return nullptr;
  void *heur = b.create(kEngineHeurDescriptor);
  int heurMode = kHeurModeA;
  if (!b.set(heur, kHeurOperationGraph, kTypeBackendDescriptor, 1, &graph) ||
      !b.set(heur, kHeurMode, kTypeHeurMode, 1, &heurMode) ||
      c.backendFinalize(heur) != 0)
    return nullptr;
  int64_t count = 0;
  if (c.backendGet(heur, kHeurResults, kTypeBackendDescriptor, 0, &count,
                   nullptr) != 0 ||
      count <= 0)
    return nullptr;
  std::vector<void *> configs;
  for (int64_t i = 0; i < count; ++i) {
    configs.push_back(b.create(kEngineCfgDescriptor));
    if (!configs.back())
      return nullptr;
  }
  if (c.backendGet(heur, kHeurResults, kTypeBackendDescriptor, count, &count,
                   configs.data()) != 0)
    return nullptr;
  bool narrow = type == kHalf || type == kBFloat16;
  for (int64_t i = 0; i < count; ++i) {
    // The engine's notes: what it does to precision, what it needs.
    void *engineDesc = b.create(kEngineDescriptor);
    int64_t got = 0;
    if (!engineDesc ||
        c.backendGet(configs[i], kCfgEngine, kTypeBackendDescriptor, 1, &got,
                     &engineDesc) != 0)
      continue;
    std::array<int, kMaxNotes> notes{}, behaviors{};
    int64_t noteCount = 0, behaviorCount = 0;
    if (c.backendGet(engineDesc, kEngineNumericalNote, kTypeNumericalNote,
                     kMaxNotes, &noteCount, notes.data()) != 0)
      continue;
    if (c.backendGet(engineDesc, kEngineBehaviorNote, kTypeBehaviorNote,
                     kMaxNotes, &behaviorCount, behaviors.data()) != 0)
      behaviorCount = 0;
    bool allowed = true;
    for (int64_t n = 0; n < std::min<int64_t>(noteCount, kMaxNotes); ++n) {
      int note = notes[n];
      // f32/f64 never on tensor cores (TF32 rounds the inputs), no engine
      // narrows inputs or sums in reduced precision, and FFT and Winograd
      // only when asked for.
      if ((note == kNoteTensorCore && !narrow) ||
          note == kNoteDownConvertInputs ||
          note == kNoteReducedPrecisionReduction ||
          (!fastAlgorithms &&
           (note == kNoteFft || note == kNoteWinograd ||
            note == kNoteWinograd4x4 || note == kNoteWinograd6x6 ||
            note == kNoteWinograd13x13)))
        allowed = false;
    }
    // Engines compiled at run time need NVRTC and pay its compile.
    for (int64_t n = 0; n < std::min<int64_t>(behaviorCount, kMaxNotes); ++n)
      if (behaviors[n] == kBehaviorRuntimeCompilation)
        allowed = false;
    if (!allowed)
      continue;
    void *plan = b.create(kExecutionPlanDescriptor);
    if (!b.set(plan, kPlanHandle, kTypeHandle, 1, &c.dnn) ||
        !b.set(plan, kPlanEngineConfig, kTypeBackendDescriptor, 1,
               &configs[i]) ||
        c.backendFinalize(plan) != 0)
      continue;
    int64_t bytes = 0;
    if (c.backendGet(plan, kPlanWorkspaceSize, kTypeInt64, 1, &got, &bytes) !=
            0 ||
        bytes < 0 || static_cast<size_t>(bytes) > budget)
      continue;
    engine = -1;
    (void)c.backendGet(engineDesc, kEngineGlobalIndex, kTypeInt64, 1, &got,
                       &engine);
    workspace = static_cast<size_t>(bytes);
    b.keep(plan);
    return plan;
  }
  return nullptr;
}

/// Runs `plan` on the handle's stream: one variant pack, made per call.
int backendExecute(Cudnn &c, void *plan, void *x, void *w, void *y,
                   void *workspace) {
  BackendBuilder b(c);
  void *pack = b.create(kVariantPackDescriptor);
  const int64_t uids[3] = {kUidX, kUidW, kUidY};
  void *pointers[3] = {x, w, y};
  if (!b.set(pack, kPackUniqueIds, kTypeInt64, 3, uids) ||
      !b.set(pack, kPackDataPointers, kTypeVoidPtr, 3, pointers) ||
      !b.set(pack, kPackWorkspace, kTypeVoidPtr, 1, &workspace))
    return -1;
  if (int status = c.backendFinalize(pack))
    return status;
  return c.backendExecute(c.dnn, plan, pack);
}

const char *typeName(int type) {
  return type == kDouble  ? "f64"
         : type == kFloat ? "f32"
         : type == kHalf  ? "f16"
                          : "bf16";
}

size_t typeSize(int type) {
  return type == kDouble ? 8 : type == kFloat ? 4 : 2;
}

/// y = conv(x, w) (or y += conv(x, w) when `accumulate`) for NC<spatial>
/// tensors x [N, C, ...], w [F, C/groups, ...], y [N, F, ...]. False, with
/// the message in `why`, when its workspace does not fit in GPU memory: the
/// caller reports it once this frame's objects are destroyed (out of memory
/// leaves with longjmp, which would skip their destructors).
bool convolution(int64_t xRank, void *xDesc, int64_t wRank, void *wDesc,
                 int64_t yRank, void *yDesc, int64_t groups, int64_t accumulate,
                 const int64_t pads[3], const int64_t strides[3],
                 const int64_t dilations[3], int type, char *why,
                 size_t whySize) {
  Driver &d = ready("running a GPU convolution");
  Cudnn &c = cudnn();
  if (!c.unavailable.empty())
    fatal("running a GPU convolution: " + c.unavailable);
  View x{xRank, static_cast<const int64_t *>(xDesc)};
  View w{wRank, static_cast<const int64_t *>(wDesc)};
  View y{yRank, static_cast<const int64_t *>(yDesc)};
  int64_t k = xRank - 2;
  if (k < 1 || k > 3 || wRank != xRank || yRank != xRank || groups < 1)
    fatal("a GPU convolution was called with ranks " + std::to_string(xRank) +
          ", " + std::to_string(wRank) + ", " + std::to_string(yRank) +
          " and " + std::to_string(groups) + " groups");
  // Nothing to compute.
  for (int64_t dim = 0; dim < yRank; ++dim)
    if (y.size(dim) == 0)
      return true;
  if (x.size(1) == 0)
    fatal("a GPU convolution over 0 input channels is not supported");

  // cuDNN's descriptors are at least 4-D: a 1-D convolution is a 2-D one
  // over a height of 1.
  int64_t dims = k == 1 ? 4 : xRank;
  auto widen = [&](const View &v, bool sizes) {
    std::vector<int64_t> out;
    for (int64_t dim = 0; dim < v.rank; ++dim) {
      if (k == 1 && dim == 2)
        out.push_back(sizes ? 1 : v.size(2) * v.stride(2));
      out.push_back(sizes ? v.size(dim) : v.stride(dim));
    }
    return out;
  };
  std::vector<int64_t> xs = widen(x, true), xt = widen(x, false),
                       ws = widen(w, true), wt = widen(w, false),
                       ys = widen(y, true), yt = widen(y, false);
  std::vector<int64_t> pad, stride, dilation;
  if (k == 1) {
    pad.push_back(0);
    stride.push_back(1);
    dilation.push_back(1);
  }
  for (int64_t i = 0; i < k; ++i) {
    pad.push_back(pads[i]);
    stride.push_back(strides[i]);
    dilation.push_back(dilations[i]);
  }
  // cuDNN takes 32-bit sizes and strides, and packed filters.
  const int64_t limit = std::numeric_limits<int>::max();
  for (const std::vector<int64_t> *v :
       {&xs, &xt, &ws, &wt, &ys, &yt, &pad, &stride, &dilation})
    for (int64_t value : *v)
      if (value < 0 || value > limit)
        fatal("a GPU convolution: a size, stride or padding of " +
              std::to_string(value) + " is outside cuDNN's 32-bit range");
  // Filters are packed in KCRS order (NCHW format) or in KRSC order (NHWC
  // format: a channels-last convolution's weights, seen through a view with
  // sizes in KCRS order).
  auto packedIn = [&](const std::vector<int64_t> &order) {
    int64_t packed = 1;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      if (ws[*it] > 1 && wt[*it] != packed)
        return false;
      packed *= ws[*it];
    }
    return true;
  };
  std::vector<int64_t> kcrs(dims), krsc = {0};
  for (int64_t dim = 0; dim < dims; ++dim)
    kcrs[dim] = dim;
  for (int64_t dim = 2; dim < dims; ++dim)
    krsc.push_back(dim);
  krsc.push_back(1);
  // Where both hold (1x1 filters), the input's layout decides: cuDNN's
  // NHWC kernels want an NHWC filter.
  bool nhwcInput = xs[1] > 1 && xt[1] == 1;
  bool nchwFilter = packedIn(kcrs), nhwcFilter = packedIn(krsc);
  if (!nchwFilter && !nhwcFilter)
    fatal("a GPU convolution's weights are not contiguous, which cuDNN's "
          "filter descriptors require");
  int filterFormat =
      nhwcFilter && (nhwcInput || !nchwFilter) ? kTensorNHWC : kTensorNCHW;
  // Input and output packed channels-last (sizes in NCHW order, strides of
  // NHWC data), with an NHWC filter: the NHWC convolution.
  auto packedNHWC = [&](const std::vector<int64_t> &sizes,
                        const std::vector<int64_t> &strides) {
    std::vector<int64_t> order = {0};
    for (int64_t dim = 2; dim < dims; ++dim)
      order.push_back(dim);
    order.push_back(1);
    int64_t packed = 1;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      if (sizes[*it] > 1 && strides[*it] != packed)
        return false;
      packed *= sizes[*it];
    }
    return true;
  };
  const char *byStrides = std::getenv("TIDE_CUDNN_NHWC_BY_STRIDES");
  bool channelsLast = filterFormat == kTensorNHWC && packedNHWC(xs, xt) &&
                      packedNHWC(ys, yt) &&
                      !(byStrides && *byStrides && *byStrides != '0');

  // The backend's plans are made for the operands' byte alignment (up to
  // 16): part of the key, as the beta of accumulating convolutions is.
  size_t element = typeSize(type);
  int64_t alignment = 16;
  for (char *ptr : {x.base(element), w.base(element), y.base(element)})
    while (alignment > static_cast<int64_t>(element) &&
           reinterpret_cast<uintptr_t>(ptr) % alignment != 0)
      alignment /= 2;
  std::vector<int64_t> key = {type,           dims,         groups,
                              filterFormat,   channelsLast, alignment,
                              accumulate != 0};
  for (const std::vector<int64_t> *v :
       {&xs, &xt, &ws, &ys, &yt, &pad, &stride, &dilation})
    key.insert(key.end(), v->begin(), v->end());

  std::string name = std::string("conv ") + typeName(type);
  for (int64_t dim = 0; dim < xRank; ++dim)
    name += (dim ? "x" : " ") + std::to_string(x.size(dim));
  name += " * ";
  for (int64_t dim = 0; dim < wRank; ++dim)
    name += (dim ? "x" : "") + std::to_string(w.size(dim));
  double flops = 2.0 * x.size(1) / groups;
  for (int64_t dim = 0; dim < yRank; ++dim)
    flops *= y.size(dim);
  for (int64_t dim = 2; dim < wRank; ++dim)
    flops *= w.size(dim);

  CUstream stream = static_cast<CUstream>(mgpuStreamCreate());
  std::unique_lock<std::mutex> serial(c.calls);
  static std::map<std::vector<int64_t>, Plan> plans;
  auto it = plans.find(key);
  size_t budget = envSize("TIDE_CUDNN_WORKSPACE", size_t(1) << 30);
  const char *fast = std::getenv("TIDE_CUDNN_FAST_ALGORITHMS");
  bool fastAlgorithms = fast && *fast && std::string(fast) != "0";
  if (it == plans.end() && c.backend) {
    Plan p;
    p.plan = backendPlan(c, type, xs, xt, ws, wt, ys, yt, pad, stride, dilation,
                         alignment, accumulate != 0, fastAlgorithms, budget,
                         p.workspace, p.engine);
    if (p.plan)
      it = plans.emplace(key, p).first;
  }
  if (it == plans.end()) {
    Plan p;
    auto narrow = [](const std::vector<int64_t> &v) {
      return std::vector<int>(v.begin(), v.end());
    };
    std::vector<int> xs32 = narrow(xs), xt32 = narrow(xt), ws32 = narrow(ws),
                     ys32 = narrow(ys), yt32 = narrow(yt), pad32 = narrow(pad),
                     stride32 = narrow(stride), dil32 = narrow(dilation);
    int compute = type == kDouble ? kDouble : kFloat;
    // f16/bf16 data are already narrow: tensor cores multiply them exactly
    // and accumulate in f32. f32 stays on FMA kernels (no TF32).
    int math = type == kHalf || type == kBFloat16 ? kTensorOpMath : kFmaMath;
    auto step = [&](int result, const char *what) {
      if (result)
        fatal(name + ": " + what + " failed: " + c.errorString(result));
    };
    step(c.createTensor(&p.x), "cudnnCreateTensorDescriptor");
    // Packed channels-last tensors are described as NHWC (the format, not
    // only the strides): cuDNN's heuristics then pick its NHWC tensor-core
    // kernels.
    if (channelsLast)
      step(c.setTensorNdEx(p.x, kTensorNHWC, type, dims, xs32.data()),
           "setting the input's descriptor");
    else
      step(c.setTensorNd(p.x, type, dims, xs32.data(), xt32.data()),
           "setting the input's descriptor");
    step(c.createTensor(&p.y), "cudnnCreateTensorDescriptor");
    if (channelsLast)
      step(c.setTensorNdEx(p.y, kTensorNHWC, type, dims, ys32.data()),
           "setting the output's descriptor");
    else
      step(c.setTensorNd(p.y, type, dims, ys32.data(), yt32.data()),
           "setting the output's descriptor");
    step(c.createFilter(&p.w), "cudnnCreateFilterDescriptor");
    step(c.setFilterNd(p.w, type, filterFormat, dims, ws32.data()),
         "setting the weights' descriptor");
    step(c.createConv(&p.conv), "cudnnCreateConvolutionDescriptor");
    step(c.setConvNd(p.conv, dims - 2, pad32.data(), stride32.data(),
                     dil32.data(), kCrossCorrelation, compute),
         "setting the convolution's descriptor");
    step(c.setGroupCount(p.conv, static_cast<int>(groups)),
         "setting the group count");
    step(c.setMathType(p.conv, math), "setting the math type");
    std::array<AlgoPerf, kFwdAlgoCount> perf{};
    int found = 0;
    step(c.getAlgorithms(c.dnn, p.x, p.w, p.conv, p.y, kFwdAlgoCount, &found,
                         perf.data()),
         "choosing an algorithm");
    bool chosen = false;
    for (int i = 0; i < found && !chosen; ++i) {
      const AlgoPerf &a = perf[i];
      if (a.status != 0 || a.memory > budget)
        continue;
      // FFT and Winograd convolutions (algorithms 4-7) trade accuracy for
      // speed: only where the user asks for them.
      if (a.algo >= 4 && !fastAlgorithms)
        continue;
      // Never let an f32 convolution round its inputs to TF32.
      if (math == kFmaMath && (a.mathType == kTensorOpMath ||
                               a.mathType == kTensorOpMathAllowConversion))
        continue;
      size_t bytes = 0;
      if (c.workspaceSize(c.dnn, p.x, p.w, p.conv, p.y, a.algo, &bytes) != 0 ||
          bytes > budget)
        continue;
      p.algo = a.algo;
      p.workspace = bytes;
      chosen = true;
    }
    if (!chosen)
      fatal(name + ": cuDNN has no algorithm for this convolution within a " +
            std::to_string(budget >> 20) +
            " MiB workspace (TIDE_CUDNN_WORKSPACE sets it, in bytes)");
    it = plans.emplace(key, p).first;
  }
  const Plan &p = it->second;
  void *workspace = nullptr;
  if (p.workspace) {
    workspace = reinterpret_cast<void *>(
        tryAllocate(d, p.workspace, stream, /*tracked=*/true, why, whySize));
    if (!workspace)
      return false;
  }
  int status = 0;
  c.setStream(c.dnn, stream);
  if (profiler().enabled) // which algorithm, in the profile
    name += std::string(channelsLast ? " nhwc" : "") +
            (p.plan ? " engine " + std::to_string(p.engine)
                    : " algo " + std::to_string(p.algo));
  timed(d, stream, name, flops, [&] {
    if (p.plan) {
      status = backendExecute(c, p.plan, x.base(element), w.base(element),
                              y.base(element), workspace);
      return;
    }
    const double one = 1.0, beta = accumulate ? 1.0 : 0.0;
    const float onef = 1.0f, betaf = accumulate ? 1.0f : 0.0f;
    bool f64 = type == kDouble;
    status = c.forward(c.dnn, f64 ? static_cast<const void *>(&one) : &onef,
                       p.x, x.base(element), p.w, w.base(element), p.conv,
                       p.algo, workspace, p.workspace,
                       f64 ? static_cast<const void *>(&beta) : &betaf, p.y,
                       y.base(element));
  });
  if (workspace)
    mgpuMemFree(workspace, stream);
  if (status != 0)
    fatal(name +
          (p.plan ? ": cudnnBackendExecute failed: "
                  : ": cudnnConvolutionForward failed: ") +
          (status > 0 ? c.errorString(status) : "no variant pack"));
  return true;
}

} // namespace

#define TIDE_DEFINE_GPU_CONV(suffix, type)                                     \
  extern "C" void tide_rt_gpu_conv_##suffix(TIDE_RT_GPU_CONV_ARGS) {           \
    const int64_t pads[3] = {pad0, pad1, pad2};                                \
    const int64_t strides[3] = {stride0, stride1, stride2};                    \
    const int64_t dilations[3] = {dilation0, dilation1, dilation2};            \
    char why[512];                                                             \
    if (!convolution(xRank, x, wRank, w, yRank, y, groups, accumulate, pads,   \
                     strides, dilations, type, why, sizeof(why)))              \
      outOfMemory(why);                                                        \
  }
TIDE_DEFINE_GPU_CONV(f16, kHalf)
TIDE_DEFINE_GPU_CONV(bf16, kBFloat16)
TIDE_DEFINE_GPU_CONV(f32, kFloat)
TIDE_DEFINE_GPU_CONV(f64, kDouble)
#undef TIDE_DEFINE_GPU_CONV
