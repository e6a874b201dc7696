/*===- MemRefCopy.c - Strided copies for memref.copy ----------------------===*\
|* Part of the Tide project.                                                  *|
|*                                                                            *|
|* Its own file (archive member): modules that copy strided views link this   *|
|* without pulling in the BLAS.                                               *|
\*===----------------------------------------------------------------------===*/

#include "tide/Runtime/RuntimeSymbols.h"

#include <string.h>

/* memref.copy between views of the same shape: the innermost dimensions that
 * are contiguous in both views (size-1 dimensions aside) are one run, copied
 * with one memcpy; the outer dimensions are walked with running offsets. */
void memrefCopy(int64_t elementSize, TideUnrankedMemRef *src,
                TideUnrankedMemRef *dst) {
  int64_t rank = src->rank;
  int64_t *s = (int64_t *)src->descriptor, *d = (int64_t *)dst->descriptor;
  /* {allocated, aligned, offset, sizes[rank], strides[rank]} */
  char *srcData = (char *)s[1] + s[2] * elementSize;
  char *dstData = (char *)d[1] + d[2] * elementSize;
  const int64_t *sizes = s + 3, *srcStrides = s + 3 + rank,
                *dstStrides = d + 3 + rank;
  if (rank > 16)
    return; /* Tide's tensors never have this many dimensions. */
  for (int64_t i = 0; i < rank; ++i)
    if (sizes[i] == 0)
      return;
  /* The contiguous run: dimensions [outer, rank). */
  int64_t run = 1, outer = rank;
  while (outer > 0) {
    int64_t i = outer - 1;
    if (sizes[i] != 1 && (srcStrides[i] != run || dstStrides[i] != run))
      break;
    run *= sizes[i];
    --outer;
  }
  size_t bytes = (size_t)(run * elementSize);
  int64_t index[16] = {0};
  int64_t so = 0, dof = 0;
  for (;;) {
    memcpy(dstData + dof * elementSize, srcData + so * elementSize, bytes);
    int64_t i = outer - 1;
    for (; i >= 0; --i) {
      so += srcStrides[i];
      dof += dstStrides[i];
      if (++index[i] < sizes[i])
        break;
      so -= srcStrides[i] * sizes[i];
      dof -= dstStrides[i] * sizes[i];
      index[i] = 0;
    }
    if (i < 0)
      return;
  }
}
