//===- CudaBlas.cpp - GEMM through cuBLAS, opened at first use ------------===//
//
// Part of the Tide project.
//
// The _mlir_ciface_tide_rt_gpu_gemm_* functions of RuntimeSymbols.h: GEMMs
// on device buffers, queued on the calling thread's stream. cuBLAS is opened
// with dlopen at the first GEMM, so modules without one never need it.
//
//===----------------------------------------------------------------------===//

#include "CudaInternal.h"
#include "tide/Runtime/CudaRuntime.h"
#include "tide/Runtime/RuntimeSymbols.h"

#include <algorithm>
#include <cstdlib>
#include <dlfcn.h>
#include <initializer_list>
#include <limits>
#include <vector>

using namespace tide::cudart;

namespace {

enum CublasOp { kNoTranspose = 0, kTranspose = 1 };
enum CudaDataType { kR16F = 2, kR32F = 0, kR64F = 1, kR16BF = 14 };
enum CublasComputeType { kCompute32F = 68, kCompute64F = 70 };

struct Cublas {
  void *handle = nullptr; // the library
  void *blas = nullptr;   // cublasHandle_t
  /// The handle is shared: its stream is set and the GEMM queued under this
  /// lock, so each thread's GEMM goes to that thread's stream.
  std::mutex calls;
  std::string unavailable;
  int (*create)(void **) = nullptr;
  int (*setStream)(void *, CUstream) = nullptr;
  int (*sgemm)(void *, int, int, int, int, int, const float *, const float *,
               int, const float *, int, const float *, float *, int) = nullptr;
  int (*dgemm)(void *, int, int, int, int, int, const double *, const double *,
               int, const double *, int, const double *, double *,
               int) = nullptr;
  int (*gemmEx)(void *, int, int, int, int, int, const void *, const void *,
                int, int, const void *, int, int, const void *, void *, int,
                int, int, int) = nullptr;
  int (*gemmStridedBatchedEx)(void *, int, int, int, int, int, const void *,
                              const void *, int, int, long long, const void *,
                              int, int, long long, const void *, void *, int,
                              int, long long, int, int, int) = nullptr;
};

Cublas &cublas(Driver &d) {
  static Cublas *instance = nullptr;
  Lock lock(mutex);
  if (instance)
    return *instance;
  instance = new Cublas();
  Cublas &c = *instance;
  std::vector<std::string> candidates;
  if (const char *env = std::getenv("TIDE_CUBLAS"); env && *env)
    candidates.push_back(env);
  for (const char *name : {"libcublas.so.13", "libcublas.so.12", "libcublas.so",
                           "/usr/local/cuda/lib64/libcublas.so.13",
                           "/usr/local/cuda/lib64/libcublas.so.12"})
    candidates.push_back(name);
  for (const std::string &name : candidates)
    if ((c.handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)))
      break;
  if (!c.handle) {
    c.unavailable = "cuBLAS (libcublas.so.13 or .12) was not found; put its "
                    "directory on LD_LIBRARY_PATH or name the file in "
                    "TIDE_CUBLAS";
    return c;
  }
  c.create =
      reinterpret_cast<decltype(c.create)>(dlsym(c.handle, "cublasCreate_v2"));
  c.setStream = reinterpret_cast<decltype(c.setStream)>(
      dlsym(c.handle, "cublasSetStream_v2"));
  c.sgemm =
      reinterpret_cast<decltype(c.sgemm)>(dlsym(c.handle, "cublasSgemm_v2"));
  c.dgemm =
      reinterpret_cast<decltype(c.dgemm)>(dlsym(c.handle, "cublasDgemm_v2"));
  c.gemmEx =
      reinterpret_cast<decltype(c.gemmEx)>(dlsym(c.handle, "cublasGemmEx"));
  c.gemmStridedBatchedEx = reinterpret_cast<decltype(c.gemmStridedBatchedEx)>(
      dlsym(c.handle, "cublasGemmStridedBatchedEx"));
  if (!c.create || !c.setStream || !c.sgemm || !c.dgemm || !c.gemmEx ||
      !c.gemmStridedBatchedEx) {
    c.unavailable = "the cuBLAS library found lacks cublasCreate_v2, "
                    "cublasSgemm_v2, cublasDgemm_v2, cublasGemmEx or "
                    "cublasGemmStridedBatchedEx";
    return c;
  }
  int status = c.create(&c.blas);
  if (status != 0) {
    c.unavailable = "cublasCreate failed with status " + std::to_string(status);
    return c;
  }
  return c;
}

/// A GEMM operand as cuBLAS sees it: rows x cols, the row stride, and the
/// batch count (0 for none).
struct GemmOperand {
  int64_t rows, cols, rowStride, batch;
};

/// cuBLAS takes 32-bit sizes and distinct rows (a leading dimension at
/// least the row length): anything else is reported, not run.
void checkGemmOperands(const char *what,
                       std::initializer_list<GemmOperand> operands) {
  const int64_t limit = std::numeric_limits<int>::max();
  for (const GemmOperand &o : operands) {
    for (int64_t v : {o.rows, o.cols, o.rowStride, o.batch})
      if (v > limit)
        fatal(std::string(what) + ": a size or stride of " + std::to_string(v) +
              " exceeds cuBLAS's 32-bit limit");
    if (o.rows > 1 && o.rowStride < o.cols)
      fatal(std::string(what) + ": an operand's rows overlap (row stride " +
            std::to_string(o.rowStride) + " < row length " +
            std::to_string(o.cols) + "), which cuBLAS cannot read");
  }
}

size_t elementSize(int type) {
  return type == kR64F ? 8 : type == kR32F ? 4 : 2;
}

const char *elementName(int type) {
  return type == kR64F   ? "f64"
         : type == kR32F ? "f32"
         : type == kR16F ? "f16"
                         : "bf16";
}

/// C += A * B, row-major, as the column-major C^T += B^T * A^T. B may be
/// column-major instead (a transposed view: unit stride between rows), read
/// transposed.
void gemm(TideMemRef2D *a, TideMemRef2D *b, TideMemRef2D *c, int32_t accumulate,
          int type) {
  Driver &d = ready("running a GPU matmul");
  Cublas &cb = cublas(d);
  if (!cb.unavailable.empty())
    fatal("running a GPU matmul: " + cb.unavailable);
  int64_t m = c->sizes[0], n = c->sizes[1], k = a->sizes[1];
  if (m == 0 || n == 0)
    return;
  // Column-major B: as cuBLAS sees it, the K x N matrix stored with leading
  // dimension strides[1], which op T turns into the B^T it wants.
  bool columnMajorB = b->strides[1] != 1 && b->sizes[1] > 1;
  if (columnMajorB && b->strides[0] != 1 && b->sizes[0] > 1)
    fatal("a GPU matmul's right-hand operand has no unit stride (strides " +
          std::to_string(b->strides[0]) + ", " + std::to_string(b->strides[1]) +
          "), which cuBLAS cannot read");
  checkGemmOperands(
      "a GPU matmul",
      {{a->sizes[0], a->sizes[1], a->strides[0], 0},
       columnMajorB ? GemmOperand{b->sizes[1], b->sizes[0], b->strides[1], 0}
                    : GemmOperand{b->sizes[0], b->sizes[1], b->strides[0], 0},
       {c->sizes[0], c->sizes[1], c->strides[0], 0}});
  size_t size = elementSize(type);
  auto ptr = [&](TideMemRef2D *x) {
    return static_cast<char *>(x->aligned) + x->offset * size;
  };
  // Leading dimensions of 1-row (or 1-column) operands may be anything.
  auto ld = [](TideMemRef2D *x) {
    return static_cast<int>(
        std::max<int64_t>(x->strides[0], std::max<int64_t>(x->sizes[1], 1)));
  };
  int opB = columnMajorB ? kTranspose : kNoTranspose;
  int ldb = columnMajorB ? static_cast<int>(std::max<int64_t>(
                               b->strides[1], std::max<int64_t>(k, 1)))
                         : ld(b);
  std::string name = std::string("gemm ") + elementName(type) + " " +
                     std::to_string(m) + "x" + std::to_string(n) + "x" +
                     std::to_string(k) + (columnMajorB ? " (B^T)" : "");
  int status = 0;
  // On the calling thread's stream, after the kernels queued there.
  CUstream stream = static_cast<CUstream>(mgpuStreamCreate());
  std::lock_guard<std::mutex> serial(cb.calls);
  cb.setStream(cb.blas, stream);
  timed(d, stream, name, 2.0 * m * n * k, [&] {
    const double one = 1.0, beta = accumulate ? 1.0 : 0.0;
    const float onef = 1.0f, betaf = accumulate ? 1.0f : 0.0f;
    if (type == kR64F) {
      status = cb.dgemm(cb.blas, opB, kNoTranspose, n, m, k, &one,
                        reinterpret_cast<double *>(ptr(b)), ldb,
                        reinterpret_cast<double *>(ptr(a)), ld(a), &beta,
                        reinterpret_cast<double *>(ptr(c)), ld(c));
    } else if (type == kR32F) {
      status = cb.sgemm(cb.blas, opB, kNoTranspose, n, m, k, &onef,
                        reinterpret_cast<float *>(ptr(b)), ldb,
                        reinterpret_cast<float *>(ptr(a)), ld(a), &betaf,
                        reinterpret_cast<float *>(ptr(c)), ld(c));
    } else {
      // f16/bf16 inputs and output, accumulated in f32 (default algorithm).
      status = cb.gemmEx(cb.blas, opB, kNoTranspose, n, m, k, &onef, ptr(b),
                         type, ldb, ptr(a), type, ld(a), &betaf, ptr(c), type,
                         ld(c), kCompute32F, -1);
    }
  });
  if (status != 0)
    fatal(name + ": cuBLAS returned status " + std::to_string(status));
}

/// For each batch b: C[b] (+)= A[b] * B[b], as one strided batched cuBLAS
/// call (row-major, as the column-major C^T = B^T * A^T).
void gemmBatched(TideMemRef3D *a, TideMemRef3D *b, TideMemRef3D *c,
                 int32_t accumulate, int type) {
  Driver &d = ready("running a GPU batched matmul");
  Cublas &cb = cublas(d);
  if (!cb.unavailable.empty())
    fatal("running a GPU batched matmul: " + cb.unavailable);
  int64_t batch = c->sizes[0], m = c->sizes[1], n = c->sizes[2],
          k = a->sizes[2];
  if (batch == 0 || m == 0 || n == 0)
    return;
  checkGemmOperands("a GPU batched matmul",
                    {{a->sizes[1], a->sizes[2], a->strides[1], batch},
                     {b->sizes[1], b->sizes[2], b->strides[1], batch},
                     {c->sizes[1], c->sizes[2], c->strides[1], batch}});
  size_t size = elementSize(type);
  auto ptr = [&](TideMemRef3D *x) {
    return static_cast<char *>(x->aligned) + x->offset * size;
  };
  auto ld = [](TideMemRef3D *x) {
    return static_cast<int>(
        std::max<int64_t>(x->strides[1], std::max<int64_t>(x->sizes[2], 1)));
  };
  std::string name = std::string("batched gemm ") + elementName(type) + " " +
                     std::to_string(batch) + "x" + std::to_string(m) + "x" +
                     std::to_string(n) + "x" + std::to_string(k);
  int status = 0;
  CUstream stream = static_cast<CUstream>(mgpuStreamCreate());
  std::lock_guard<std::mutex> serial(cb.calls);
  cb.setStream(cb.blas, stream);
  timed(d, stream, name, 2.0 * batch * m * n * k, [&] {
    const double one = 1.0, beta = accumulate ? 1.0 : 0.0;
    const float onef = 1.0f, betaf = accumulate ? 1.0f : 0.0f;
    bool f64 = type == kR64F;
    const void *alpha = f64 ? static_cast<const void *>(&one) : &onef;
    const void *betaPtr = f64 ? static_cast<const void *>(&beta) : &betaf;
    status = cb.gemmStridedBatchedEx(
        cb.blas, kNoTranspose, kNoTranspose, n, m, k, alpha, ptr(b), type,
        ld(b), b->strides[0], ptr(a), type, ld(a), a->strides[0], betaPtr,
        ptr(c), type, ld(c), c->strides[0], static_cast<int>(batch),
        f64 ? kCompute64F : kCompute32F, -1);
  });
  if (status != 0)
    fatal(name + ": cuBLAS returned status " + std::to_string(status));
}

} // namespace

std::string tide::cudart::cublasUnavailable(Driver &d) {
  return cublas(d).unavailable;
}

extern "C" void _mlir_ciface_tide_rt_gpu_gemm_batched_f16(TideMemRef3D *a,
                                                          TideMemRef3D *b,
                                                          TideMemRef3D *c,
                                                          int32_t accumulate) {
  gemmBatched(a, b, c, accumulate, kR16F);
}
extern "C" void _mlir_ciface_tide_rt_gpu_gemm_batched_bf16(TideMemRef3D *a,
                                                           TideMemRef3D *b,
                                                           TideMemRef3D *c,
                                                           int32_t accumulate) {
  gemmBatched(a, b, c, accumulate, kR16BF);
}
extern "C" void _mlir_ciface_tide_rt_gpu_gemm_batched_f32(TideMemRef3D *a,
                                                          TideMemRef3D *b,
                                                          TideMemRef3D *c,
                                                          int32_t accumulate) {
  gemmBatched(a, b, c, accumulate, kR32F);
}
extern "C" void _mlir_ciface_tide_rt_gpu_gemm_batched_f64(TideMemRef3D *a,
                                                          TideMemRef3D *b,
                                                          TideMemRef3D *c,
                                                          int32_t accumulate) {
  gemmBatched(a, b, c, accumulate, kR64F);
}

extern "C" void _mlir_ciface_tide_rt_gpu_gemm_f16(TideMemRef2D *a,
                                                  TideMemRef2D *b,
                                                  TideMemRef2D *c,
                                                  int32_t accumulate) {
  gemm(a, b, c, accumulate, kR16F);
}
extern "C" void _mlir_ciface_tide_rt_gpu_gemm_bf16(TideMemRef2D *a,
                                                   TideMemRef2D *b,
                                                   TideMemRef2D *c,
                                                   int32_t accumulate) {
  gemm(a, b, c, accumulate, kR16BF);
}
extern "C" void _mlir_ciface_tide_rt_gpu_gemm_f32(TideMemRef2D *a,
                                                  TideMemRef2D *b,
                                                  TideMemRef2D *c,
                                                  int32_t accumulate) {
  gemm(a, b, c, accumulate, kR32F);
}
extern "C" void _mlir_ciface_tide_rt_gpu_gemm_f64(TideMemRef2D *a,
                                                  TideMemRef2D *b,
                                                  TideMemRef2D *c,
                                                  int32_t accumulate) {
  gemm(a, b, c, accumulate, kR64F);
}
