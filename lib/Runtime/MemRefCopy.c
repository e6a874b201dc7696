/*===- MemRefCopy.c - Strided copies for memref.copy ----------------------===*\
|* Part of the Tide project.                                                  *|
|*                                                                            *|
|* Its own file (archive member): modules that copy strided views link this   *|
|* without pulling in the BLAS.                                               *|
\*===----------------------------------------------------------------------===*/

#include "tide/Runtime/RuntimeSymbols.h"

#include <string.h>

void memrefCopy(int64_t elementSize, TideUnrankedMemRef *src,
                TideUnrankedMemRef *dst) {
  int64_t rank = src->rank;
  int64_t *s = (int64_t *)src->descriptor, *d = (int64_t *)dst->descriptor;
  /* {allocated, aligned, offset, sizes[rank], strides[rank]} */
  char *srcData = (char *)s[1] + s[2] * elementSize;
  char *dstData = (char *)d[1] + d[2] * elementSize;
  const int64_t *sizes = s + 3, *srcStrides = s + 3 + rank,
                *dstStrides = d + 3 + rank;
  int64_t total = 1;
  for (int64_t i = 0; i < rank; ++i)
    total *= sizes[i];
  if (total == 0)
    return;
  int64_t index[16] = {0};
  if (rank > 16)
    return; /* Tide's tensors never have this many dimensions. */
  for (int64_t n = 0; n < total; ++n) {
    int64_t so = 0, dof = 0;
    for (int64_t i = 0; i < rank; ++i) {
      so += index[i] * srcStrides[i];
      dof += index[i] * dstStrides[i];
    }
    memcpy(dstData + dof * elementSize, srcData + so * elementSize,
           (size_t)elementSize);
    for (int64_t i = rank - 1; i >= 0; --i) {
      if (++index[i] < sizes[i])
        break;
      index[i] = 0;
    }
  }
}
