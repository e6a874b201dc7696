/*===- Dnnl.c - Host convolutions and matmuls through oneDNN --------------===*\
|* Part of the Tide project.                                                  *|
|*                                                                            *|
|* The tide_rt_cpu_* functions of RuntimeSymbols.h: 1-3-D f32 convolutions    *|
|* and f32 matmuls through oneDNN's C API (libdnnl, linked only into modules  *|
|* that call them). The CPU analogue of CudaDnn.cpp:                          *|
|*                                                                            *|
|*  - one primitive per shape (sizes, strides, padding, groups, whether it    *|
|*    accumulates and whether its weights are constant), created at the first *|
|*    call and kept for the life of the process;                              *|
|*  - constant weights (a module's memref.global constants, which the         *|
|*    compiler flags) are given to oneDNN as `format_tag any`: it picks the   *|
|*    blocked layout its fastest kernel reads, and the weights are reordered  *|
|*    into it once per weight buffer (keyed by its address, which a constant  *|
|*    never changes) instead of at every call. A convolution's other        *|
|*    weights are reordered into it at every call (plain weights can leave    *|
|*    oneDNN only its reference kernel: 2-6 s for one 3x3 convolution of      *|
|*    ResNet-18 on NHWC data); a batched matmul's are read in place, plain,   *|
|*    and a 2-D product with such weights goes to oneDNN's sgemm (row- or     *|
|*    column-major operands, no primitive), which packs both operands itself; *|
|*  - activations stay plain (NCHW, any strides) in Tide's buffers, which     *|
|*    its own loops read and write between library calls; oneDNN's fast       *|
|*    kernels want another layout (NHWC for brgconv here), so each call       *|
|*    reorders the input into the layout the primitive picked (`any`) and     *|
|*    the output back, through per-thread buffers: 44 ms against 77 ms for    *|
|*    ResNet-18 with plain layouts (gemm:jit). TIDE_DNNL_BLOCKED=0 keeps      *|
|*    them plain (for such comparisons); an accumulating call always does;    *|
|*  - threads: oneDNN's parallel regions are OpenMP ones; before each call    *|
|*    the calling thread's OpenMP thread count is set to Tide's               *|
|*    (tide_rt_cpu_team_size: TIDE_NUM_THREADS, else --cpu-threads, else the  *|
|*    affinity mask), so the library never runs on more threads than Tide's   *|
|*    own loops.                                                              *|
|*                                                                            *|
|* Errors (oneDNN has no implementation, out of memory) print a message that  *|
|* names the call and exit with status 1, as the GPU runtime does.            *|
\*===----------------------------------------------------------------------===*/

#include "tide/Runtime/RuntimeSymbols.h"

#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl_debug.h>

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The OpenMP runtime oneDNN's parallel regions run on (libgomp's, or
 * libomp's through its GOMP-compatible entry points when the module links
 * libomp first). */
extern void omp_set_num_threads(int threads);
extern int omp_get_max_threads(void);

static void fatal(const char *format, ...) {
  va_list args;
  va_start(args, format);
  fputs("tide runtime: error: ", stderr);
  vfprintf(stderr, format, args);
  fputc('\n', stderr);
  va_end(args);
  fflush(stderr);
  exit(1);
}

static void check(dnnl_status_t status, const char *what, const char *call) {
  if (status != dnnl_success)
    fatal("%s: oneDNN failed %s (%s)", call, what, dnnl_status2str(status));
}

/*===- Engine, streams, threads
 * --------------------------------------------===*/

static pthread_once_t engineOnce = PTHREAD_ONCE_INIT;
static dnnl_engine_t engine = NULL;
static dnnl_status_t engineStatus = dnnl_success;

static void createEngine(void) {
  engineStatus = dnnl_engine_create(&engine, dnnl_cpu, 0);
}

/* The calling thread's stream (oneDNN streams are not shared between
 * threads). */
static _Thread_local dnnl_stream_t stream = NULL;
static dnnl_stream_t threadStream(const char *call) {
  pthread_once(&engineOnce, createEngine);
  check(engineStatus, "to create its CPU engine", call);
  if (!stream)
    check(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags),
          "to create a stream", call);
  return stream;
}

/* Sets the calling thread's OpenMP thread count to Tide's (see the file
 * comment). libomp's blocktime is left as it is: its workers spin between
 * oneDNN's regions and Tide's loops, which run on the same pool (ResNet-18
 * on 2 threads: 19 ms a call against 24 ms with blocktime 0, which made
 * them sleep and wake at every region; Gemm.c sets 0 for modules that call
 * OpenBLAS, whose own threads need the cores). */
static int useTideThreads(int64_t compiled) {
  int threads =
      tide_rt_cpu_team_size(INT64_MAX, 1, compiled > 0 ? (int32_t)compiled : 0);
  if (omp_get_max_threads() != threads)
    omp_set_num_threads(threads);
  return threads;
}

/*===- Plans
 * ---------------------------------------------------------------===*/

enum { kKeyLength = 64 };

/* Weights reordered into a plan's layout, per weight buffer. */
typedef struct Packed {
  struct Packed *next;
  const void *source;
  void *data;
} Packed;

typedef struct Plan {
  struct Plan *next;
  int64_t key[kKeyLength];
  dnnl_primitive_t primitive;
  dnnl_memory_desc_t src, weights, dst; /* what the primitive reads/writes */
  dnnl_memory_desc_t plainWeights;      /* the caller's weights */
  dnnl_primitive_t reorder;             /* plain -> weights; NULL if same */
  /* When oneDNN has no direct reorder from the plain weights to the
   * primitive's layout (channels-last OHWI into Winograd's): plain ->
   * midWeights (OIHW) first, then `reorder` from there. */
  dnnl_memory_desc_t midWeights;
  dnnl_primitive_t preReorder;
  Packed *packed;
  /* Weights that are not module constants, in a layout the primitive
   * picked all the same: reordered at every call (a few hundred KB, where
   * plain weights can leave oneDNN only its reference kernel, thousands of
   * times slower on channels-last data). */
  int reorderPerCall;
  /* Blocked activations: the caller's plain ones and their reorders into
   * and out of the primitive's layouts (NULL: the primitive reads/writes
   * the caller's buffers). */
  dnnl_memory_desc_t plainSrc, plainDst;
  dnnl_primitive_t srcReorder, dstReorder;
  /* A fused epilogue (tide_rt_cpu_conv_epilogue_f32): the bias the
   * primitive adds (zero size when none), and the residual the sum post-op
   * adds, copied into the primitive's output first (resReorder, from the
   * caller's layout into the primitive's; NULL when there is none). */
  dnnl_memory_desc_t bias, plainResidual;
  dnnl_primitive_t resReorder;
} Plan;

/* Per-thread buffers of blocked activations, grown as needed. */
typedef struct {
  void *data;
  size_t bytes;
} Scratch;
static _Thread_local Scratch srcScratch = {NULL, 0}, dstScratch = {NULL, 0},
                             weightScratch = {NULL, 0}, midScratch = {NULL, 0};

static void *scratchOf(Scratch *s, size_t bytes, const char *call) {
  if (s->bytes < bytes) {
    free(s->data);
    s->data = NULL;
    s->bytes = 0;
    if (posix_memalign(&s->data, 64, bytes) != 0)
      fatal("%s: out of memory for %zu bytes of activations", call, bytes);
    s->bytes = bytes;
  }
  return s->data;
}

static dnnl_primitive_t reorderOf(const dnnl_memory_desc_t *from,
                                  const dnnl_memory_desc_t *to,
                                  const char *call) {
  if (dnnl_memory_desc_equal(from, to))
    return NULL;
  dnnl_primitive_desc_t rpd;
  dnnl_primitive_t reorder;
  check(
      dnnl_reorder_primitive_desc_create(&rpd, from, engine, to, engine, NULL),
      "to create a reorder", call);
  check(dnnl_primitive_create(&reorder, rpd), "to create a reorder", call);
  dnnl_primitive_desc_destroy(rpd);
  return reorder;
}

static void reorderNow(dnnl_primitive_t reorder, const dnnl_memory_desc_t *from,
                       void *fromData, const dnnl_memory_desc_t *to,
                       void *toData, dnnl_stream_t stream, const char *call);

/* Whether oneDNN has a reorder from `from` to `to` (or none is needed). */
static int canReorder(const dnnl_memory_desc_t *from,
                      const dnnl_memory_desc_t *to) {
  if (dnnl_memory_desc_equal(from, to))
    return 1;
  dnnl_primitive_desc_t rpd;
  if (dnnl_reorder_primitive_desc_create(&rpd, from, engine, to, engine,
                                         NULL) != dnnl_success)
    return 0;
  dnnl_primitive_desc_destroy(rpd);
  return 1;
}

static pthread_mutex_t plansLock = PTHREAD_MUTEX_INITIALIZER;
static Plan *plans = NULL;

/* When the module that holds this runtime is unloaded (dlclose, or the
 * process's normal end): the plans, their primitives and reordered weights, and
 * the unloading thread's stream and buffers are given back. Loading and
 * unloading a module again and again (a Python session) leaked them before,
 * and LeakSanitizer reported them at exit, once the module's globals that
 * held them were gone. */
__attribute__((destructor)) static void releasePlans(void) {
  /* Not while a plan is being made: an error there exits with the lock
   * held (fatal), or another thread is still calling; the memory goes
   * with the process then. */
  if (pthread_mutex_trylock(&plansLock) != 0)
    return;
  Plan *p = plans;
  plans = NULL;
  pthread_mutex_unlock(&plansLock);
  while (p) {
    Plan *next = p->next;
    dnnl_primitive_t owned[] = {p->primitive,  p->reorder,    p->preReorder,
                                p->srcReorder, p->dstReorder, p->resReorder};
    for (size_t i = 0; i < sizeof(owned) / sizeof(owned[0]); ++i)
      if (owned[i])
        dnnl_primitive_destroy(owned[i]);
    for (Packed *k = p->packed; k;) {
      Packed *after = k->next;
      free(k->data);
      free(k);
      k = after;
    }
    free(p);
    p = next;
  }
  free(srcScratch.data);
  free(dstScratch.data);
  free(weightScratch.data);
  free(midScratch.data);
  midScratch = (Scratch){NULL, 0};
  srcScratch = (Scratch){NULL, 0};
  dstScratch = (Scratch){NULL, 0};
  weightScratch = (Scratch){NULL, 0};
  if (stream)
    dnnl_stream_destroy(stream);
  stream = NULL;
  if (engine)
    dnnl_engine_destroy(engine);
  engine = NULL;
}

static Plan *findPlan(const int64_t *key) {
  for (Plan *p = __atomic_load_n(&plans, __ATOMIC_ACQUIRE); p; p = p->next)
    if (memcmp(p->key, key, sizeof(p->key)) == 0)
      return p;
  return NULL;
}

/* Creates the plan's primitive from `desc` (a convolution or matmul
 * descriptor whose weights are `any` when `constant`), and the reorder of
 * plain weights into the layout it chose. */
/* A reorder from `from` to `to` even when the two layouts are the same (a
 * copy between two buffers). */
static dnnl_primitive_t copyOf(const dnnl_memory_desc_t *from,
                               const dnnl_memory_desc_t *to, const char *call);

/* `sum`: the output's old contents are added (accumulate, or a residual);
 * `relu`: max(0, x) last. */
/* Creates the plan's primitive for `desc`. When `optional`, a descriptor
 * oneDNN has no implementation for returns 0 (the caller falls back to
 * another algorithm) instead of ending the process; else 1. */
static int makePlan(Plan *p, const void *desc, int sum, int relu, int optional,
                    const char *call) {
  dnnl_primitive_attr_t attr;
  check(dnnl_primitive_attr_create(&attr), "to create attributes", call);
  if (sum || relu) {
    dnnl_post_ops_t ops;
    check(dnnl_post_ops_create(&ops), "to create post-ops", call);
    if (sum)
      check(dnnl_post_ops_append_sum(ops, 1.0f), "to add a sum post-op", call);
    if (relu)
      check(dnnl_post_ops_append_eltwise(ops, 1.0f, dnnl_eltwise_relu, 0.0f,
                                         0.0f),
            "to add a ReLU post-op", call);
    check(dnnl_primitive_attr_set_post_ops(attr, ops), "to set post-ops", call);
    dnnl_post_ops_destroy(ops);
  }
  dnnl_primitive_desc_t pd;
  dnnl_status_t status = dnnl_primitive_desc_create(
      &pd, (const_dnnl_op_desc_t)desc, attr, engine, NULL);
  dnnl_primitive_attr_destroy(attr);
  if (status != dnnl_success && optional)
    return 0;
  if (status != dnnl_success)
    fatal("%s: oneDNN has no implementation for this shape (%s)", call,
          dnnl_status2str(status));
  /* An optional plan also needs the reorders to and from its layouts (the
   * Winograd weights layout has none from some plain ones). */
  const dnnl_memory_desc_t *chosen =
      dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
  int direct = canReorder(&p->plainWeights, chosen);
  if (optional && !direct && p->plainWeights.ndims == 4) {
    /* Through OIHW (contiguous) when that has reorders both ways. */
    dnnl_memory_desc_t mid;
    if (dnnl_memory_desc_init_by_tag(&mid, 4, p->plainWeights.dims, dnnl_f32,
                                     dnnl_abcd) == dnnl_success &&
        canReorder(&p->plainWeights, &mid) && canReorder(&mid, chosen)) {
      p->midWeights = mid;
      direct = 1;
    }
  }
  if (optional &&
      (!direct ||
       !canReorder(&p->plainSrc,
                   dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0)) ||
       !canReorder(dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0),
                   &p->plainDst))) {
    memset(&p->midWeights, 0, sizeof(p->midWeights));
    dnnl_primitive_desc_destroy(pd);
    return 0;
  }
  p->src = *dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
  p->weights = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
  p->dst = *dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
  check(dnnl_primitive_create(&p->primitive, pd), "to create a primitive",
        call);
  dnnl_primitive_desc_destroy(pd);
  if (p->midWeights.ndims) {
    p->preReorder = reorderOf(&p->plainWeights, &p->midWeights, call);
    p->reorder = reorderOf(&p->midWeights, &p->weights, call);
  } else {
    p->reorder = reorderOf(&p->plainWeights, &p->weights, call);
  }
  p->srcReorder = reorderOf(&p->plainSrc, &p->src, call);
  p->dstReorder = reorderOf(&p->dst, &p->plainDst, call);
  if (p->plainResidual.ndims)
    p->resReorder = copyOf(&p->plainResidual, &p->dst, call);
  return 1;
}

static void finishPlan(Plan *p, const void *desc, int sum, int relu,
                       const char *call) {
  makePlan(p, desc, sum, relu, /*optional=*/0, call);
}

static dnnl_primitive_t copyOf(const dnnl_memory_desc_t *from,
                               const dnnl_memory_desc_t *to, const char *call) {
  dnnl_primitive_desc_t rpd;
  dnnl_primitive_t reorder;
  check(
      dnnl_reorder_primitive_desc_create(&rpd, from, engine, to, engine, NULL),
      "to create a reorder", call);
  check(dnnl_primitive_create(&reorder, rpd), "to create a reorder", call);
  dnnl_primitive_desc_destroy(rpd);
  return reorder;
}

static dnnl_memory_t memoryOf(const dnnl_memory_desc_t *desc, void *data,
                              const char *call) {
  dnnl_memory_t memory;
  check(dnnl_memory_create(&memory, desc, engine, data), "to wrap a buffer",
        call);
  return memory;
}

/* Reorders the caller's `weights` into `data`, in the primitive's layout
 * (through OIHW when the plan has a midWeights step). */
static void reorderWeights(Plan *p, void *weights, void *data,
                           dnnl_stream_t stream, const char *call) {
  if (p->preReorder) {
    void *mid =
        scratchOf(&midScratch, dnnl_memory_desc_get_size(&p->midWeights), call);
    reorderNow(p->preReorder, &p->plainWeights, weights, &p->midWeights, mid,
               stream, call);
    reorderNow(p->reorder, &p->midWeights, mid, &p->weights, data, stream,
               call);
    return;
  }
  reorderNow(p->reorder, &p->plainWeights, weights, &p->weights, data, stream,
             call);
}

/* The weights the plan's primitive reads: `weights` itself, or its copy in
 * the primitive's layout (made once per buffer for constants, at every call
 * otherwise). */
static void *weightsFor(Plan *p, void *weights, dnnl_stream_t stream,
                        const char *call) {
  if (!p->reorder)
    return weights;
  if (p->reorderPerCall) {
    void *data =
        scratchOf(&weightScratch, dnnl_memory_desc_get_size(&p->weights), call);
    reorderWeights(p, weights, data, stream, call);
    return data;
  }
  for (Packed *k = __atomic_load_n(&p->packed, __ATOMIC_ACQUIRE); k;
       k = k->next)
    if (k->source == weights)
      return k->data;
  pthread_mutex_lock(&plansLock);
  for (Packed *k = p->packed; k; k = k->next)
    if (k->source == weights) {
      pthread_mutex_unlock(&plansLock);
      return k->data;
    }
  size_t bytes = dnnl_memory_desc_get_size(&p->weights);
  void *data = NULL;
  if (posix_memalign(&data, 64, bytes ? bytes : 64) != 0)
    fatal("%s: out of memory for %zu bytes of reordered weights", call, bytes);
  reorderWeights(p, weights, data, stream, call);
  Packed *k = malloc(sizeof(Packed));
  if (!k)
    fatal("%s: out of memory", call);
  k->source = weights;
  k->data = data;
  k->next = p->packed;
  __atomic_store_n(&p->packed, k, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&plansLock);
  return data;
}

static void reorderNow(dnnl_primitive_t reorder, const dnnl_memory_desc_t *from,
                       void *fromData, const dnnl_memory_desc_t *to,
                       void *toData, dnnl_stream_t stream, const char *call) {
  dnnl_memory_t a = memoryOf(from, fromData, call);
  dnnl_memory_t b = memoryOf(to, toData, call);
  dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, a}, {DNNL_ARG_TO, b}};
  check(dnnl_primitive_execute(reorder, stream, 2, args), "to reorder", call);
  check(dnnl_stream_wait(stream), "to reorder", call);
  dnnl_memory_destroy(a);
  dnnl_memory_destroy(b);
}

/* Runs the plan: y = conv(x, w) [+ bias] [+ residual] [ReLU]; bias and
 * residual are NULL when the plan has none. */
static void run(Plan *p, void *x, void *w, void *y, void *bias, void *residual,
                dnnl_stream_t stream, const char *call) {
  void *userY = y;
  if (p->srcReorder) {
    void *blocked =
        scratchOf(&srcScratch, dnnl_memory_desc_get_size(&p->src), call);
    reorderNow(p->srcReorder, &p->plainSrc, x, &p->src, blocked, stream, call);
    x = blocked;
  } else {
    /* A fused epilogue may write the buffer the convolution reads (its
     * output reuses the input's memory): the input is copied first, as the
     * residual would be copied over it or the primitive write over it. */
    size_t xBytes = dnnl_memory_desc_get_size(&p->src),
           yBytes = dnnl_memory_desc_get_size(&p->plainDst);
    if ((char *)x < (char *)y + yBytes && (char *)y < (char *)x + xBytes) {
      void *copy = scratchOf(&srcScratch, xBytes, call);
      memcpy(copy, x, xBytes);
      x = copy;
    }
  }
  if (p->dstReorder)
    y = scratchOf(&dstScratch, dnnl_memory_desc_get_size(&p->dst), call);
  /* The sum post-op adds what the output holds: the residual, in the
   * primitive's layout (nothing to copy when the caller's output is the
   * residual's buffer and the primitive writes it in place). */
  if (p->resReorder && !(y == userY && residual == userY))
    reorderNow(p->resReorder, &p->plainResidual, residual, &p->dst, y, stream,
               call);
  dnnl_memory_t src = memoryOf(&p->src, x, call);
  dnnl_memory_t weights =
      memoryOf(&p->weights, weightsFor(p, w, stream, call), call);
  dnnl_memory_t dst = memoryOf(&p->dst, y, call);
  dnnl_memory_t biasMemory = bias ? memoryOf(&p->bias, bias, call) : NULL;
  dnnl_exec_arg_t args[4] = {{DNNL_ARG_SRC, src},
                             {DNNL_ARG_WEIGHTS, weights},
                             {DNNL_ARG_DST, dst},
                             {DNNL_ARG_BIAS, biasMemory}};
  check(dnnl_primitive_execute(p->primitive, stream, bias ? 4 : 3, args),
        "to execute", call);
  check(dnnl_stream_wait(stream), "to execute", call);
  dnnl_memory_destroy(src);
  dnnl_memory_destroy(weights);
  dnnl_memory_destroy(dst);
  if (biasMemory)
    dnnl_memory_destroy(biasMemory);
  if (p->dstReorder)
    reorderNow(p->dstReorder, &p->dst, y, &p->plainDst, userY, stream, call);
}

/* Whether convolutions read and write blocked activations (reordered from
 * and to the caller's plain ones around each call). */
static int blockedActivations(void) {
  static int value = -1;
  if (value < 0) {
    const char *text = getenv("TIDE_DNNL_BLOCKED");
    value = text && *text ? atoi(text) != 0 : 1;
  }
  return value;
}

/* Whether 3x3 convolutions may use oneDNN's Winograd kernels
 * (TIDE_DNNL_WINOGRAD, default 1). */
static int winograd(void) {
  static int value = -1;
  if (value < 0) {
    const char *text = getenv("TIDE_DNNL_WINOGRAD");
    value = text && *text ? atoi(text) != 0 : 1;
  }
  return value;
}

/*===- Convolution
 * ---------------------------------------------------------===*/

/* A ranked descriptor's fields (see TideUnrankedMemRef). */
typedef struct {
  float *data;
  const int64_t *sizes, *strides;
} View;

static View viewOf(int64_t rank, void *descriptor) {
  int64_t *fields = (int64_t *)((char *)descriptor + 2 * sizeof(void *));
  View v;
  v.data = (float *)((void **)descriptor)[1] + fields[0];
  v.sizes = fields + 1;
  v.strides = fields + 1 + rank;
  return v;
}

/* The convolution, with an optional epilogue: `bias` (the output channel's
 * element of a (F, 1, ...) buffer), `residual` (a buffer of the output's
 * shape) and `relu`; NULL views when absent. */
static void convolve(TIDE_RT_CPU_CONV_ARGS, const View *bias,
                     const View *residual, int relu, const char *call) {
  if (xRank != wRank || xRank != yRank || xRank < 3 || xRank > 5)
    fatal("%s: called with ranks %lld, %lld, %lld (expected 3 to 5, equal)",
          call, (long long)xRank, (long long)wRank, (long long)yRank);
  int64_t rank = xRank, k = rank - 2;
  View x = viewOf(rank, xDesc), w = viewOf(rank, wDesc),
       y = viewOf(rank, yDesc);
  if (groups < 1 || x.sizes[1] != w.sizes[1] * groups ||
      w.sizes[0] % groups != 0 || y.sizes[1] != w.sizes[0] ||
      y.sizes[0] != x.sizes[0])
    fatal("%s: inconsistent shapes (input channels %lld, weights %lldx%lld, "
          "%lld groups, output channels %lld)",
          call, (long long)x.sizes[1], (long long)w.sizes[0],
          (long long)w.sizes[1], (long long)groups, (long long)y.sizes[1]);
  for (int64_t d = 0; d < rank; ++d)
    if (x.sizes[d] == 0 || y.sizes[d] == 0 || w.sizes[d] == 0)
      return; /* no work; (F, 0 channels) never reaches here from Tide */
  const int64_t padsL[3] = {pad0, pad1, pad2}, padsR[3] = {padR0, padR1, padR2},
                strides[3] = {stride0, stride1, stride2},
                dilations[3] = {dilation0, dilation1, dilation2};

  int64_t key[kKeyLength] = {0};
  int n = 0;
  key[n++] = 1; /* convolution */
  key[n++] = rank;
  key[n++] = groups;
  key[n++] = accumulate != 0;
  key[n++] = constantWeights != 0;
  key[n++] = bias ? 1 + bias->strides[0] : 0;
  key[n++] = relu != 0;
  key[n++] = residual != NULL;
  if (residual)
    for (int64_t d = 0; d < rank; ++d)
      key[n++] = residual->strides[d];
  for (int64_t d = 0; d < rank; ++d) {
    key[n++] = x.sizes[d];
    key[n++] = x.strides[d];
    key[n++] = w.sizes[d];
    key[n++] = w.strides[d];
    key[n++] = y.sizes[d];
    key[n++] = y.strides[d];
  }
  for (int64_t i = 0; i < k; ++i) {
    key[n++] = padsL[i];
    key[n++] = padsR[i];
    key[n++] = strides[i];
    key[n++] = dilations[i];
  }

  dnnl_stream_t stream = threadStream(call);
  useTideThreads(threads);
  Plan *p = findPlan(key);
  if (!p) {
    pthread_mutex_lock(&plansLock);
    p = findPlan(key);
    if (!p) {
      p = calloc(1, sizeof(Plan));
      if (!p)
        fatal("%s: out of memory", call);
      memcpy(p->key, key, sizeof(key));
      dnnl_dims_t xDims, xStrides, yDims, yStrides, wDims, wStrides;
      for (int64_t d = 0; d < rank; ++d) {
        xDims[d] = x.sizes[d];
        xStrides[d] = x.strides[d];
        yDims[d] = y.sizes[d];
        yStrides[d] = y.strides[d];
      }
      int wRankDnnl = (int)rank;
      if (groups == 1) {
        for (int64_t d = 0; d < rank; ++d) {
          wDims[d] = w.sizes[d];
          wStrides[d] = w.strides[d];
        }
      } else {
        /* (G, F/G, C/G, K...) */
        wRankDnnl = (int)rank + 1;
        wDims[0] = groups;
        wStrides[0] = w.strides[0] * (w.sizes[0] / groups);
        wDims[1] = w.sizes[0] / groups;
        wStrides[1] = w.strides[0];
        for (int64_t d = 1; d < rank; ++d) {
          wDims[d + 1] = w.sizes[d];
          wStrides[d + 1] = w.strides[d];
        }
      }
      dnnl_memory_desc_t src, dst, weights;
      check(dnnl_memory_desc_init_by_strides(&src, (int)rank, xDims, dnnl_f32,
                                             xStrides),
            "to describe the input", call);
      check(dnnl_memory_desc_init_by_strides(&dst, (int)rank, yDims, dnnl_f32,
                                             yStrides),
            "to describe the output", call);
      check(dnnl_memory_desc_init_by_strides(&p->plainWeights, wRankDnnl, wDims,
                                             dnnl_f32, wStrides),
            "to describe the weights", call);
      check(dnnl_memory_desc_init_by_tag(&weights, wRankDnnl, wDims, dnnl_f32,
                                         dnnl_format_tag_any),
            "to describe the weights", call);
      p->reorderPerCall = !constantWeights;
      p->plainSrc = src;
      p->plainDst = dst;
      if (bias) {
        dnnl_dims_t bDims = {y.sizes[1]}, bStrides = {bias->strides[0]};
        check(dnnl_memory_desc_init_by_strides(&p->bias, 1, bDims, dnnl_f32,
                                               bStrides),
              "to describe the bias", call);
      }
      if (residual) {
        dnnl_dims_t rStrides;
        for (int64_t d = 0; d < rank; ++d)
          rStrides[d] = residual->strides[d];
        check(dnnl_memory_desc_init_by_strides(&p->plainResidual, (int)rank,
                                               yDims, dnnl_f32, rStrides),
              "to describe the residual", call);
      }
      if (blockedActivations() && !accumulate) {
        check(dnnl_memory_desc_init_by_tag(&src, (int)rank, xDims, dnnl_f32,
                                           dnnl_format_tag_any),
              "to describe the input", call);
        check(dnnl_memory_desc_init_by_tag(&dst, (int)rank, yDims, dnnl_f32,
                                           dnnl_format_tag_any),
              "to describe the output", call);
      }
      dnnl_dims_t s, dil, l, r;
      for (int64_t i = 0; i < k; ++i) {
        s[i] = strides[i];
        dil[i] = dilations[i] - 1; /* oneDNN counts the gaps */
        l[i] = padsL[i];
        r[i] = padsR[i];
      }
      dnnl_convolution_desc_t desc;
      int sum = accumulate != 0 || residual != NULL, planned = 0;
      /* 3x3 stride-1 2-D convolutions by Winograd's F(2x2, 3x3) where
       * oneDNN has it (blocked activations, reordered around the call):
       * 1.4-1.8x faster than its direct kernels on ResNet-18's layers (see
       * docs/compiling.md for its accuracy; TIDE_DNNL_WINOGRAD=0 turns it
       * off). Only for constant weights, transformed once: oneDNN's
       * reorder into Winograd's layout is slow (21-27 ms for 256x256x3x3
       * here, where the direct convolution takes 1.4 ms), too slow to run at
       * every call. Only with 16 or more input and output channels, the
       * layers it is for: its transforms round, so a window sum of exact
       * values (an LpPool of p = 1 over halves, one channel into one) came
       * back 1 ulp off where the direct kernel is exact. */
      if (winograd() && constantWeights && k == 2 && groups == 1 &&
          w.sizes[0] >= 16 && w.sizes[1] >= 16 && blockedActivations() &&
          !accumulate && w.sizes[2] == 3 && w.sizes[3] == 3 &&
          strides[0] == 1 && strides[1] == 1 && dilations[0] == 1 &&
          dilations[1] == 1 &&
          dnnl_dilated_convolution_forward_desc_init(
              &desc, dnnl_forward_inference, dnnl_convolution_winograd, &src,
              &weights, bias ? &p->bias : NULL, &dst, s, dil, l,
              r) == dnnl_success)
        planned = makePlan(p, &desc, sum, relu, /*optional=*/1, call);
      if (!planned) {
        dnnl_status_t status = dnnl_dilated_convolution_forward_desc_init(
            &desc, dnnl_forward_inference, dnnl_convolution_direct, &src,
            &weights, bias ? &p->bias : NULL, &dst, s, dil, l, r);
        if (status != dnnl_success)
          fatal("%s: oneDNN rejects this convolution (%s): check its sizes, "
                "strides, padding and dilations",
                call, dnnl_status2str(status));
        finishPlan(p, &desc, sum, relu, call);
      }
      p->next = plans;
      __atomic_store_n(&plans, p, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&plansLock);
  }
  run(p, x.data, w.data, y.data, bias ? bias->data : NULL,
      residual ? residual->data : NULL, stream, call);
}

void tide_rt_cpu_conv_f32(TIDE_RT_CPU_CONV_ARGS) {
  convolve(xRank, xDesc, wRank, wDesc, yRank, yDesc, groups, accumulate,
           constantWeights, threads, pad0, pad1, pad2, padR0, padR1, padR2,
           stride0, stride1, stride2, dilation0, dilation1, dilation2, NULL,
           NULL, 0, "tide_rt_cpu_conv_f32");
}

void tide_rt_cpu_conv_epilogue_f32(TIDE_RT_CPU_CONV_ARGS, int64_t bRank,
                                   void *bDesc, int64_t rRank, void *rDesc,
                                   int64_t epilogue) {
  const char *call = "tide_rt_cpu_conv_epilogue_f32";
  View bias, residual;
  int hasBias = (epilogue & TIDE_RT_CONV_BIAS) != 0,
      hasResidual = (epilogue & TIDE_RT_CONV_RESIDUAL) != 0;
  if (accumulate ||
      (epilogue & ~(int64_t)(TIDE_RT_CONV_BIAS | TIDE_RT_CONV_RESIDUAL |
                             TIDE_RT_CONV_RELU)))
    fatal("%s: called with epilogue flags %lld and accumulate %lld", call,
          (long long)epilogue, (long long)accumulate);
  if (hasBias) {
    bias = viewOf(bRank, bDesc);
    if (bRank < 1 || bias.sizes[0] != viewOf(yRank, yDesc).sizes[1])
      fatal("%s: the bias (rank %lld) does not match the output channels", call,
            (long long)bRank);
  }
  if (hasResidual) {
    residual = viewOf(rRank, rDesc);
    View y = viewOf(yRank, yDesc);
    if (rRank != yRank)
      fatal("%s: the residual's rank %lld is not the output's %lld", call,
            (long long)rRank, (long long)yRank);
    for (int64_t d = 0; d < rRank; ++d)
      if (residual.sizes[d] != y.sizes[d])
        fatal("%s: the residual's shape is not the output's", call);
  }
  convolve(xRank, xDesc, wRank, wDesc, yRank, yDesc, groups, accumulate,
           constantWeights, threads, pad0, pad1, pad2, padR0, padR1, padR2,
           stride0, stride1, stride2, dilation0, dilation1, dilation2,
           hasBias ? &bias : NULL, hasResidual ? &residual : NULL,
           (epilogue & TIDE_RT_CONV_RELU) != 0, call);
}

/*===- Matmul
 * --------------------------------------------------------------===*/

/* How dnnl_sgemm (row-major) reads a rows x cols operand whose elements are
 * `rowStride` and `colStride` apart: 'N' (row-major, ld = the row stride) or
 * 'T' (column-major, ld = the column stride), or 0 when neither fits. A dim
 * of size 1 has no stride that matters. */
static char sgemmLayout(int64_t rows, int64_t cols, int64_t rowStride,
                        int64_t colStride, int64_t *ld) {
  if ((cols == 1 || colStride == 1) && (rows == 1 || rowStride >= cols)) {
    *ld = rows == 1 ? cols : rowStride;
    return 'N';
  }
  if ((rows == 1 || rowStride == 1) && (cols == 1 || colStride >= rows)) {
    *ld = cols == 1 ? rows : colStride;
    return 'T';
  }
  return 0;
}

/* Whether a 2-D product whose weights are not module constants goes through
 * oneDNN's sgemm on a team of `threads` (else its matmul primitive, plain
 * weights read in place): on teams of up to 4 threads, where it was the
 * faster (1024^3 and the f32 MLP's products, 1-4 threads, on this project's
 * 2-core build VM and a 16-core H100 host: 0.8-1.0x the primitive's time);
 * on 8 and 16 threads the two were within noise of each other there, and the
 * primitive ran at 1.4x sgemm's rate on the H200 machine's host (2048^3, 16
 * threads). TIDE_DNNL_SGEMM=0 / 1: never / always (for comparisons). */
enum { kSgemmMaxThreads = 4 };
static int useSgemm(int threads) {
  static int cached = -2; /* -2: not read; -1: unset; 0 / 1 */
  int value = __atomic_load_n(&cached, __ATOMIC_RELAXED);
  if (value == -2) {
    const char *env = getenv("TIDE_DNNL_SGEMM");
    value = env && *env ? strcmp(env, "0") != 0 : -1;
    __atomic_store_n(&cached, value, __ATOMIC_RELAXED);
  }
  return value >= 0 ? value : threads <= kSgemmMaxThreads;
}

/* C = A * B over `rank` (2, or 3 with a leading batch) dims: `dims` and
 * `strides` per operand (A, B, C), a batch stride of 0 for an operand that
 * is broadcast (described to oneDNN as a batch of 1, which its matmul
 * broadcasts). */
static void matmul(int rank, int64_t dims[3][3], int64_t strides[3][3],
                   float *data[3], int32_t accumulate, int32_t constantWeights,
                   int32_t threads, const char *call) {
  int r = rank - 2; /* the row dim */
  int64_t batch = rank == 3 ? dims[2][0] : 1;
  int64_t m = dims[0][r], kk = dims[0][r + 1], n = dims[1][r + 1];
  if (dims[1][r] != kk || dims[2][r] != m || dims[2][r + 1] != n ||
      (rank == 3 && (dims[0][0] != batch || dims[1][0] != batch)))
    fatal("%s: inconsistent shapes (%lldx%lld times %lldx%lld into %lldx%lld, "
          "batch %lld)",
          call, (long long)m, (long long)kk, (long long)dims[1][r],
          (long long)n, (long long)dims[2][r], (long long)dims[2][r + 1],
          (long long)batch);
  if (m == 0 || n == 0 || batch == 0)
    return;
  if (kk == 0) {
    if (!accumulate)
      for (int64_t bi = 0; bi < batch; ++bi)
        for (int64_t i = 0; i < m; ++i)
          memset(data[2] + (rank == 3 ? bi * strides[2][0] : 0) +
                     i * strides[2][r],
                 0, (size_t)n * sizeof(float));
    return;
  }
  /* Broadcast operands: a batch of 1. */
  if (rank == 3)
    for (int i = 0; i < 2; ++i)
      if (strides[i][0] == 0 || batch == 1)
        dims[i][0] = 1;
  /* One product whose weights change from call to call, on a small team:
   * oneDNN's sgemm, which packs both operands itself (useSgemm). */
  int team = useTideThreads(threads);
  if (rank == 2 && !constantWeights && useSgemm(team)) {
    int64_t lda, ldb, ldc;
    char ta = sgemmLayout(m, kk, strides[0][0], strides[0][1], &lda);
    char tb = sgemmLayout(kk, n, strides[1][0], strides[1][1], &ldb);
    if (ta && tb &&
        sgemmLayout(m, n, strides[2][0], strides[2][1], &ldc) == 'N') {
      check(dnnl_sgemm(ta, tb, m, n, kk, 1.0f, data[0], lda, data[1], ldb,
                       accumulate ? 1.0f : 0.0f, data[2], ldc),
            "to multiply", call);
      return;
    }
  }
  int64_t key[kKeyLength] = {0};
  int k = 0;
  key[k++] = rank; /* matmul */
  key[k++] = accumulate != 0;
  key[k++] = constantWeights != 0;
  for (int i = 0; i < 3; ++i)
    for (int d = 0; d < rank; ++d) {
      key[k++] = dims[i][d];
      key[k++] = strides[i][d];
    }

  dnnl_stream_t stream = threadStream(call);
  Plan *p = findPlan(key);
  if (!p) {
    pthread_mutex_lock(&plansLock);
    p = findPlan(key);
    if (!p) {
      p = calloc(1, sizeof(Plan));
      if (!p)
        fatal("%s: out of memory", call);
      memcpy(p->key, key, sizeof(key));
      dnnl_memory_desc_t descs[3];
      for (int i = 0; i < 3; ++i) {
        dnnl_dims_t d, st;
        for (int j = 0; j < rank; ++j) {
          d[j] = dims[i][j];
          /* oneDNN wants a stride for a dim of 1 too: any will do. */
          st[j] =
              strides[i][j] != 0 ? strides[i][j] : dims[i][r] * strides[i][r];
        }
        check(
            dnnl_memory_desc_init_by_strides(&descs[i], rank, d, dnnl_f32, st),
            "to describe an operand", call);
      }
      p->plainWeights = descs[1];
      p->plainSrc = descs[0];
      p->plainDst = descs[2];
      dnnl_memory_desc_t weights = descs[1];
      if (constantWeights)
        check(dnnl_memory_desc_init_by_tag(&weights, rank, descs[1].dims,
                                           dnnl_f32, dnnl_format_tag_any),
              "to describe the weights", call);
      dnnl_matmul_desc_t desc;
      check(dnnl_matmul_desc_init(&desc, &descs[0], &weights, NULL, &descs[2]),
            "to describe the matmul", call);
      finishPlan(p, &desc, accumulate != 0, 0, call);
      p->next = plans;
      __atomic_store_n(&plans, p, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&plansLock);
  }
  run(p, data[0], data[1], data[2], NULL, NULL, stream, call);
}

void _mlir_ciface_tide_rt_cpu_matmul_f32(TideMemRef2D *a, TideMemRef2D *b,
                                         TideMemRef2D *c, int32_t accumulate,
                                         int32_t constantWeights,
                                         int32_t threads) {
  const TideMemRef2D *operands[3] = {a, b, c};
  int64_t dims[3][3], strides[3][3];
  float *data[3];
  for (int i = 0; i < 3; ++i) {
    for (int d = 0; d < 2; ++d) {
      dims[i][d] = operands[i]->sizes[d];
      strides[i][d] = operands[i]->strides[d];
    }
    data[i] = (float *)operands[i]->aligned + operands[i]->offset;
  }
  matmul(2, dims, strides, data, accumulate, constantWeights, threads,
         "tide_rt_cpu_matmul_f32");
}

void _mlir_ciface_tide_rt_cpu_matmul_batched_f32(
    TideMemRef3D *a, TideMemRef3D *b, TideMemRef3D *c, int32_t accumulate,
    int32_t constantWeights, int32_t threads) {
  const TideMemRef3D *operands[3] = {a, b, c};
  int64_t dims[3][3], strides[3][3];
  float *data[3];
  for (int i = 0; i < 3; ++i) {
    for (int d = 0; d < 3; ++d) {
      dims[i][d] = operands[i]->sizes[d];
      strides[i][d] = operands[i]->strides[d];
    }
    data[i] = (float *)operands[i]->aligned + operands[i]->offset;
  }
  /* A batch of one (a linear layer's rows folded together): the 2-D
   * primitive, which oneDNN 2.6 ran up to 1.8x faster than the same product
   * described in 3-D (the encoder's 128x768 times 768x3072 FFN product). */
  if (c->sizes[0] == 1) {
    for (int i = 0; i < 3; ++i)
      for (int d = 0; d < 2; ++d) {
        dims[i][d] = dims[i][d + 1];
        strides[i][d] = strides[i][d + 1];
      }
    matmul(2, dims, strides, data, accumulate, constantWeights, threads,
           "tide_rt_cpu_matmul_batched_f32");
    return;
  }
  matmul(3, dims, strides, data, accumulate, constantWeights, threads,
         "tide_rt_cpu_matmul_batched_f32");
}
