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
// Descriptors and the chosen algorithm are cached per shape, so a model's
// convolutions pay cuDNN's heuristics once; the workspace comes from Tide's
// stream-ordered caching allocator.
//
//===----------------------------------------------------------------------===//

#include "CudaInternal.h"
#include "tide/Runtime/CudaRuntime.h"
#include "tide/Runtime/RuntimeSymbols.h"

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
};

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

  std::vector<int64_t> key = {type, dims, groups, filterFormat, channelsLast};
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
    size_t budget = envSize("TIDE_CUDNN_WORKSPACE", size_t(1) << 30);
    const char *fast = std::getenv("TIDE_CUDNN_FAST_ALGORITHMS");
    bool fastAlgorithms = fast && *fast && std::string(fast) != "0";
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
  size_t element = typeSize(type);
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
    name += std::string(channelsLast ? " nhwc" : "") + " algo " +
            std::to_string(p.algo);
  timed(d, stream, name, flops, [&] {
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
    fatal(name + ": cudnnConvolutionForward failed: " + c.errorString(status));
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
