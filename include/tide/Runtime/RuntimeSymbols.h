/*===- RuntimeSymbols.h - C symbols of Tide's runtime --------------*- C -*-===*\
|*                                                                            *|
|* Part of the Tide project.                                                  *|
|*                                                                            *|
|* The one list of the functions compiled modules call, shared by the         *|
|* lowering (which emits calls by these names) and the runtime (which         *|
|* defines them), so the two cannot drift. Plain C: no LLVM or MLIR.          *|
\*===----------------------------------------------------------------------===*/

#ifndef TIDE_RUNTIME_RUNTIMESYMBOLS_H
#define TIDE_RUNTIME_RUNTIMESYMBOLS_H

#include <stdint.h>

/* Names as the lowering emits them (func.call targets with
 * llvm.emit_c_interface, so the C symbols carry the _mlir_ciface_ prefix). */
#define TIDE_RT_GEMM_F32 "tide_rt_gemm_f32"
#define TIDE_RT_GEMM_F64 "tide_rt_gemm_f64"
/* GPU GEMM through cuBLAS (libTideCudaRuntime.so). */
#define TIDE_RT_GPU_GEMM_PREFIX "tide_rt_gpu_gemm_"
#define TIDE_RT_GPU_GEMM_F16 "tide_rt_gpu_gemm_f16"
#define TIDE_RT_GPU_GEMM_BF16 "tide_rt_gpu_gemm_bf16"
#define TIDE_RT_GPU_GEMM_F32 "tide_rt_gpu_gemm_f32"
#define TIDE_RT_GPU_GEMM_F64 "tide_rt_gpu_gemm_f64"
/* GPU convolution through cuDNN (libTideCudaRuntime.so); no C interface
 * wrapper: the memrefs are unranked, passed as (rank, descriptor) pairs. */
#define TIDE_RT_GPU_CONV_PREFIX "tide_rt_gpu_conv_"
/* Fused attention, softmax(f(Q K^T)) V, on f16/bf16 (CudaAttention.cpp;
 * unranked memrefs as (rank, descriptor) pairs, like the convolution). */
#define TIDE_RT_GPU_ATTENTION_PREFIX "tide_rt_gpu_attention_"
/* The one chip its kernels are built for (lib/Runtime/CMakeLists.txt). */
#define TIDE_RT_GPU_ATTENTION_CHIP "sm_90"
/* Host convolution and matmul through oneDNN (Dnnl.c; modules that call them
 * link -ldnnl). The convolution has no C interface wrapper: its memrefs are
 * unranked, passed as (rank, descriptor) pairs. */
#define TIDE_RT_CPU_CONV_F32 "tide_rt_cpu_conv_f32"
/* The same with a fused epilogue (bias, residual, ReLU: the flags below). */
#define TIDE_RT_CPU_CONV_EPILOGUE_F32 "tide_rt_cpu_conv_epilogue_f32"
#define TIDE_RT_CPU_MATMUL_F32 "tide_rt_cpu_matmul_f32"
#define TIDE_RT_CPU_MATMUL_BATCHED_F32 "tide_rt_cpu_matmul_batched_f32"
/* Copy of a compiled module's constant into GPU memory (libTideCudaRuntime.so).
 */
#define TIDE_RT_GPU_COPY_CONSTANT "tide_rt_gpu_copy_constant"
#define TIDE_RT_GPU_CONSTANT "tide_rt_gpu_constant"

#ifdef __cplusplus
extern "C" {
#endif

/* A 2-D strided memref descriptor as MLIR passes it. */
typedef struct {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes[2];
  int64_t strides[2];
} TideMemRef2D;

/* C = A * B (accumulate = 0: C is not read) or C += A * B (accumulate != 0)
 * for row-major (unit inner stride) A[M,K], B[K,N], C[M,N], on the host,
 * through the system BLAS (OpenBLAS). */
void _mlir_ciface_tide_rt_gemm_f32(TideMemRef2D *a, TideMemRef2D *b,
                                   TideMemRef2D *c, int32_t accumulate);
void _mlir_ciface_tide_rt_gemm_f64(TideMemRef2D *a, TideMemRef2D *b,
                                   TideMemRef2D *c, int32_t accumulate);

/* C = A * B (accumulate = 0) or C += A * B (accumulate != 0) on the GPU
 * (device pointers, row-major, unit inner strides) through cuBLAS, on the
 * calling thread's stream, after the work already queued there. */
void _mlir_ciface_tide_rt_gpu_gemm_f16(TideMemRef2D *a, TideMemRef2D *b,
                                       TideMemRef2D *c, int32_t accumulate);
void _mlir_ciface_tide_rt_gpu_gemm_bf16(TideMemRef2D *a, TideMemRef2D *b,
                                        TideMemRef2D *c, int32_t accumulate);
void _mlir_ciface_tide_rt_gpu_gemm_f32(TideMemRef2D *a, TideMemRef2D *b,
                                       TideMemRef2D *c, int32_t accumulate);
void _mlir_ciface_tide_rt_gpu_gemm_f64(TideMemRef2D *a, TideMemRef2D *b,
                                       TideMemRef2D *c, int32_t accumulate);

/* A 3-D strided memref descriptor: (batch, rows, cols). */
typedef struct {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes[3];
  int64_t strides[3];
} TideMemRef3D;

/* For each b < batch: C[b] = A[b] * B[b] (accumulate = 0) or C[b] += A[b] *
 * B[b], on the GPU through cuBLAS's strided batched GEMM (a batch stride of 0
 * broadcasts an operand), on the calling thread's stream. */
void _mlir_ciface_tide_rt_gpu_gemm_batched_f16(TideMemRef3D *a, TideMemRef3D *b,
                                               TideMemRef3D *c, int32_t accumulate);
void _mlir_ciface_tide_rt_gpu_gemm_batched_bf16(TideMemRef3D *a, TideMemRef3D *b,
                                                TideMemRef3D *c, int32_t accumulate);
void _mlir_ciface_tide_rt_gpu_gemm_batched_f32(TideMemRef3D *a, TideMemRef3D *b,
                                               TideMemRef3D *c, int32_t accumulate);
void _mlir_ciface_tide_rt_gpu_gemm_batched_f64(TideMemRef3D *a, TideMemRef3D *b,
                                               TideMemRef3D *c, int32_t accumulate);

/* y = conv(x, w) (accumulate = 0) or y += conv(x, w) on the host through
 * oneDNN: x [N, C, D1..Dk], w [F, C/groups, K1..Kk], y [N, F, O1..Ok], k =
 * 1..3, f32, any strides; cross-correlation with zero padding padL_i before
 * and padR_i after, stride_i and dilation_i (1: dense) per spatial dim
 * (entries past k are ignored). constantWeights != 0 promises that w's
 * buffer holds the same values at every call (a module constant): its
 * reordering into oneDNN's preferred layout is then done once and kept.
 * threads: the module's --cpu-threads (0: none); the library runs on
 * tide_rt_cpu_team_size's thread count. Errors print a message and exit with
 * status 1. */
#define TIDE_RT_CPU_CONV_ARGS                                                  \
  int64_t xRank, void *xDesc, int64_t wRank, void *wDesc, int64_t yRank,       \
      void *yDesc, int64_t groups, int64_t accumulate,                         \
      int64_t constantWeights, int64_t threads, int64_t pad0, int64_t pad1,    \
      int64_t pad2, int64_t padR0, int64_t padR1, int64_t padR2,               \
      int64_t stride0, int64_t stride1, int64_t stride2, int64_t dilation0,    \
      int64_t dilation1, int64_t dilation2
void tide_rt_cpu_conv_f32(TIDE_RT_CPU_CONV_ARGS);

/* y = conv(x, w) + bias[f] (TIDE_RT_CONV_BIAS; b: (F, 1, ...), any strides)
 * + r (TIDE_RT_CONV_RESIDUAL; r: y's shape, any strides, may be y itself),
 * then max(0, .) (TIDE_RT_CONV_RELU), in that order, as one oneDNN primitive
 * (bias and post-ops); never accumulating. Absent operands are passed as any
 * buffer and ignored. */
enum {
  TIDE_RT_CONV_BIAS = 1,
  TIDE_RT_CONV_RESIDUAL = 2,
  TIDE_RT_CONV_RELU = 4,
};
void tide_rt_cpu_conv_epilogue_f32(TIDE_RT_CPU_CONV_ARGS, int64_t bRank,
                                   void *bDesc, int64_t rRank, void *rDesc,
                                   int64_t epilogue);

/* C = A * B (accumulate = 0) or C += A * B on the host through oneDNN, f32,
 * row-major with any row strides; constantWeights and threads as for the
 * convolution (B is the weight). */
void _mlir_ciface_tide_rt_cpu_matmul_f32(TideMemRef2D *a, TideMemRef2D *b,
                                         TideMemRef2D *c, int32_t accumulate,
                                         int32_t constantWeights,
                                         int32_t threads);

/* For each b < batch: C[b] = A[b] * B[b] (or +=) on the host through oneDNN,
 * f32, as above; a batch stride of 0 broadcasts that operand (one matrix for
 * every b). One call runs the whole batch on Tide's threads. */
void _mlir_ciface_tide_rt_cpu_matmul_batched_f32(
    TideMemRef3D *a, TideMemRef3D *b, TideMemRef3D *c, int32_t accumulate,
    int32_t constantWeights, int32_t threads);

/* An unranked memref as MLIR passes it: rank and a pointer to a ranked
 * descriptor {allocated, aligned, offset, sizes[rank], strides[rank]}. */
typedef struct {
  int64_t rank;
  void *descriptor;
} TideUnrankedMemRef;

/* Strided copy of any rank, called by MLIR's memref.copy lowering for
 * non-contiguous layouts (MLIR's own C runner utils are not shipped). */
#define TIDE_RT_MEMREF_COPY "memrefCopy"
void memrefCopy(int64_t elementSize, TideUnrankedMemRef *src,
                TideUnrankedMemRef *dst);

/* The number of threads a parallel loop nest of `work` innermost iterations
 * runs on (the num_threads of its OpenMP region; 1 runs it on the calling
 * thread alone): min(T, work / grain), at least 1, where T is the
 * TIDE_NUM_THREADS environment variable when set (read once per module), else
 * `compiled` when positive (tide-compile --cpu-threads), else the number of
 * CPUs in the process's affinity mask. An invalid TIDE_NUM_THREADS (not a whole
 * number from 1 to TIDE_RT_MAX_THREADS) prints an error and exits with 1. */
/* y = conv(x, w) (accumulate = 0) or y += conv(x, w) on the GPU through
 * cuDNN, on the calling thread's stream: x [N, C, D1..Dk], w [F, C/groups,
 * K1..Kk] (contiguous), y [N, F, O1..Ok], k = 1..3, device pointers with any
 * strides; cross-correlation with symmetric zero padding pad_i, stride_i and
 * dilation_i per spatial dim (entries past k are ignored). Errors (no cuDNN,
 * no algorithm, 32-bit overflow) print a message and exit with status 1. */
#define TIDE_RT_GPU_CONV_ARGS                                                  \
  int64_t xRank, void *x, int64_t wRank, void *w, int64_t yRank, void *y,      \
      int64_t groups, int64_t accumulate, int64_t pad0, int64_t pad1,          \
      int64_t pad2, int64_t stride0, int64_t stride1, int64_t stride2,         \
      int64_t dilation0, int64_t dilation1, int64_t dilation2
void tide_rt_gpu_conv_f16(TIDE_RT_GPU_CONV_ARGS);
void tide_rt_gpu_conv_bf16(TIDE_RT_GPU_CONV_ARGS);
void tide_rt_gpu_conv_f32(TIDE_RT_GPU_CONV_ARGS);
void tide_rt_gpu_conv_f64(TIDE_RT_GPU_CONV_ARGS);

/* O = softmax(f(Q K^T)) V for q [..., Sq, D], k [..., Sk, D] (or K^T
 * [..., D, Sk] when kTransposed), v [..., Sk, D] and o [..., Sq, D] (one or two
 * batch dims, all present in each; any strides with a unit last one). f is up
 * to three steps (0 none, 1 multiply by the constant, 2 divide by it, 3 add the
 * mask), each rounded to the element type; maskDim0..3 name the mask's dim
 * read for (batch0, batch1, query, key), -1 where it broadcasts. */
#define TIDE_RT_GPU_ATTENTION_ARGS                                             \
  int64_t qRank, void *q, int64_t kRank, void *k, int64_t vRank, void *v,      \
      int64_t oRank, void *o, int64_t maskRank, void *mask,                    \
      int64_t kTransposed, int64_t maskDim0, int64_t maskDim1,                 \
      int64_t maskDim2, int64_t maskDim3, int64_t step0, int64_t step1,        \
      int64_t step2, double constant0, double constant1, double constant2
void tide_rt_gpu_attention_f16(TIDE_RT_GPU_ATTENTION_ARGS);
void tide_rt_gpu_attention_bf16(TIDE_RT_GPU_ATTENTION_ARGS);

/* dst (device memory) = the `bytes` bytes of src, a read-only constant of a
 * compiled module, on the calling thread's stream. The first call uploads src
 * into device memory kept for the module's life and stores its address in
 * *slot (a zero-initialized global of the module, one per copy site); later
 * calls copy from there on the device. A slot found zero again (the module
 * was unloaded and another loaded at its address) gets a fresh upload, and
 * the old copy is freed. Errors print a message and exit with status 1. */
void tide_rt_gpu_copy_constant(void *dst, const void *src, int64_t bytes,
                               int64_t *slot);

/* The device copy of the read-only module constant src (`bytes` bytes),
 * uploaded at the first call as tide_rt_gpu_copy_constant does: for a
 * constant that the code only reads, which then uses that copy itself
 * instead of a copy of it per call. Errors print a message and exit with
 * status 1. */
void *tide_rt_gpu_constant(const void *src, int64_t bytes, int64_t *slot);

#define TIDE_RT_CPU_TEAM_SIZE "tide_rt_cpu_team_size"
#define TIDE_RT_MAX_THREADS 1024
int32_t tide_rt_cpu_team_size(int64_t work, int64_t grain, int32_t compiled);

#ifdef __cplusplus
}
#endif

#endif /* TIDE_RUNTIME_RUNTIMESYMBOLS_H */
