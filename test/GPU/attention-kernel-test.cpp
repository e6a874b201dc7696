//===- attention-kernel-test.cpp - The fused attention kernels alone ------===//
//
// Part of the Tide project.
//
// Runs every kernel of lib/Runtime/Kernels/Attention.cu (the cubin embedded in
// libTideCudaRuntime.so, through the CUDA driver API) on random inputs and
// compares each output with a CPU reference that rounds where the kernel
// rounds (after the product, after each step, the probabilities): BERT's
// shape, tails of queries and keys, both K layouts, head dims 32/64/128, one
// and two passes, masks broadcast in several ways with -inf keys and a fully
// masked row (NaN, as the separate ops give), rows that are not 16-byte
// aligned (the scalar path). Then times the BERT-base shapes. Built here,
// run on the GPU machine (bash bench/gpu.sh attention). Environment:
// TWOPASS=1 forces the streaming kernels, POW2=1 turns divisions by powers
// of two into multiplications as the runtime does, ATTENTION_CUBIN=path
// loads that cubin instead of the embedded one. Prints "N failures".
//
//===----------------------------------------------------------------------===//
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda.h>
#include <random>
#include <string>
#include <vector>

#include "AttentionKernels.inc" // kAttentionCubin

/// Mirrors Params in Kernels/Attention.cu.
struct Params {
  const uint16_t *q, *k, *v, *mask;
  uint16_t *o;
  int64_t qs[3], ks[3], vs[3], os[3], ms[4];
  int64_t batch1, sq, sk, blocksPerHead;
  int32_t steps[3];
  float constants[3];
  int32_t vectors, maskPairs;
};

#define CK(x)                                                                  \
  do {                                                                         \
    CUresult r = (x);                                                          \
    if (r != CUDA_SUCCESS) {                                                   \
      const char *s;                                                           \
      cuGetErrorString(r, &s);                                                 \
      printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, s);                     \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

static float bits2f(uint32_t b) {
  float f;
  memcpy(&f, &b, 4);
  return f;
}
static uint32_t f2bits(float f) {
  uint32_t b;
  memcpy(&b, &f, 4);
  return b;
}
static bool gBF16 = true;
static float toF(uint16_t h) {
  if (gBF16)
    return bits2f(uint32_t(h) << 16);
  _Float16 x;
  memcpy(&x, &h, 2);
  return (float)x;
}
static uint16_t fromF(float f) {
  if (gBF16) {
    uint32_t b = f2bits(f);
    if (std::isnan(f))
      return 0x7fc0;
    uint32_t lsb = (b >> 16) & 1;
    b += 0x7fff + lsb;
    return b >> 16;
  }
  _Float16 x = (_Float16)f;
  uint16_t h;
  memcpy(&h, &x, 2);
  return h;
}
static float rnd(float f) { return toF(fromF(f)); }

struct Case {
  const char *name;
  bool bf16;
  int64_t b0, b1, sq, sk, d;
  bool kt;
  int steps[3];
  float consts[3];
  int maskKind; // 0 none, 1 [b0,1,1,sk], 2 [sq,sk], 3 full [b0,b1,sq,sk]
  bool misalign;
  bool negInf;
  int timing;
};

int main() {
  CK(cuInit(0));
  CUdevice dev;
  CK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CK(cuCtxCreate(&ctx, nullptr, 0, dev));
  CUmodule mod;
  // ATTENTION_CUBIN=path: a cubin built from a changed Attention.cu instead
  // of the embedded one (to compare variants of the kernels in one run).
  if (const char *path = getenv("ATTENTION_CUBIN")) {
    printf("kernels from %s\n", path);
    CK(cuModuleLoad(&mod, path));
  } else {
    CK(cuModuleLoadData(&mod, kAttentionCubin));
  }
  Case cases[] = {
      {"bert bf16",
       true,
       2,
       3,
       128,
       128,
       64,
       false,
       {2, 3, 0},
       {8, 0, 0},
       1,
       false,
       false,
       0},
      {"bert f16",
       false,
       2,
       3,
       128,
       128,
       64,
       false,
       {2, 3, 0},
       {8, 0, 0},
       1,
       false,
       false,
       0},
      {"kt tails",
       true,
       1,
       2,
       100,
       77,
       64,
       true,
       {1, 0, 0},
       {0.125f, 0, 0},
       0,
       false,
       false,
       0},
      {"kt tails f16",
       false,
       1,
       2,
       100,
       77,
       64,
       true,
       {1, 0, 0},
       {0.125f, 0, 0},
       0,
       false,
       false,
       0},
      {"d32 long",
       true,
       3,
       1,
       17,
       200,
       32,
       false,
       {3, 2, 0},
       {0, 3, 0},
       2,
       false,
       false,
       0},
      {"d32 kt",
       true,
       3,
       1,
       17,
       200,
       32,
       true,
       {3, 2, 0},
       {0, 3, 0},
       2,
       false,
       false,
       0},
      {"d128",
       true,
       2,
       2,
       130,
       65,
       128,
       false,
       {2, 3, 0},
       {11.3137f, 0, 0},
       3,
       false,
       false,
       0},
      {"d128 kt f16",
       false,
       2,
       2,
       130,
       65,
       128,
       true,
       {2, 3, 0},
       {11.3137f, 0, 0},
       3,
       false,
       false,
       0},
      {"-inf mask",
       true,
       2,
       2,
       70,
       90,
       64,
       false,
       {3, 0, 0},
       {0, 0, 0},
       3,
       false,
       true,
       0},
      {"misaligned",
       true,
       2,
       2,
       70,
       90,
       64,
       false,
       {2, 3, 0},
       {8, 0, 0},
       1,
       true,
       false,
       0},
      {"misaligned kt",
       false,
       2,
       2,
       70,
       90,
       64,
       true,
       {2, 3, 0},
       {8, 0, 0},
       1,
       true,
       false,
       0},
      {"no steps",
       true,
       1,
       1,
       64,
       64,
       64,
       false,
       {0, 0, 0},
       {0, 0, 0},
       0,
       false,
       false,
       0},
      {"time bert b32",
       true,
       32,
       12,
       128,
       128,
       64,
       false,
       {2, 3, 0},
       {8, 0, 0},
       1,
       false,
       false,
       50},
      {"time bert b32 kt",
       true,
       32,
       12,
       128,
       128,
       64,
       true,
       {2, 3, 0},
       {8, 0, 0},
       1,
       false,
       false,
       50},
      {"time bert b1",
       true,
       1,
       12,
       128,
       128,
       64,
       false,
       {2, 3, 0},
       {8, 0, 0},
       1,
       false,
       false,
       200},
      {"time bert b8",
       true,
       8,
       12,
       128,
       128,
       64,
       false,
       {2, 3, 0},
       {8, 0, 0},
       1,
       false,
       false,
       100},
      {"time nomask b32",
       true,
       32,
       12,
       128,
       128,
       64,
       false,
       {1, 0, 0},
       {0.125f, 0, 0},
       0,
       false,
       false,
       50},
      {"time nosteps b32",
       true,
       32,
       12,
       128,
       128,
       64,
       false,
       {0, 0, 0},
       {0, 0, 0},
       0,
       false,
       false,
       50},
      {"time s512 b8",
       true,
       8,
       12,
       512,
       512,
       64,
       false,
       {2, 3, 0},
       {8, 0, 0},
       1,
       false,
       false,
       20},
  };
  int failures = 0;
  std::mt19937 rng(42);
  std::normal_distribution<float> normal(0, 1);
  for (const Case &c : cases) {
    gBF16 = c.bf16;
    int64_t D = c.d, B = c.b0 * c.b1;
    int64_t pad = c.misalign ? 1 : 0;
    int64_t rq = D + pad; // row stride of q, k, v, o
    int64_t kRows = c.kt ? D : c.sk, kCols = c.kt ? c.sk + pad : rq;
    std::vector<uint16_t> q(B * c.sq * rq + pad), k(B * kRows * kCols + pad),
        v(B * c.sk * rq + pad), o(B * c.sq * rq + pad, 0);
    for (auto &x : q)
      x = fromF(normal(rng));
    for (auto &x : k)
      x = fromF(normal(rng));
    for (auto &x : v)
      x = fromF(normal(rng));
    int64_t mSize = c.maskKind == 1   ? c.b0 * c.sk
                    : c.maskKind == 2 ? c.sq * c.sk
                    : c.maskKind == 3 ? B * c.sq * c.sk
                                      : 0;
    std::vector<uint16_t> m(mSize + 1);
    for (auto &x : m)
      x = fromF(c.negInf ? (rng() % 4 == 0 ? -INFINITY : normal(rng))
                         : -2.0f * (rng() % 2));
    int64_t ms[4] = {0, 0, 0, 0};
    if (c.maskKind == 1) {
      ms[0] = c.sk;
      ms[3] = 1;
    }
    if (c.maskKind == 2) {
      ms[2] = c.sk;
      ms[3] = 1;
    }
    if (c.maskKind == 3) {
      ms[0] = c.b1 * c.sq * c.sk;
      ms[1] = c.sq * c.sk;
      ms[2] = c.sk;
      ms[3] = 1;
    }
    if (c.negInf && c.maskKind == 3) // one fully masked row
      for (int64_t j = 0; j < c.sk; ++j)
        m[5 * c.sk + j] = fromF(-INFINITY);
    auto maskAt = [&](int64_t b, int64_t i, int64_t j) {
      return toF(
          m[(b / c.b1) * ms[0] + (b % c.b1) * ms[1] + i * ms[2] + j * ms[3]]);
    };
    const uint16_t *Q = q.data() + pad, *K = k.data() + pad,
                   *V = v.data() + pad;
    auto kAt = [&](int64_t b, int64_t j, int64_t dd) {
      return c.kt ? toF(K[b * kRows * kCols + dd * kCols + j])
                  : toF(K[b * kRows * kCols + j * kCols + dd]);
    };
    // Device
    CUdeviceptr dq, dk, dv, dm, dout;
    CK(cuMemAlloc(&dq, q.size() * 2));
    CK(cuMemAlloc(&dk, k.size() * 2));
    CK(cuMemAlloc(&dv, v.size() * 2));
    CK(cuMemAlloc(&dm, m.size() * 2));
    CK(cuMemAlloc(&dout, o.size() * 2));
    CK(cuMemcpyHtoD(dq, q.data(), q.size() * 2));
    CK(cuMemcpyHtoD(dk, k.data(), k.size() * 2));
    CK(cuMemcpyHtoD(dv, v.data(), v.size() * 2));
    CK(cuMemcpyHtoD(dm, m.data(), m.size() * 2));
    CK(cuMemsetD8(dout, 0, o.size() * 2));
    Params p{};
    p.q = (const uint16_t *)(dq + 2 * pad);
    p.k = (const uint16_t *)(dk + 2 * pad);
    p.v = (const uint16_t *)(dv + 2 * pad);
    p.o = (uint16_t *)(dout + 2 * pad);
    p.mask = c.maskKind ? (const uint16_t *)dm : nullptr;
    int64_t qs[3] = {c.b1 * c.sq * rq, c.sq * rq, rq};
    int64_t ks[3] = {c.b1 * kRows * kCols, kRows * kCols, kCols};
    int64_t vs[3] = {c.b1 * c.sk * rq, c.sk * rq, rq};
    memcpy(p.qs, qs, 24);
    memcpy(p.ks, ks, 24);
    memcpy(p.vs, vs, 24);
    memcpy(p.os, qs, 24);
    memcpy(p.ms, ms, 32);
    p.batch1 = c.b1;
    p.sq = c.sq;
    p.sk = c.sk;
    p.blocksPerHead = (c.sq + 63) / 64;
    for (int i = 0; i < 3; ++i) {
      p.steps[i] = c.steps[i];
      p.constants[i] = c.consts[i];
    }
    p.vectors = !c.misalign;
    p.maskPairs = c.maskKind && ms[3] == 1 && ms[0] % 2 == 0 &&
                  ms[1] % 2 == 0 && ms[2] % 2 == 0;
    for (int i = 0; i < 3; ++i)
      if (qs[i] % 8 || ks[i] % 8 || vs[i] % 8)
        p.vectors = 0;
    bool one = D <= 64 && c.sk <= 128 && !getenv("TWOPASS");
    for (int i = 0; i < 3; ++i)
      if (p.steps[i] == 2 && getenv("POW2")) {
        int e;
        float mant = frexpf(p.constants[i], &e);
        if (mant == 0.5f) {
          p.steps[i] = 1;
          p.constants[i] = 1.0f / p.constants[i];
        }
      }
    std::string name = std::string("tide_attention_") +
                       (c.bf16 ? "bf16" : "f16") + "_d" + std::to_string(D) +
                       (one ? "_k128" : "") + (c.kt ? "_kt" : "");
    CUfunction fn;
    CK(cuModuleGetFunction(&fn, mod, name.c_str()));
    void *args[] = {&p};
    unsigned grid = B * p.blocksPerHead;
    CK(cuLaunchKernel(fn, grid, 1, 1, one ? 256 : 128, 1, 1, 0, 0, args,
                      nullptr));
    CK(cuCtxSynchronize());
    if (c.timing) {
      CUevent e0, e1;
      CK(cuEventCreate(&e0, 0));
      CK(cuEventCreate(&e1, 0));
      static bool warmed = false;
      if (!warmed && getenv("WARM")) {
        warmed = true;
        for (int i = 0; i < 3000; ++i)
          CK(cuLaunchKernel(fn, grid, 1, 1, one ? 256 : 128, 1, 1, 0, 0, args,
                            nullptr));
        CK(cuCtxSynchronize());
      }
      CK(cuEventRecord(e0, 0));
      for (int i = 0; i < c.timing; ++i)
        CK(cuLaunchKernel(fn, grid, 1, 1, one ? 256 : 128, 1, 1, 0, 0, args,
                          nullptr));
      CK(cuEventRecord(e1, 0));
      CK(cuEventSynchronize(e1));
      float ms_;
      CK(cuEventElapsedTime(&ms_, e0, e1));
      double us = ms_ * 1000 / c.timing;
      double flops = 4.0 * B * c.sq * c.sk * D;
      printf("%-18s %s %8.2f us per call, %.1f TFLOP/s (2 products)\n", c.name,
             name.c_str(), us, flops / us / 1e6);
    }
    CK(cuMemcpyDtoH(o.data(), dout, o.size() * 2));
    // Reference (a subset of heads for the big cases)
    int64_t checkHeads = c.timing ? 3 : B;
    double maxErr = 0, maxRef = 0;
    int64_t exact = 0, total = 0, nanMismatch = 0;
    for (int64_t b = 0; b < checkHeads; ++b)
      for (int64_t i = 0; i < c.sq; ++i) {
        std::vector<float> s(c.sk);
        float mx = -INFINITY;
        for (int64_t j = 0; j < c.sk; ++j) {
          float acc = 0;
          for (int64_t dd = 0; dd < D; ++dd)
            acc += toF(Q[b * qs[1] + i * rq + dd]) * kAt(b, j, dd);
          float x = rnd(acc);
          for (int st = 0; st < 3; ++st) {
            if (c.steps[st] == 1)
              x = rnd(x * c.consts[st]);
            if (c.steps[st] == 2)
              x = rnd(x / c.consts[st]);
            if (c.steps[st] == 3)
              x = rnd(x + maskAt(b, i, j));
          }
          s[j] = x;
          mx = std::isnan(x) || std::isnan(mx) ? NAN : std::max(mx, x);
        }
        float sum = 0;
        for (int64_t j = 0; j < c.sk; ++j) {
          s[j] = expf(s[j] - mx);
          sum += s[j];
        }
        for (int64_t j = 0; j < c.sk; ++j)
          s[j] = rnd(s[j] / sum);
        for (int64_t dd = 0; dd < D; ++dd) {
          float acc = 0;
          for (int64_t j = 0; j < c.sk; ++j)
            acc += s[j] * toF(V[b * vs[1] + j * rq + dd]);
          float ref = rnd(acc);
          float got = toF(o[pad + b * qs[1] + i * rq + dd]);
          ++total;
          if (std::isnan(ref) || std::isnan(got)) {
            if (std::isnan(ref) != std::isnan(got))
              ++nanMismatch;
            else
              ++exact;
            continue;
          }
          exact += ref == got;
          maxErr = std::max(maxErr, (double)fabsf(ref - got));
          maxRef = std::max(maxRef, (double)fabsf(ref));
        }
      }
    double rel = maxErr / (maxRef > 0 ? maxRef : 1);
    bool ok = nanMismatch == 0 && rel < (c.bf16 ? 2e-2 : 4e-3);
    failures += !ok;
    printf("%-18s %s: max err %.3g of max |ref| %.3g (%.2e), exact %.1f%%, NaN "
           "mismatches %lld\n",
           c.name, ok ? "ok" : "FAIL", maxErr, maxRef, rel,
           100.0 * exact / total, (long long)nanMismatch);
    cuMemFree(dq);
    cuMemFree(dk);
    cuMemFree(dv);
    cuMemFree(dm);
    cuMemFree(dout);
  }
  printf("%d failures\n", failures);
  return failures != 0;
}
