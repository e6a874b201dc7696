/*===- Gemm.c - Host GEMM through CBLAS -----------------------------------===*\
|* Part of the Tide project.                                                  *|
|*                                                                            *|
|* Linked into every compiled module that uses them (static, PIC); depends    *|
|* only on the C library and CBLAS (OpenBLAS), and on the OpenMP runtime's    *|
|* thread controls (weak references).                                         *|
\*===----------------------------------------------------------------------===*/

#include "tide/Runtime/RuntimeSymbols.h"

#include <cblas.h>
#include <stdint.h>
#include <stdlib.h>

#ifdef TIDE_OPENBLAS_OPENMP
/* OpenBLAS's OpenMP build runs each GEMM on the calling thread's OpenMP
 * team, libomp's where the module has parallel loops (the pool Tide's loops
 * and oneDNN share; libgomp's otherwise): it gets Tide's thread count
 * (TIDE_NUM_THREADS, else the affinity mask), as oneDNN does. Weak: the
 * OpenMP runtime comes with OpenBLAS. */
extern void omp_set_num_threads(int threads) __attribute__((weak));
extern int omp_get_max_threads(void) __attribute__((weak));

static void prepareThreads(void) {
  if (!omp_set_num_threads || !omp_get_max_threads)
    return;
  int threads = tide_rt_cpu_team_size(INT64_MAX, 1, 0);
  if (omp_get_max_threads() != threads)
    omp_set_num_threads(threads);
}
#else
/* libomp's, when the module has parallel loops (weak: serial modules do not
 * link libomp). */
extern void kmp_set_blocktime(int milliseconds) __attribute__((weak));

/* OpenBLAS's pthreads build: libomp's idle workers spin for 200 ms after
 * each parallel region (KMP_BLOCKTIME), on the cores OpenBLAS's threads need
 * during the GEMMs that follow: a module that calls the BLAS lets them sleep
 * at once instead, unless the user chose (KMP_BLOCKTIME or OMP_WAIT_POLICY
 * set). The calling thread forks every parallel region, so its setting is
 * the one that counts. */
static void prepareThreads(void) {
  static _Thread_local int done = 0; /* per calling thread */
  if (done)
    return;
  done = 1;
  if (kmp_set_blocktime && !getenv("KMP_BLOCKTIME") &&
      !getenv("OMP_WAIT_POLICY"))
    kmp_set_blocktime(0);
}
#endif

/* Leading dimension of a row-major operand; strided (non-unit inner stride)
 * operands are not produced by Tide's lowering. */
static int ld(const TideMemRef2D *m) {
  return (int)(m->strides[0] > 0 ? m->strides[0] : 1);
}

void _mlir_ciface_tide_rt_gemm_f32(TideMemRef2D *a, TideMemRef2D *b,
                                   TideMemRef2D *c, int32_t accumulate) {
  int m = (int)a->sizes[0], k = (int)a->sizes[1], n = (int)b->sizes[1];
  if (m == 0 || n == 0)
    return;
  prepareThreads();
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f,
              (const float *)a->aligned + a->offset, ld(a),
              (const float *)b->aligned + b->offset, ld(b),
              accumulate ? 1.0f : 0.0f, (float *)c->aligned + c->offset, ld(c));
}

void _mlir_ciface_tide_rt_gemm_f64(TideMemRef2D *a, TideMemRef2D *b,
                                   TideMemRef2D *c, int32_t accumulate) {
  int m = (int)a->sizes[0], k = (int)a->sizes[1], n = (int)b->sizes[1];
  if (m == 0 || n == 0)
    return;
  prepareThreads();
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0,
              (const double *)a->aligned + a->offset, ld(a),
              (const double *)b->aligned + b->offset, ld(b),
              accumulate ? 1.0 : 0.0, (double *)c->aligned + c->offset, ld(c));
}
