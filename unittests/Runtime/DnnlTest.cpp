//===- DnnlTest.cpp - tide_rt_cpu_conv_f32 called directly ----------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// The oneDNN convolution and batched matmul of Tide's CPU runtime
// (lib/Runtime/Dnnl.c) on hand-made descriptors: results against direct
// loops (constant weights called twice: the second call reads the cached
// reordered weights; argument weights changed between the calls), and
// bad calls, which must print a clear error and exit with status 1 (never
// abort or crash).
//
//===----------------------------------------------------------------------===//

#include "tide/Runtime/RuntimeSymbols.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

namespace {

/// A ranked 4-D memref descriptor as MLIR passes it.
struct Desc4 {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes[4];
  int64_t strides[4];
};

Desc4 contiguous(std::vector<float> &data, int64_t n, int64_t c, int64_t h,
                 int64_t w) {
  data.assign(n * c * h * w, 0.0f);
  return Desc4{
      data.data(), data.data(), 0, {n, c, h, w}, {c * h * w, h * w, w, 1}};
}

void conv(Desc4 &x, Desc4 &w, Desc4 &y, int64_t groups, int64_t constant,
          int64_t pad, int64_t stride) {
  tide_rt_cpu_conv_f32(4, &x, 4, &w, 4, &y, groups, /*accumulate=*/0, constant,
                       /*threads=*/0, pad, pad, 0, pad, pad, 0, stride, stride,
                       1, 1, 1, 1);
}

/// Direct-loop checks of grouped, strided, padded convolutions; with
/// `constant` 0 the weights change between the two calls (reordered at
/// every call, never a stale cached copy).
void checkConvolution(int64_t constant) {
  const int64_t n = 2, c = 6, h = 7, wd = 9, f = 8, k = 3, groups = 2;
  const int64_t pad = 1, stride = 2;
  const int64_t oh = (h + 2 * pad - k) / stride + 1,
                ow = (wd + 2 * pad - k) / stride + 1;
  std::vector<float> xd, wdata, yd;
  Desc4 x = contiguous(xd, n, c, h, wd);
  Desc4 w = contiguous(wdata, f, c / groups, k, k);
  Desc4 y = contiguous(yd, n, f, oh, ow);
  for (size_t i = 0; i < xd.size(); ++i)
    xd[i] = std::sin(0.37f * i);
  for (size_t i = 0; i < wdata.size(); ++i)
    wdata[i] = std::cos(0.11f * i);
  for (int call = 0; call < 2; ++call) {
    if (call == 1 && !constant)
      for (size_t i = 0; i < wdata.size(); ++i)
        wdata[i] = std::sin(0.23f * i + 1.0f);
    std::fill(yd.begin(), yd.end(), 123.0f);
    conv(x, w, y, groups, constant, pad, stride);
    int64_t cg = c / groups, fg = f / groups;
    for (int64_t b = 0; b < n; ++b)
      for (int64_t o = 0; o < f; ++o)
        for (int64_t i = 0; i < oh; ++i)
          for (int64_t j = 0; j < ow; ++j) {
            double sum = 0;
            int64_t g = o / fg;
            for (int64_t ci = 0; ci < cg; ++ci)
              for (int64_t a = 0; a < k; ++a)
                for (int64_t e = 0; e < k; ++e) {
                  int64_t r = i * stride + a - pad, s = j * stride + e - pad;
                  if (r < 0 || r >= h || s < 0 || s >= wd)
                    continue;
                  sum += xd[((b * c + g * cg + ci) * h + r) * wd + s] *
                         wdata[((o * cg + ci) * k + a) * k + e];
                }
            EXPECT_NEAR(yd[((b * f + o) * oh + i) * ow + j], sum, 1e-4)
                << "call " << call << ", constant " << constant;
          }
  }
}

TEST(DnnlConv, MatchesDirectLoops) { checkConvolution(/*constant=*/1); }

TEST(DnnlConv, ArgumentWeightsMatchDirectLoops) {
  checkConvolution(/*constant=*/0);
}

/// A 3-D memref descriptor over `data` (batch stride 0: broadcast).
TideMemRef3D view3(std::vector<float> &data, int64_t batch, int64_t rows,
                   int64_t cols, int64_t batchStride, int64_t rowStride) {
  return TideMemRef3D{data.data(),
                      data.data(),
                      0,
                      {batch, rows, cols},
                      {batchStride, rowStride, 1}};
}

/// C[b] (+)= A[b] * B[b or 0] by oneDNN's batched matmul against loops:
/// a strided lhs (rows padded to 7), a broadcast or batched rhs, a batch of
/// one (the 2-D primitive), accumulating or not.
void checkBatchedMatmul(int64_t batch, bool broadcastB, bool accumulate,
                        int32_t constant) {
  const int64_t m = 5, k = 6, n = 4, lda = 7;
  std::vector<float> a(batch * m * lda), b((broadcastB ? 1 : batch) * k * n),
      c(batch * m * n);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = std::sin(0.3f * i);
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = std::cos(0.7f * i);
  for (size_t i = 0; i < c.size(); ++i)
    c[i] = 0.5f * i;
  std::vector<float> c0 = c;
  TideMemRef3D av = view3(a, batch, m, k, m * lda, lda),
               bv = view3(b, batch, k, n, broadcastB ? 0 : k * n, n),
               cv = view3(c, batch, m, n, m * n, n);
  _mlir_ciface_tide_rt_cpu_matmul_batched_f32(&av, &bv, &cv, accumulate,
                                              constant, /*threads=*/0);
  for (int64_t q = 0; q < batch; ++q)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = accumulate ? c0[(q * m + i) * n + j] : 0.0;
        for (int64_t l = 0; l < k; ++l)
          sum += a[q * m * lda + i * lda + l] *
                 b[(broadcastB ? 0 : q * k * n) + l * n + j];
        EXPECT_NEAR(c[(q * m + i) * n + j], sum, 1e-4)
            << "batch " << batch << " broadcast " << broadcastB
            << " accumulate " << accumulate << " at " << q << "," << i << ","
            << j;
      }
}

TEST(DnnlMatmul, BatchedMatchesLoops) {
  for (int64_t batch : {1, 3})
    for (bool broadcastB : {false, true})
      for (bool accumulate : {false, true})
        checkBatchedMatmul(batch, broadcastB, accumulate, /*constant=*/0);
  checkBatchedMatmul(3, /*broadcastB=*/true, /*accumulate=*/false,
                     /*constant=*/1);
}

TEST(DnnlMatmulDeathTest, InconsistentBatchedShapesAreAClearError) {
  std::vector<float> a(2 * 3 * 4), b(3 * 4 * 5), c(3 * 3 * 5);
  TideMemRef3D av = view3(a, 2, 3, 4, 12, 4), bv = view3(b, 3, 4, 5, 20, 5),
               cv = view3(c, 3, 3, 5, 15, 5);
  EXPECT_EXIT(
      _mlir_ciface_tide_rt_cpu_matmul_batched_f32(&av, &bv, &cv, 0, 0, 0),
      testing::ExitedWithCode(1),
      "tide runtime: error: tide_rt_cpu_matmul_batched_f32: "
      "inconsistent shapes");
}

/// y = relu?(conv(x, w) + b[f] + r) by direct loops (same-size 3x3, pad 1).
std::vector<double> reference(const std::vector<float> &x,
                              const std::vector<float> &w,
                              const std::vector<float> &b,
                              const std::vector<float> &r, bool relu, int64_t n,
                              int64_t c, int64_t f, int64_t h) {
  std::vector<double> y(n * f * h * h);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t o = 0; o < f; ++o)
      for (int64_t p = 0; p < h; ++p)
        for (int64_t q = 0; q < h; ++q) {
          double sum = 0;
          for (int64_t ci = 0; ci < c; ++ci)
            for (int64_t a = 0; a < 3; ++a)
              for (int64_t e = 0; e < 3; ++e) {
                int64_t s = p + a - 1, t = q + e - 1;
                if (s >= 0 && s < h && t >= 0 && t < h)
                  sum += x[((i * c + ci) * h + s) * h + t] *
                         w[((o * c + ci) * 3 + a) * 3 + e];
              }
          size_t at = ((i * f + o) * h + p) * h + q;
          if (!b.empty())
            sum += b[o];
          if (!r.empty())
            sum += r[at];
          y[at] = relu ? std::max(sum, 0.0) : sum;
        }
  return y;
}

/// The fused epilogue (tide_rt_cpu_conv_epilogue_f32): bias, residual and
/// ReLU in every combination, with the output written over the input
/// (ResNet's blocks reuse the input's buffer) or over the residual, in
/// oneDNN's blocked layouts and in plain ones (TIDE_DNNL_BLOCKED is read
/// once per process, so the plain case is a child process).
void checkEpilogues() {
  const int64_t n = 2, c = 8, h = 6;
  for (int flags = 1; flags < 8; ++flags)
    for (int where = 0; where < 3; ++where) { // y separate, y = x, y = r
      bool bias = flags & TIDE_RT_CONV_BIAS,
           residual = flags & TIDE_RT_CONV_RESIDUAL,
           relu = flags & TIDE_RT_CONV_RELU;
      if (where == 2 && !residual)
        continue;
      std::vector<float> xd, wd, bd(c), rd, yd;
      Desc4 x = contiguous(xd, n, c, h, h), w = contiguous(wd, c, c, 3, 3),
            r = contiguous(rd, n, c, h, h), y = contiguous(yd, n, c, h, h);
      Desc4 b{bd.data(), bd.data(), 0, {c, 1, 1, 1}, {1, 1, 1, 1}};
      for (size_t i = 0; i < xd.size(); ++i)
        xd[i] = std::sin(0.37f * i);
      for (size_t i = 0; i < wd.size(); ++i)
        wd[i] = 0.2f * std::cos(0.11f * i);
      for (size_t i = 0; i < bd.size(); ++i)
        bd[i] = 0.3f * std::sin(1.7f * i);
      for (size_t i = 0; i < rd.size(); ++i)
        rd[i] = std::cos(0.53f * i);
      std::vector<double> want =
          reference(xd, wd, bias ? bd : std::vector<float>(),
                    residual ? rd : std::vector<float>(), relu, n, c, c, h);
      Desc4 *out = where == 0 ? &y : where == 1 ? &x : &r;
      std::vector<float> &outData = where == 0 ? yd : where == 1 ? xd : rd;
      tide_rt_cpu_conv_epilogue_f32(
          4, &x, 4, &w, 4, out, /*groups=*/1, /*accumulate=*/0,
          /*constantWeights=*/1, /*threads=*/0, 1, 1, 0, 1, 1, 0, 1, 1, 1, 1, 1,
          1, 4, &b, 4, &r, flags);
      for (size_t i = 0; i < want.size(); ++i)
        ASSERT_NEAR(outData[i], want[i], 1e-4)
            << "flags " << flags << ", output " << where << ", element " << i;
    }
}

TEST(DnnlConv, FusedEpilogues) { checkEpilogues(); }

TEST(DnnlConvDeathTest, FusedEpiloguesPlainLayouts) {
  // A child process with TIDE_DNNL_BLOCKED=0; exits 0 when every case holds.
  EXPECT_EXIT(
      {
        setenv("TIDE_DNNL_BLOCKED", "0", 1);
        checkEpilogues();
        std::exit(testing::Test::HasFailure() ? 1 : 0);
      },
      testing::ExitedWithCode(0), "");
}

TEST(DnnlConvDeathTest, InconsistentShapesAreAClearError) {
  std::vector<float> xd, wdata, yd;
  Desc4 x = contiguous(xd, 1, 4, 5, 5);
  Desc4 w = contiguous(wdata, 8, 3, 3, 3); // 3 channels for a 4-channel input
  Desc4 y = contiguous(yd, 1, 8, 3, 3);
  EXPECT_EXIT(conv(x, w, y, 1, 0, 0, 1), testing::ExitedWithCode(1),
              "tide runtime: error: tide_rt_cpu_conv_f32: inconsistent shapes");
}

TEST(DnnlConvDeathTest, AShapeOneDnnRejectsIsAClearError) {
  std::vector<float> xd, wdata, yd;
  Desc4 x = contiguous(xd, 1, 4, 5, 5);
  Desc4 w = contiguous(wdata, 8, 4, 3, 3);
  Desc4 y = contiguous(yd, 1, 8, 7, 7); // a 3x3 window on 5x5 gives 3x3
  EXPECT_EXIT(conv(x, w, y, 1, 1, 0, 1), testing::ExitedWithCode(1),
              "tide runtime: error: tide_rt_cpu_conv_f32: oneDNN rejects this "
              "convolution");
}

} // namespace
