//===- CudaAttention.cpp - The fused attention kernel ---------------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// tide_rt_gpu_attention_{f16,bf16}: softmax(f(Q K^T)) V in one kernel
// (Kernels/Attention.cu, compiled for sm_90 at build time and embedded
// here), on the calling thread's stream. The compiler calls it for the
// attention it recognizes (lib/Conversion/LinalgToGPU/Attention.cpp); this
// file reads the buffers' shapes and strides, checks them and picks the
// kernel: every key of a row in shared memory and registers when there are at
// most 128 (head dims 32 and 64; 8 warps, each half of the keys of 16 rows),
// else two passes over tiles of keys (4 warps).
//
//===----------------------------------------------------------------------===//

#include "CudaInternal.h"
#include "tide/Runtime/CudaRuntime.h"
#include "tide/Runtime/RuntimeSymbols.h"

#include <cmath>
#include <cstring>
#include <map>
#include <string>

using namespace tide::cudart;

namespace {

#include "AttentionKernels.inc" // kAttentionCubin, kAttentionCubinSize

/// Mirrors Params in Kernels/Attention.cu.
struct Params {
  const void *q, *k, *v, *mask;
  void *o;
  int64_t qs[3], ks[3], vs[3], os[3], ms[4];
  int64_t batch1, sq, sk, blocksPerHead;
  int32_t steps[3];
  float constants[3];
  int32_t vectors, maskPairs;
};

/// A ranked memref descriptor behind an unranked one.
struct View {
  int64_t rank;
  const int64_t *words;
  char *base() const {
    char *aligned;
    std::memcpy(&aligned, words + 1, sizeof(aligned));
    return aligned + words[2] * 2;
  }
  int64_t size(int64_t d) const { return words[3 + d]; }
  int64_t stride(int64_t d) const { return words[3 + rank + d]; }
};

CUfunction kernel(Driver &d, const std::string &name) {
  Lock lock(mutex);
  static CUmodule module = nullptr;
  static std::map<std::string, CUfunction> functions;
  if (!module)
    check(d, d.cuModuleLoadData(&module, kAttentionCubin),
          "loading Tide's attention kernels (built for sm_90: an H100 or "
          "H200)");
  auto it = functions.find(name);
  if (it != functions.end())
    return it->second;
  CUfunction f;
  check(d, d.cuModuleGetFunction(&f, module, name.c_str()),
        "looking up kernel '" + name + "'");
  return functions[name] = f;
}

void attention(bool bf16, int64_t qRank, void *qDesc, int64_t kRank,
               void *kDesc, int64_t vRank, void *vDesc, int64_t oRank,
               void *oDesc, int64_t maskRank, void *maskDesc, bool kTransposed,
               const int64_t maskDims[4], const int64_t steps[3],
               const double constants[3]) {
  Driver &d = ready("running a fused attention");
  View q{qRank, static_cast<const int64_t *>(qDesc)};
  View kt{kRank, static_cast<const int64_t *>(kDesc)};
  View v{vRank, static_cast<const int64_t *>(vDesc)};
  View o{oRank, static_cast<const int64_t *>(oDesc)};
  View mask{maskRank, static_cast<const int64_t *>(maskDesc)};
  int64_t rank = qRank;
  if ((rank != 3 && rank != 4) || kRank != rank || vRank != rank ||
      oRank != rank)
    fatal("a fused attention was called with ranks " + std::to_string(qRank) +
          ", " + std::to_string(kRank) + ", " + std::to_string(vRank) + ", " +
          std::to_string(oRank));
  // (batch0, batch1) of a rank-3 call: (batch, 1).
  auto batchSize = [&](const View &x, int i) -> int64_t {
    return rank == 4 ? x.size(i) : (i == 0 ? x.size(0) : 1);
  };
  auto batchStride = [&](const View &x, int i) -> int64_t {
    return rank == 4 ? x.stride(i) : (i == 0 ? x.stride(0) : 0);
  };
  int64_t sq = q.size(rank - 2), dim = q.size(rank - 1),
          sk = kt.size(kTransposed ? rank - 1 : rank - 2);
  bool shapesAgree = kt.size(kTransposed ? rank - 2 : rank - 1) == dim &&
                     v.size(rank - 2) == sk && v.size(rank - 1) == dim &&
                     o.size(rank - 2) == sq && o.size(rank - 1) == dim;
  for (int i = 0; i < 2; ++i)
    shapesAgree = shapesAgree && batchSize(kt, i) == batchSize(q, i) &&
                  batchSize(v, i) == batchSize(q, i) &&
                  batchSize(o, i) == batchSize(q, i);
  if (!shapesAgree)
    fatal("a fused attention was called with shapes that do not agree");
  if (dim != 32 && dim != 64 && dim != 128)
    fatal("a fused attention over a head dim of " + std::to_string(dim) +
          " (Tide's kernels take 32, 64 and 128)");
  for (const View *x : {&q, &kt, &v, &o})
    if (x->stride(rank - 1) != 1)
      fatal("a fused attention's buffers must be contiguous along their "
            "last dim");
  int64_t heads = batchSize(q, 0) * batchSize(q, 1);
  if (heads == 0 || sq == 0)
    return;

  Params p{};
  p.q = q.base();
  p.k = kt.base();
  p.v = v.base();
  p.o = o.base();
  for (int i = 0; i < 2; ++i) {
    p.qs[i] = batchStride(q, i);
    p.ks[i] = batchStride(kt, i);
    p.vs[i] = batchStride(v, i);
    p.os[i] = batchStride(o, i);
  }
  p.qs[2] = q.stride(rank - 2);
  p.ks[2] = kt.stride(rank - 2);
  p.vs[2] = v.stride(rank - 2);
  p.os[2] = o.stride(rank - 2);
  bool hasMask = false;
  for (int i = 0; i < 3; ++i) {
    p.steps[i] = static_cast<int32_t>(steps[i]);
    p.constants[i] = static_cast<float>(constants[i]);
    hasMask = hasMask || steps[i] == 3;
    // A division by a power of two is the multiplication by its inverse,
    // exactly.
    int exponent;
    if (steps[i] == 2 && std::frexp(constants[i], &exponent) == 0.5 &&
        exponent > -125 && exponent < 126) {
      p.steps[i] = 1;
      p.constants[i] = static_cast<float>(1.0 / constants[i]);
    }
  }
  if (hasMask) {
    p.mask = mask.base();
    int64_t sizes[4] = {batchSize(q, 0), batchSize(q, 1), sq, sk};
    for (int i = 0; i < 4; ++i) {
      int64_t m = maskDims[i];
      if (m < 0)
        continue;
      if (m >= maskRank || (mask.size(m) != sizes[i] && mask.size(m) != 1))
        fatal("a fused attention's mask does not match its scores");
      p.ms[i] = mask.size(m) == 1 ? 0 : mask.stride(m);
    }
  }
  p.batch1 = batchSize(q, 1);
  p.sq = sq;
  p.sk = sk;
  p.blocksPerHead = (sq + 63) / 64;
  auto aligned = [](const void *ptr, int64_t bytes) {
    return reinterpret_cast<uintptr_t>(ptr) % bytes == 0;
  };
  p.vectors = aligned(p.q, 16) && aligned(p.k, 16) && aligned(p.v, 16) &&
              aligned(p.o, 16);
  for (int i = 0; i < 3; ++i)
    if (p.qs[i] % 8 || p.ks[i] % 8 || p.vs[i] % 8 || p.os[i] % 8)
      p.vectors = 0;
  p.maskPairs = hasMask && aligned(p.mask, 4) && p.ms[3] == 1 &&
                p.ms[0] % 2 == 0 && p.ms[1] % 2 == 0 && p.ms[2] % 2 == 0;

  int64_t blocks = heads * p.blocksPerHead;
  if (blocks > 0x7fffffff)
    fatal("a fused attention over " + std::to_string(heads) +
          " heads is too large for one launch");
  bool onePass = dim <= 64 && sk <= 128;
  std::string name = std::string("tide_attention_") + (bf16 ? "bf16" : "f16") +
                     "_d" + std::to_string(dim) + (onePass ? "_k128" : "") +
                     (kTransposed ? "_kt" : "");
  CUfunction f = kernel(d, name);
  CUstream stream = static_cast<CUstream>(mgpuStreamCreate());
  void *args[] = {&p};
  double flops = 4.0 * heads * sq * sk * dim;
  timed(d, stream,
        "attention " + std::string(bf16 ? "bf16 " : "f16 ") +
            std::to_string(heads) + "x" + std::to_string(sq) + "x" +
            std::to_string(sk) + "x" + std::to_string(dim),
        flops, [&] {
          check(d,
                d.cuLaunchKernel(f, static_cast<unsigned>(blocks), 1, 1,
                                 onePass ? 256 : 128, 1, 1, 0, stream, args,
                                 nullptr),
                "launching the fused attention kernel '" + name + "'");
        });
}

} // namespace

#define TIDE_DEFINE_GPU_ATTENTION(suffix, bf16)                                \
  extern "C" void tide_rt_gpu_attention_##suffix(TIDE_RT_GPU_ATTENTION_ARGS) { \
    const int64_t maskDims[4] = {maskDim0, maskDim1, maskDim2, maskDim3};      \
    const int64_t steps[3] = {step0, step1, step2};                            \
    const double constants[3] = {constant0, constant1, constant2};             \
    attention(bf16, qRank, q, kRank, k, vRank, v, oRank, o, maskRank, mask,    \
              kTransposed != 0, maskDims, steps, constants);                   \
  }
TIDE_DEFINE_GPU_ATTENTION(f16, false)
TIDE_DEFINE_GPU_ATTENTION(bf16, true)
#undef TIDE_DEFINE_GPU_ATTENTION
