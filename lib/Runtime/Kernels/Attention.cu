//===- Attention.cu - Fused attention on tensor cores ---------------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// softmax(f(Q K^T)) V for f16/bf16 in one kernel, the score matrix kept in
// registers: what convert-linalg-to-gpu makes of a batched matmul, the
// elementwise scale and mask after it, a softmax over the keys and a
// batched matmul by V (lib/Conversion/LinalgToGPU/Attention.cpp). Compiled
// by clang's CUDA front end and LLVM's NVPTX back end into PTX that the
// runtime embeds and loads on first use (CudaAttention.cpp).
//
// It computes what those ops compute, rounding where they round: every
// score is rounded to the element type after the product (accumulated in
// f32, as the library GEMM does), after each step of `f` (a multiply or
// divide by a constant, an added mask; each in f32, then rounded), and
// after the softmax (max, exp(x - max) and their sum in f32, divided by the
// sum, as the GPU softmax does); P V accumulates in f32 and is rounded once.
// The order of the f32 sums differs, and so, by an ulp or two of f32 before
// P is rounded, do the exponentials (the hardware's ex2) and the division
// (a multiplication by the sum's reciprocal).
//
// A block of 4 warps owns 64 query rows of one (batch, head): each warp 16
// rows, as the A operand of mma.sync m16n8k16. Two passes over the keys in
// tiles of BN: the first finds each row's maximum and sum of exponentials
// (online, in registers, combined across the 4 lanes that share a row), the
// second recomputes the scores, forms P and multiplies it by V's tile. Q, K
// and V tiles go through shared memory by cp.async (rows padded by 16
// bytes, so that ldmatrix reads no bank twice; in one pass V's copy runs
// while the scores and the softmax are computed); K is read as [keys, d] or,
// when the program materialized K^T, as [d, keys].
//
//===----------------------------------------------------------------------===//

#include <stdint.h>

namespace {

/// Mirrors TideAttentionParams in CudaAttention.cpp.
struct Params {
  const uint16_t *q, *k, *v, *mask;
  uint16_t *o;
  /// Strides in elements of the two batch dims and the row dim (for k^T the
  /// d dim); the innermost stride is 1. The mask's are per (batch0, batch1,
  /// query, key), 0 where it broadcasts.
  int64_t qs[3], ks[3], vs[3], os[3], ms[4];
  int64_t batch1, sq, sk, blocksPerHead;
  /// The elementwise steps between Q K^T and the softmax, in order:
  /// 0 none, 1 multiply by the constant, 2 divide by it, 3 add the mask.
  int32_t steps[3];
  float constants[3];
  /// Whether every tile row starts 16-byte aligned; whether every mask row
  /// starts 4-byte aligned with a key stride of 1.
  int32_t vectors, maskPairs;
};

/// Query rows per block: 16 per warp of a key range.
constexpr int kBlockM = 64;

template <bool BF16>
__device__ inline float toFloat(uint16_t h) {
  if (BF16)
    return __uint_as_float(static_cast<uint32_t>(h) << 16);
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
}

template <bool BF16>
__device__ inline uint16_t fromFloat(float f) {
  uint16_t h;
  if (BF16)
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f));
  else
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
}

/// f rounded to the element type, as f32.
template <bool BF16>
__device__ inline float round(float f) {
  return toFloat<BF16>(fromFloat<BF16>(f));
}

/// Two values as the low and high halves of an mma operand register.
template <bool BF16>
__device__ inline uint32_t pack(float lo, float hi) {
  return static_cast<uint32_t>(fromFloat<BF16>(lo)) |
         (static_cast<uint32_t>(fromFloat<BF16>(hi)) << 16);
}

/// exp(x - m) as 2^(x log2(e) - m log2(e)): one fma and the hardware's
/// ex2 (2 ulp), where expf's range reduction takes a dozen instructions.
/// The result is rounded to bf16/f16 after the division by the sum, so it
/// almost never differs from the softmax op's; -inf, +inf and NaN go
/// through as expf's do.
__device__ inline float expDiff(float x, float m) {
  constexpr float kLog2e = 1.4426950408889634f;
  float y = __fmaf_rn(x, kLog2e, -m * kLog2e), r;
  asm("ex2.approx.f32 %0, %1;" : "=f"(r) : "f"(y));
  return r;
}

__device__ inline uint32_t sharedAddress(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ inline void ldmatrix(uint32_t (&r)[4], const uint16_t *p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, "
               "[%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(sharedAddress(p)));
}

__device__ inline void ldmatrixTrans(uint32_t (&r)[4], const uint16_t *p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, "
               "%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(sharedAddress(p)));
}

/// c += a b for a 16x16 A, a 16x8 B and a 16x8 f32 C.
template <bool BF16>
__device__ inline void mma(float (&c)[4], const uint32_t (&a)[4], uint32_t b0,
                           uint32_t b1) {
  if (BF16)
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%0, %1, %2, %3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0),
                   "r"(b1));
  else
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%0, %1, %2, %3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0),
                   "r"(b1));
}

/// Copies rows [row0, row0 + ROWS) x columns [col0, col0 + COLS) of the
/// row-major `src` (row stride `stride`) into `dst` (row stride LD), zeros
/// where a row is at or past `rows` or a column at or past `cols`. Whole
/// 16-byte chunks go by cp.async, all in flight at once: waitTiles() before
/// the barrier that publishes them.
template <int ROWS, int COLS, int LD, int THREADS>
__device__ inline void loadTile(uint16_t *dst, const uint16_t *src,
                                int64_t stride, int64_t row0, int64_t rows,
                                int64_t col0, int64_t cols, bool vectors) {
  constexpr int kChunks = ROWS * COLS / 8;
  static_assert(kChunks % THREADS == 0, "a tile splits over the threads");
#pragma unroll
  for (int j = 0; j < kChunks / THREADS; ++j) {
    int i = threadIdx.x + j * THREADS;
    int r = i / (COLS / 8), c = (i % (COLS / 8)) * 8;
    int64_t gr = row0 + r, gc = col0 + c;
    uint16_t *d = dst + r * LD + c;
    if (vectors && gr < rows && gc + 8 <= cols) {
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;"
                   :
                   : "r"(sharedAddress(d)), "l"(src + gr * stride + gc)
                   : "memory");
      continue;
    }
#pragma unroll
    for (int e = 0; e < 8; ++e)
      d[e] = gr < rows && gc + e < cols ? src[gr * stride + gc + e] : 0;
  }
}

__device__ inline void waitTiles() {
  asm volatile("cp.async.wait_all;" ::: "memory");
}

__device__ inline void commitTiles() {
  asm volatile("cp.async.commit_group;" ::: "memory");
}

/// Waits for all but the last group committed.
__device__ inline void waitTilesButOne() {
  asm volatile("cp.async.wait_group 1;" ::: "memory");
}

/// ONEPASS: every key (at most BN) in shared memory at once, and 8 warps:
/// warps w and w + 4 own the same 16 rows and each half of the keys; they
/// combine their maxima, sums and partial outputs through shared memory.
/// Else 4 warps, two passes over tiles of BN keys.
template <int D, int BN, bool KT, bool BF16, bool ONEPASS>
__device__ inline void attention(const Params &p) {
  constexpr int LD = D + 8, LDT = BN + 8;
  constexpr int kSplit = ONEPASS ? 2 : 1, kThreads = 128 * kSplit;
  // Keys per warp.
  constexpr int BW = BN / kSplit;
  __shared__ __align__(16) uint16_t sQ[kBlockM * LD];
  __shared__ __align__(16) uint16_t sK[KT ? D * LDT : BN * LD];
  __shared__ __align__(16) uint16_t sV[BN * LD];
  // In one pass, a mask the same for every query row (as [batch, 1, 1,
  // keys]): its keys, read from here instead of from global memory by every
  // warp (zeros past the last key).
  __shared__ __align__(4) uint16_t sM[ONEPASS ? BN : 2];

  const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4,
            half = threadIdx.x / 128, keyBase = half * BW;
  const int g = lane / 4, t = lane % 4;
  const int64_t head = blockIdx.x / p.blocksPerHead;
  const int64_t q0 = (blockIdx.x % p.blocksPerHead) * kBlockM;
  const int64_t b0 = head / p.batch1, b1 = head % p.batch1;
  const uint16_t *Q = p.q + b0 * p.qs[0] + b1 * p.qs[1];
  const uint16_t *K = p.k + b0 * p.ks[0] + b1 * p.ks[1];
  const uint16_t *V = p.v + b0 * p.vs[0] + b1 * p.vs[1];
  uint16_t *O = p.o + b0 * p.os[0] + b1 * p.os[1];
  const uint16_t *M = p.mask ? p.mask + b0 * p.ms[0] + b1 * p.ms[1] : nullptr;
  const bool vectors = p.vectors, maskPairs = p.maskPairs;
  const int64_t sq = p.sq, sk = p.sk, maskKeyStride = p.ms[3];
  const bool rowMask = ONEPASS && M && p.ms[2] == 0;
  int steps[3];
  float constants[3];
#pragma unroll
  for (int i = 0; i < 3; ++i) {
    steps[i] = p.steps[i];
    constants[i] = p.constants[i];
  }

  uint32_t qf[D / 16][4];

  // The rows of this thread's accumulator elements: g and g + 8 of the
  // warp's 16.
  const int64_t rows[2] = {q0 + warp * 16 + g, q0 + warp * 16 + g + 8};
  const uint16_t *maskRows[2] = {M ? M + rows[0] * p.ms[2] : nullptr,
                                 M ? M + rows[1] * p.ms[2] : nullptr};

  // Scores of one key tile, rounded and transformed as the program does.
  float s[BW / 8][4];
  auto scores = [&](int64_t key0) __attribute__((always_inline)) {
    // The mask's values for this thread's scores, as pairs of adjacent keys:
    // loaded first, so that their latency hides behind the products.
    uint32_t mv[BW / 8][2];
    if (rowMask) {
#pragma unroll
      for (int n = 0; n < BW / 8; ++n)
        mv[n][0] = mv[n][1] =
            *reinterpret_cast<const uint32_t *>(sM + keyBase + n * 8 + 2 * t);
    } else {
#pragma unroll
      for (int n = 0; n < BW / 8; ++n)
#pragma unroll
        for (int r = 0; r < 2; ++r) {
          int64_t key = key0 + keyBase + n * 8 + 2 * t;
          mv[n][r] = 0;
          if (!M || rows[r] >= sq || key >= sk)
            continue;
          const uint16_t *m = maskRows[r] + key * maskKeyStride;
          if (maskPairs && key + 1 < sk) {
            mv[n][r] = *reinterpret_cast<const uint32_t *>(m);
          } else {
            mv[n][r] = m[0];
            if (key + 1 < sk)
              mv[n][r] |= static_cast<uint32_t>(m[maskKeyStride]) << 16;
          }
        }
    }
#pragma unroll
    for (int n = 0; n < BW / 8; ++n)
#pragma unroll
      for (int e = 0; e < 4; ++e)
        s[n][e] = 0.0f;
#pragma unroll
    for (int ks = 0; ks < D / 16; ++ks)
#pragma unroll
      for (int n = 0; n < BW / 8; n += 2) {
        uint32_t b[4];
        int m = lane / 8, key = keyBase + n * 8 + (m >> 1) * 8;
        if (KT)
          ldmatrixTrans(b, sK + (ks * 16 + (m & 1) * 8 + lane % 8) * LDT + key);
        else
          ldmatrix(b, sK + (key + lane % 8) * LD + ks * 16 + (m & 1) * 8);
        mma<BF16>(s[n], qf[ks], b[0], b[1]);
        mma<BF16>(s[n + 1], qf[ks], b[2], b[3]);
      }
// One uniform branch per step, each over all of the tile's scores (a
// branch per score would unroll into more code than the instruction
// cache holds).
#pragma unroll
    for (int n = 0; n < BW / 8; ++n)
#pragma unroll
      for (int e = 0; e < 4; ++e)
        s[n][e] = round<BF16>(s[n][e]);
#pragma unroll 1
    for (int i = 0; i < 3; ++i) {
      const float c = constants[i];
      if (steps[i] == 1) {
#pragma unroll
        for (int n = 0; n < BW / 8; ++n)
#pragma unroll
          for (int e = 0; e < 4; ++e)
            s[n][e] = round<BF16>(s[n][e] * c);
      } else if (steps[i] == 2) {
#pragma unroll
        for (int n = 0; n < BW / 8; ++n)
#pragma unroll
          for (int e = 0; e < 4; ++e)
            s[n][e] = round<BF16>(__fdiv_rn(s[n][e], c));
      } else if (steps[i] == 3) {
#pragma unroll
        for (int n = 0; n < BW / 8; ++n)
#pragma unroll
          for (int e = 0; e < 4; ++e)
            s[n][e] =
                round<BF16>(s[n][e] + toFloat<BF16>(static_cast<uint16_t>(
                                          mv[n][e / 2] >> (16 * (e % 2)))));
      }
    }
  };
  auto loadK = [&](int64_t key0) __attribute__((always_inline)) {
    if (KT)
      loadTile<D, BN, LDT, kThreads>(sK, K, p.ks[2], 0, D, key0, sk, vectors);
    else
      loadTile<BN, D, LD, kThreads>(sK, K, p.ks[2], key0, sk, 0, D, vectors);
  };

  // Q's tile (and, in one pass, every key's K and V) in flight at once.
  loadTile<kBlockM, D, LD, kThreads>(sQ, Q, p.qs[2], q0, sq, 0, D, vectors);
  if (rowMask)
    for (int j = threadIdx.x; j < BN; j += kThreads)
      sM[j] = j < sk ? M[j * maskKeyStride] : 0;
  if constexpr (ONEPASS) {
    loadK(0);
    // V in a group of its own, waited for only before P V: its copy runs
    // while the scores and the softmax are computed.
    commitTiles();
    loadTile<BN, D, LD, kThreads>(sV, V, p.vs[2], 0, sk, 0, D, vectors);
    commitTiles();
    waitTilesButOne();
  } else {
    waitTiles();
  }
  __syncthreads();
#pragma unroll
  for (int ks = 0; ks < D / 16; ++ks)
    ldmatrix(qf[ks],
             sQ + (warp * 16 + lane % 16) * LD + ks * 16 + (lane / 16) * 8);

  constexpr float kInf = __builtin_huge_valf();
  float mx[2] = {-kInf, -kInf}, total[2];
  if constexpr (ONEPASS) {
    // Every key in one tile: the exact maximum first, then the sum.
    scores(0);
    float sum[2] = {0.0f, 0.0f};
    // Per row and half of the keys: the maximum, then the sum.
    __shared__ float sRed[2][kSplit][kBlockM];
    const int local[2] = {warp * 16 + g, warp * 16 + g + 8};
#pragma unroll
    for (int n = 0; n < BW / 8; ++n)
#pragma unroll
      for (int e = 0; e < 4; ++e)
        if (keyBase + n * 8 + 2 * t + e % 2 < sk)
          mx[e / 2] = fmaxf(mx[e / 2], s[n][e]);
#pragma unroll
    for (int r = 0; r < 2; ++r) {
#pragma unroll
      for (int offset = 1; offset < 4; offset <<= 1)
        mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], offset));
      if (t == 0)
        sRed[0][half][local[r]] = mx[r];
    }
    __syncthreads();
#pragma unroll
    for (int r = 0; r < 2; ++r)
#pragma unroll
      for (int h = 0; h < kSplit; ++h)
        mx[r] = fmaxf(mx[r], sRed[0][h][local[r]]);
#pragma unroll
    for (int n = 0; n < BW / 8; ++n)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        s[n][e] = keyBase + n * 8 + 2 * t + e % 2 < sk
                      ? expDiff(s[n][e], mx[e / 2])
                      : 0.0f;
        sum[e / 2] += s[n][e];
      }
#pragma unroll
    for (int r = 0; r < 2; ++r) {
#pragma unroll
      for (int offset = 1; offset < 4; offset <<= 1)
        sum[r] += __shfl_xor_sync(0xffffffffu, sum[r], offset);
      if (t == 0)
        sRed[1][half][local[r]] = sum[r];
    }
    // V's tile, published by this barrier.
    waitTiles();
    __syncthreads();
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      sum[r] = 0.0f;
#pragma unroll
      for (int h = 0; h < kSplit; ++h)
        sum[r] += sRed[1][h][local[r]];
      total[r] = sum[r];
    }
  } else {
    // Pass 1: each row's maximum and sum of exponentials, online.
    float sum[2] = {0.0f, 0.0f};
    for (int64_t key0 = 0; key0 < sk; key0 += BN) {
      __syncthreads();
      loadK(key0);
      waitTiles();
      __syncthreads();
      scores(key0);
#pragma unroll
      for (int n = 0; n < BW / 8; ++n)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          if (key0 + n * 8 + 2 * t + e % 2 >= sk)
            continue;
          float x = s[n][e];
          float &m = mx[e / 2], &l = sum[e / 2];
          if (x > m) {
            l = l * expDiff(m, x) + 1.0f;
            m = x;
          } else if (x != -kInf) {
            l += expDiff(x, m);
          }
        }
    }
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float m = mx[r];
#pragma unroll
      for (int offset = 1; offset < 4; offset <<= 1)
        m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, offset));
      float l = mx[r] == -kInf
                    ? 0.0f
                    : sum[r] * (mx[r] == m ? 1.0f : expDiff(mx[r], m));
      if (sum[r] != sum[r])
        l = sum[r];
#pragma unroll
      for (int offset = 1; offset < 4; offset <<= 1)
        l += __shfl_xor_sync(0xffffffffu, l, offset);
      // A row of -inf: exp(-inf - -inf) is NaN in every element, as the
      // softmax gives.
      // A maximum of +inf: exp(inf - inf) is NaN, so is the sum.
      if (m == -kInf || m == kInf)
        l = __builtin_nanf("");
      mx[r] = m;
      total[r] = l;
    }
  }

  // P = round(exp(s - max) / sum), O += P V (pass 2 when streaming).
  float o[D / 8][4];
#pragma unroll
  for (int n = 0; n < D / 8; ++n)
#pragma unroll
    for (int e = 0; e < 4; ++e)
      o[n][e] = 0.0f;
  for (int64_t key0 = 0; key0 < sk; key0 += BN) {
    if constexpr (!ONEPASS) {
      __syncthreads();
      loadK(key0);
      loadTile<BN, D, LD, kThreads>(sV, V, p.vs[2], key0, sk, 0, D, vectors);
      waitTiles();
      __syncthreads();
      scores(key0);
    }
    // A multiplication by the reciprocal of the sum (an ulp of f32 from the
    // division, before the rounding to bf16/f16).
    const float inv[2] = {1.0f / total[0], 1.0f / total[1]};
#pragma unroll
    for (int n = 0; n < BW / 8; ++n)
#pragma unroll
      for (int e = 0; e < 4; ++e)
        s[n][e] = ONEPASS ? s[n][e] * inv[e / 2]
                  : key0 + n * 8 + 2 * t + e % 2 < sk
                      ? expDiff(s[n][e], mx[e / 2]) * inv[e / 2]
                      : 0.0f;
#pragma unroll
    for (int kk = 0; kk < BW / 16; ++kk) {
      uint32_t a[4] = {pack<BF16>(s[2 * kk][0], s[2 * kk][1]),
                       pack<BF16>(s[2 * kk][2], s[2 * kk][3]),
                       pack<BF16>(s[2 * kk + 1][0], s[2 * kk + 1][1]),
                       pack<BF16>(s[2 * kk + 1][2], s[2 * kk + 1][3])};
#pragma unroll
      for (int n = 0; n < D / 8; n += 2) {
        uint32_t b[4];
        int m = lane / 8;
        ldmatrixTrans(b, sV +
                             (keyBase + kk * 16 + (m & 1) * 8 + lane % 8) * LD +
                             n * 8 + (m >> 1) * 8);
        mma<BF16>(o[n], a, b[0], b[1]);
        mma<BF16>(o[n + 1], a, b[2], b[3]);
      }
    }
  }

  if constexpr (kSplit == 2) {
    // The second half's partial outputs, through K's tile (no warp reads K
    // after the barriers above): [row group][element][lane] in f32.
    static_assert(sizeof(sK) >= 4 * D / 2 * 32 * sizeof(float),
                  "the partial outputs fit in K's tile");
    float *partial = reinterpret_cast<float *>(sK);
    if (half == 1) {
#pragma unroll
      for (int n = 0; n < D / 8; ++n)
#pragma unroll
        for (int e = 0; e < 4; ++e)
          partial[((warp * (D / 2)) + n * 4 + e) * 32 + lane] = o[n][e];
    }
    __syncthreads();
    if (half == 1)
      return;
#pragma unroll
    for (int n = 0; n < D / 8; ++n)
#pragma unroll
      for (int e = 0; e < 4; ++e)
        o[n][e] += partial[((warp * (D / 2)) + n * 4 + e) * 32 + lane];
  }

#pragma unroll
  for (int n = 0; n < D / 8; ++n)
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      if (rows[r] >= sq)
        continue;
      uint32_t packed = pack<BF16>(o[n][2 * r], o[n][2 * r + 1]);
      uint16_t *dst = O + rows[r] * p.os[2] + n * 8 + 2 * t;
      if (vectors) {
        *reinterpret_cast<uint32_t *>(dst) = packed;
      } else {
        dst[0] = static_cast<uint16_t>(packed);
        dst[1] = static_cast<uint16_t>(packed >> 16);
      }
    }
}

} // namespace

// One entry point per (head dim, key layout, element type, pass count): the
// runtime looks them up by name. One pass holds every key of a row (at most
// BN) in registers; two passes stream any number of keys.
// One pass: at most 80 registers a thread, so three blocks share an SM (124
// registers allowed two: BERT-base at batch 32 went from 37.4 to 33.6 us).
#define TIDE_ATTENTION(D, BN, KT, BF16, ONEPASS, name)                         \
  extern "C" __global__ void __launch_bounds__(ONEPASS ? 256 : 128,            \
                                               ONEPASS ? 3 : 1)                \
      name(__grid_constant__ const Params p) {                                 \
    attention<D, BN, KT, BF16, ONEPASS>(p);                                    \
  }
#define TIDE_ATTENTION_TYPES(D, BN, KT, ONEPASS, suffix)                       \
  TIDE_ATTENTION(D, BN, KT, true, ONEPASS, tide_attention_bf16_##suffix)       \
  TIDE_ATTENTION(D, BN, KT, false, ONEPASS, tide_attention_f16_##suffix)

// K as [keys, d] (a head split the compiler can write) or as K^T [d, keys]
// (what the program materialized).
#define TIDE_ATTENTION_LAYOUTS(D, BN, ONEPASS, suffix)                         \
  TIDE_ATTENTION_TYPES(D, BN, false, ONEPASS, suffix)                          \
  TIDE_ATTENTION_TYPES(D, BN, true, ONEPASS, suffix##_kt)

TIDE_ATTENTION_LAYOUTS(32, 128, true, d32_k128)
TIDE_ATTENTION_LAYOUTS(32, 64, false, d32)
TIDE_ATTENTION_LAYOUTS(64, 128, true, d64_k128)
TIDE_ATTENTION_LAYOUTS(64, 64, false, d64)
TIDE_ATTENTION_LAYOUTS(128, 32, false, d128)
