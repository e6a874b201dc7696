/*===- Gemm.c - Host GEMM through CBLAS -----------------------------------===*\
|* Part of the Tide project.                                                  *|
|*                                                                            *|
|* Linked into every compiled module that uses them (static, PIC); depends    *|
|* only on the C library and CBLAS (OpenBLAS).                                *|
\*===----------------------------------------------------------------------===*/

#include "tide/Runtime/RuntimeSymbols.h"

#include <cblas.h>

/* Leading dimension of a row-major operand; strided (non-unit inner stride)
 * operands are not produced by Tide's lowering. */
static int ld(const TideMemRef2D *m) {
  return (int)(m->strides[0] > 0 ? m->strides[0] : 1);
}

void _mlir_ciface_tide_rt_gemm_f32(TideMemRef2D *a, TideMemRef2D *b,
                                   TideMemRef2D *c) {
  int m = (int)a->sizes[0], k = (int)a->sizes[1], n = (int)b->sizes[1];
  if (m == 0 || n == 0)
    return;
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f,
              (const float *)a->aligned + a->offset, ld(a),
              (const float *)b->aligned + b->offset, ld(b), 1.0f,
              (float *)c->aligned + c->offset, ld(c));
}

void _mlir_ciface_tide_rt_gemm_f64(TideMemRef2D *a, TideMemRef2D *b,
                                   TideMemRef2D *c) {
  int m = (int)a->sizes[0], k = (int)a->sizes[1], n = (int)b->sizes[1];
  if (m == 0 || n == 0)
    return;
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0,
              (const double *)a->aligned + a->offset, ld(a),
              (const double *)b->aligned + b->offset, ld(b), 1.0,
              (double *)c->aligned + c->offset, ld(c));
}
