//===- Passes.td - Tide lowering passes --------------------*- tablegen -*-===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_LOWERING_PASSES_TD
#define TIDE_LOWERING_PASSES_TD

include "mlir/Pass/PassBase.td"

def ExportABIPass : Pass<"tide-export-abi", "mlir::ModuleOp"> {
  let summary = "Describe the module's public functions for a generic runner";
  let description = [{
    Runs on tensor-level IR, before bufferization. Marks every public
    function `llvm.emit_c_interface` (so `_mlir_ciface_<name>` takes pointers
    to memref descriptors: results first, then arguments) and adds the
    null-terminated global `tide_module_metadata`, one line per item:

    ```
    tide-module 1
    func <name> <num-args> <num-results>
    arg <i> <dtype> <d0>x<d1>... (? for dynamic, "scalar" for rank 0) <device>
    result <i> <dtype> <dims> <device>
    ```

    A compiled module thus describes itself: `tide-run` reads it to check
    inputs and call any function, with no LLVM or MLIR at run time. Function
    signatures must be ranked tensors of Tide's element types.
  }];
  let dependentDialects = ["mlir::tide::TideDialect",
                           "mlir::LLVM::LLVMDialect"];
}

def ChannelsLastPass : Pass<"tide-channels-last", "mlir::func::FuncOp"> {
  let summary = "Run convolutions channels-last, with the transposes "
                "moved out of their way";
  let description = [{
    Runs on placed tensor-level IR. The GPU's tensor-core convolutions
    (cuDNN) read and write channels-last (NHWC) data: given NCHW buffers they
    transpose them in and out at every convolution. This pass rewrites each
    ungrouped 2-D f16/bf16 convolution placed on a GPU (and f32 ones with
    `f32`; with `host`, also every 2-D f32 convolution not placed on a GPU,
    grouped and depthwise ones included, which the CPU pipeline hands to
    oneDNN: its NHWC kernels need no reorder of the activations around each
    call, and a MobileNet stays NHWC from its first convolution to its last)
    into `tide.transpose` to
    NHWC, a `channels_last` `tide.conv` and
    a `tide.transpose` back, then moves the transposes down the graph until
    they meet their inverses and vanish. A host convolution with no other
    2-D convolution next to it (none reads its result, or computed its
    input, through elementwise ops and pools only) stays NCHW: its
    transposes would not cancel, and oneDNN reorders NCHW data inside the
    call faster than Tide's transposes and padding copy do. The transposes
    move:

    - through elementwise ops (unary, binary, compare, select, cast), when
      every full-size operand is a transpose with the same permutation that
      nothing else reads, and the other operands are small broadcast
      operands (a bias): those are permuted instead, or left alone when
      every size is 1;
      A transpose read by several such ops (a block's output read by the
      next block's cast and by its residual add) moves past each of them;
    - through reductions (`reduce_sum`, `reduce_mean`, `reduce_max`,
      `reduce_min`, `reduce_prod`), whose axes are permuted;
    - through `max_pool` and `avg_pool`, which become `channels_last`;
    - through concatenations whose inputs all are transposes of one
      permutation (the axis is permuted);
    - where a convolution is or becomes channels-last: through reshapes
      that only split dimensions (the input's dimensions split the same
      way), reshapes that only merge dimensions whose source dimensions form
      ranges (a transpose within a range, the data movement the reshape
      implies, stays before the merge), and slices when every reader of the
      transpose is a slice (the bounds are permuted): a channel shuffle
      (ShuffleNet) becomes one permutation of the channels within NHWC;
    - a transpose that moves only dimensions of size 1 becomes a reshape.

    A network of convolutions, bias adds, activations, pools and residual
    adds thus runs channels-last from its first convolution to its global
    pooling, with one transpose of its input; ops no rule covers read NCHW
    data through a transpose. Every new op keeps the device of the op it
    came from. Values are unchanged: only where data are stored changes.
  }];
  let options = [
    Option<"f32", "f32", "bool", /*default=*/"false",
           "Also rewrite f32 convolutions (cuDNN runs them on FMA units, "
           "where NCHW is as fast)">,
    Option<"host", "host", "bool", /*default=*/"false",
           "Also rewrite ungrouped 2-D f32 convolutions not placed on a GPU "
           "(the CPU pipeline's oneDNN convolutions)">,
  ];
  let dependentDialects = ["mlir::tide::TideDialect"];
}

def ElideArgumentClonesPass
    : Pass<"tide-elide-argument-clones", "mlir::func::FuncOp"> {
  let summary = "Return function arguments without copying them";
  let description = [{
    Ownership-based buffer deallocation clones a function argument that is
    returned, since the function does not own it. Tide's ABI lets results
    alias arguments instead (the runner checks before freeing), so a clone of
    an argument used only by `func.return` is replaced by the argument: the
    identity function compiles to no copy. Runs after
    `buffer-deallocation-pipeline`.
  }];
  let dependentDialects = ["mlir::bufferization::BufferizationDialect"];
}

def DropEmptySlicesPass : Pass<"tide-drop-empty-slices", "mlir::func::FuncOp"> {
  let summary = "Replace slices of tensors with no elements by empty tensors";
  let description = [{
    A `tensor.extract_slice` of a tensor with a size 0 (seen through
    `tensor.cast`s: a value whose type says `?` where the op computing it
    knows 0) reads nothing: it becomes a `tensor.empty` of the slice's sizes.
    A `tensor.insert_slice` into such a tensor, or of such a tensor, writes
    nothing: it becomes its destination. Run before bufferization, because
    after it upstream's canonicalization folds the `memref.cast` into the
    `memref.subview` and makes a subview at offset 0 of a dimension of size 0,
    which the subview's verifier rejects ("offset 1 is out-of-bounds"), a
    valid program then failing to compile.
  }];
  let dependentDialects = ["mlir::tensor::TensorDialect"];
}

def UnshareFillsPass : Pass<"tide-unshare-fills", "mlir::func::FuncOp"> {
  let summary = "Give every op that writes into a filled tensor its own fill";
  let description = [{
    CSE merges identical `linalg.fill`s of empty tensors (the zeros a
    convolution or product accumulates into, the padding of a convolution's
    input), so one fill can be the destination of several ops. One-shot
    bufferization then keeps one buffer for the fill and copies it for every
    other writer: a memset plus a memcpy each, and a destination the GEMM and
    convolution lowerings no longer recognize as zero (so they accumulate,
    and cannot fuse an epilogue). This pass, run after the last CSE before
    bufferization, clones the fill (and its `tensor.empty`) right before each
    op that writes into it (a destination-style init, a `tensor.insert_slice`
    destination) but one, so each gets a buffer of its own. Reads of
    the fill are left alone.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def FuseElementwisePass : Pass<"tide-fuse-elementwise", "mlir::ModuleOp"> {
  let summary = "Fuse elementwise linalg ops, moving reshapes out of their "
                "way, but keep contractions whole";
  let description = [{
    Upstream's elementwise fusion (`linalg-fuse-elementwise-ops`): producers
    with one use fused into elementwise consumers, reshapes propagated through
    linalg ops by expansion so that such chains meet, constants folded. One
    difference: reshapes are not propagated into or out of linalg ops with
    reduction loops. A matmul seen through a collapse or expand of its
    operands (a flattened image, a 1x1 convolution's weights) would otherwise
    become a higher-rank contraction that no GEMM library call matches, and
    run as generated loops. A `linalg.transpose` of a constant (the weight
    of ONNX's `Gemm` with `transB`) is made a `linalg.generic` first, so that
    the constant folding patterns transpose it at compile time.

    ```mlir
    %x2 = tensor.collapse_shape %x [[0, 1, 2, 3]] ...   // stays
    %y = linalg.generic {... "reduction"} ins(%x2, %w ...) // stays a GEMM
    ```
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::affine::AffineDialect"];
}

def TileTransposesPass : Pass<"tide-tile-transposes", "mlir::func::FuncOp"> {
  let summary = "Copy transposed data in cache-sized tiles on the CPU";
  let description = [{
    Runs on buffer-level host code, before the linalg ops become loops. A
    linalg op that reads its one input through a permutation that moves the
    innermost dimension (a transpose, possibly with elementwise work fused
    into it) walks one side of memory with a large stride: every access to
    the strided side misses the cache. Such ops are tiled (upstream's
    `linalg::tileLinalgOp`, parallel tile loops) over the result's innermost
    dimension and the result dimension the input's innermost one feeds, with
    `tile-size` x `tile-size` tiles, so that both sides of a tile stay in
    the cache. Transposes that keep the innermost dimension (attention's
    (0, 2, 1, 3)) copy contiguous rows already and are left alone.

    The tile loops run the input's rows in order (the loop over the result's
    innermost dimension outside), the order hardware prefetchers follow.

    With `vector-blocks`, a plain transpose (a copy through the permutation)
    of 32-bit elements is copied by 16x16 blocks held in vector registers (16
    row loads, the shuffles of an AVX-512 16x16 transpose as
    `vector.shuffle`, 16 row stores) instead of element by element, and
    results of at least `streaming-bytes` go to memory with non-temporal
    stores: a 64 MiB transpose otherwise reads every line of its result into
    the cache before overwriting it. What is left of a tile past its whole
    blocks (sides that are not multiples of 16) is copied element by
    element.

    ```mlir
    linalg.transpose ins(%x : memref<4096x4096xf32>) outs(%y : ...) permutation = [1, 0]
    // becomes
    scf.parallel (%i, %j) = (%c0, %c0) to (%c4096, %c4096) step (%c32, %c32) {
      linalg.transpose ins(%subview_x ...) outs(%subview_y ...) permutation = [1, 0]
    }
    ```
  }];
  let options = [
    Option<"tileSize", "tile-size", "int64_t", /*default=*/"64",
           "Tile size along both dimensions">,
    Option<"vectorBlocks", "vector-blocks", "bool", /*default=*/"false",
           "Copy a plain transpose of 32-bit elements by 16x16 blocks: 16 "
           "vector loads, 64 vector.shuffle, 16 vector stores">,
    Option<"streamingBytes", "streaming-bytes", "int64_t",
           /*default=*/"8388608",
           "With vector-blocks: a result of at least this many bytes (static "
           "shape, 64-byte aligned allocation) is written with non-temporal "
           "stores, which do not read the lines they overwrite into the "
           "cache; 0 never">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::affine::AffineDialect",
                           "mlir::vector::VectorDialect",
                           "mlir::arith::ArithDialect"];
}

def TileAndFuseRowsPass
    : Pass<"tide-tile-and-fuse-rows", "mlir::func::FuncOp"> {
  let summary = "Compute reductions and what consumes them row tile by row "
                "tile on the CPU";
  let description = [{
    Runs on tensor-level host code, after `tide-fuse-elementwise`. A softmax,
    a layer norm or any chain where a reduction's result is consumed next to
    the data it was reduced from makes one pass over memory per linalg op:
    the max, the exponentials, the sum and the division each read (and the
    exponentials write) the whole tensor. When the tensor is larger than the
    cache, every pass goes to memory.

    For each CPU op (the root) whose producers include a reduction, this pass
    finds the producers that can be computed one tile of the root's rows at a
    time with no work repeated: each one's tile must depend on every tiled
    loop of the root (a reduction over the rows, or a value broadcast along
    them, is computed once outside instead) and all of its users must be in
    the group. It then tiles the root's parallel loops but the innermost one
    (upstream's `scf::tileConsumerAndFuseProducersUsingSCF`, an `scf.forall`
    over tiles of about `tile-bytes` bytes of the root's rows) and fuses those
    producers into the tile, so that a tile's rows stay in the cache from the
    first reduction to the last write. Where a smaller row count (down to
    half) divides the rows, the tiles take it, so that none is partial. Two
    rows of 4000 bytes a tile ran a 4096x1000 f32 softmax 7-10% faster than
    one on an Intel Xeon (a C version of the same loops too). The tiles
    are independent: the forall becomes the parallel loop that `tide-parallelize-loops` spreads over
    threads. Contractions (matmuls, convolutions) are never fused or tiled:
    they stay whole for the BLAS. Roots smaller than `min-bytes` are left
    alone (they fit in the cache already).

    Last, in the tiles and in untiled host code alike: an elementwise op read
    by a reduction and by later ops too (softmax's exponentials, read by the
    sum and the division) is computed in the reduction's loop nest, which
    writes it out as a second result (upstream's `fuseElementwiseOps`, which
    keeps a producer's result that has other users): one pass over the rows
    instead of two. Nothing is fused when another reader comes before the
    reduction.

    Then an elementwise op that reads, element for element, an intermediate
    nothing else reads (softmax's division of the exponentials, a layer
    norm's scaling of the centred values) takes that intermediate as its
    destination and updates it in place, and the intermediate is computed
    into the op's own destination (the tile of the result): the
    exponentials are written to the output once and scaled there, not kept
    in a scratch tile that is read back (softmax over 4096x1000 f32:
    3.0 -> 2.9 ms a call with libmvec's exp).

    ```mlir
    %max = linalg.generic {reduction over d1} ins(%x) outs(%fill)
    %e = linalg.generic ins(%x, %max) ...          // exp(x - max)
    %sum = linalg.generic {reduction over d1} ins(%e) outs(%fill0)
    %y = linalg.generic ins(%e, %sum) ...          // e / sum: the root
    // becomes
    %y = scf.forall (%i) = (0) to (4096) step (2) shared_outs(%o = %init) {
      // the same ops on rows %i, %i + 1 (8000 bytes, at most tile-bytes);
      // the exponentials and the sum are one linalg.generic with two results
    }
    ```
  }];
  let options = [
    Option<"tileBytes", "tile-bytes", "int64_t", /*default=*/"8192",
           "Bytes of the root's rows per tile">,
    Option<"minBytes", "min-bytes", "int64_t", /*default=*/"262144",
           "Roots whose result has fewer bytes are not tiled">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::affine::AffineDialect",
                           "mlir::linalg::LinalgDialect"];
}

def PipelineRowLoopsPass
    : Pass<"tide-pipeline-row-loops", "mlir::func::FuncOp"> {
  let summary = "Read a row tile's next row while computing the previous one";
  let description = [{
    Runs on loop-level host code (after `convert-linalg-to-loops`, before
    `tide-annotate-inner-loops`). In a row tile (`tide-tile-and-fuse-rows`),
    a softmax's first loop nest, the row maxima, streams each row in from
    memory and does little with it, and the next nest, the exponentials and
    their sum, does the work on rows the first has brought into the cache,
    loading nothing new: the core waits for memory in one nest and leaves it
    idle in the other. Two sibling nests
    `for r in [0, R) { for j in [lb, ub, step) { ... } }` (R a constant of at
    least 2, the same inner bounds) become the first nest's row 0, then one
    nest whose row r runs the second nest's row r and the first nest's row
    r + 1 in the same inner loop, then the second nest's row R - 1:

    ```mlir
    // for r: for j: m[r] = max(m[r], x[r, j])
    // for r: for j: e = exp(x[r, j] - m[r]); y[r, j] = e; s[r] += e
    // becomes
    // for j: m[0] = max(m[0], x[0, j])
    // for r in [0, R - 1): for j: (e, y, s at row r); m[r + 1] = max(...)
    // for j: (e, y, s at row R - 1)
    ```

    Applied only where it is exact: the inner bodies hold loads, stores and
    operations without memory effects; every pair of accesses of the two
    nests that may touch the same buffer with a write is to the same view,
    indexed by each nest's row in the same dimension (so different rows
    never meet, and a row's first-nest work still runs before its second);
    the operations between the nests (fills of the second's accumulators)
    touch nothing the first does and move above it. Accumulators must be
    updates LLVM's loop vectorizer takes as reductions (integer arithmetic,
    `reassoc` sums and products, maxima, minima), so a loop that would stay
    scalar never joins a vectorizable one. Softmax over 4096x1000 f32 on
    one thread: see docs/benchmarks.md.
  }];
  let dependentDialects = ["mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect"];
}

def StreamStoresPass : Pass<"tide-stream-stores", "mlir::func::FuncOp"> {
  let summary = "Write large host results with non-temporal vector stores";
  let description = [{
    Runs on loop-level host code (after `convert-linalg-to-loops` and the
    OpenMP conversion, before `tide-annotate-inner-loops`). An ordinary store
    to a line that is not in the cache first reads the line from memory
    (read for ownership), so a loop that writes a result it never reads
    moves the result's bytes twice: a 16 MB copy took 1251-1385 us on an
    Intel Xeon with ordinary stores and 1004-1073 with non-temporal ones,
    which write whole lines without reading them. LLVM's loop vectorizer
    leaves a loop with non-temporal scalar stores scalar (x86 has them only
    for vectors at their own alignment), so this pass vectorizes such loops
    itself.

    An innermost `scf.for` of step 1 is rewritten when its one store writes
    an element of a row at the loop's index (the row's other indices
    defined outside the loop, unit stride) into a buffer that is
    - a `memref.alloc` of a static shape of at least `min-bytes` bytes,
    - never read in the function (views of it, stores into it,
      `func.return` and `memref.dealloc` are its only users): a result the
      function writes and leaves to its caller,
    and every other operation of the body is a load at the loop's index
    (unit stride, other indices from outside), a load whose indices are
    all from outside, or an `arith` or `math` operation that maps to vector
    instructions (f32 `math.exp` and `math.expm1` included, which
    `tide-expand-host-exp` computes inline on vectors too; not `math.log`
    or `math.tanh`, which would be called per element), none of them on
    `index` values or on f16/bf16 (emulated in f32 later). The loop becomes three: scalar
    iterations until the stored element's address is a multiple of
    `vector-bytes`, then vector iterations (`vector.load` of the inputs,
    `vector.broadcast` of what does not depend on the index, computed once
    before the loop, the operations on vectors, a `vector.store` with
    `nontemporal` and the alignment), then scalar iterations for the rest.
    After the outermost operation holding such a loop, an `sfence` (the
    intrinsic `llvm.x86.sse.sfence`) orders the calling thread's streamed
    stores before its later ones; in parallel code the other threads' are
    ordered by the locked operations of the OpenMP barrier that ends their
    loop.

    Only results nothing reads in the function: an intermediate written
    with non-temporal stores would be read back from memory rather than
    from the cache by its reader. Elementwise ops over 8-16 MiB of f32 on
    an Intel Xeon (one and two threads): 0.78-0.82 of the time with
    ordinary stores (docs/benchmarks.md). A softmax whose exponentials were
    kept in the row tile's buffer so that its result could be written once,
    streamed, was 1.2x slower than the one that updates its result in place
    (`tide-tile-and-fuse-rows`), so the softmax keeps that; its in-place
    loops read the result and are not streamed. x86 only.

    ```mlir
    scf.for %j = %c0 to %c1000 step %c1 {
      %a = memref.load %x[%r, %j] : memref<4096x1000xf32>
      %y = arith.mulf %a, %s : f32
      memref.store %y, %out[%r, %j] : memref<4096x1000xf32>
    }
    // becomes: scalar iterations to the first 64-byte boundary of %out's
    // row, then
    scf.for %j = %start to %end step %c16 {
      %a = vector.load %x[%r, %j] : memref<4096x1000xf32>, vector<16xf32>
      %y = arith.mulf %a, %s16 : vector<16xf32>
      vector.store %y, %out[%r, %j] {alignment = 64, nontemporal = true} : ...
    }
    // then scalar iterations to 1000
    ```
  }];
  let options = [
    Option<"minBytes", "min-bytes", "int64_t", /*default=*/"8388608",
           "Results smaller than this many bytes keep ordinary stores (they "
           "may stay in the cache for the next reader); 0 never streams">,
    Option<"vectorBytes", "vector-bytes", "int64_t", /*default=*/"64",
           "Bytes of a vector and of the streamed stores' alignment: 64 for "
           "AVX-512, 32 for AVX2, 16 for SSE">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::vector::VectorDialect",
                           "mlir::LLVM::LLVMDialect"];
}

def AnnotateInnerLoopsPass
    : Pass<"tide-annotate-inner-loops", "mlir::func::FuncOp"> {
  let summary = "Keep the innermost CPU loops whole for LLVM's loop vectorizer";
  let description = [{
    Runs on loop-level host code, before `convert-scf-to-cf`. LLVM's O3
    pipeline fully unrolls loops of a few dozen iterations (a row of a 56x56
    image, the copy loop of an im2col) before its loop vectorizer runs, and
    the SLP vectorizer cannot vectorize the unrolled copies when loads and
    stores may alias (it adds no run-time checks): such loops stay scalar.
    Every innermost `scf.for` whose trip count is unknown or at least
    `min-trip-count` gets `llvm.loop_annotation` with `unroll<disable = true>`
    (which `convert-scf-to-cf` puts on the loop's back edge), so the loop
    vectorizer sees the loop, vectorizes it with run-time alias checks, and
    interleaves it `interleave` times (4: four vectors per iteration, where
    LLVM picks one for a loop whose unrolling is disabled; a column sum
    `out[j] += x[i][j]` over 4096x2048 f32 took 1.74 ms a call with one,
    0.90 with four); loops that accumulate (a loop-carried value, or a
    store to the same element at every iteration: a row sum or maximum) are
    interleaved twice (`interleave<count = 2>`), two vector accumulators where
    LLVM picks one for a reduction nested in another loop (softmax over
    4096x1000 f32: 2.33 -> 2.11 ms a call). Shorter loops (a 3x3 window) are
    left to LLVM.
    `tide-apply-loop-annotations` makes the attribute LLVM loop metadata.
  }];
  let options = [
    Option<"minTripCount", "min-trip-count", "int64_t", /*default=*/"16",
           "Innermost loops with fewer known iterations are not annotated">,
    Option<"interleaveCount", "interleave", "int64_t", /*default=*/"4",
           "Vectors per iteration of the loops that do not accumulate "
           "(0: LLVM's choice)">,
  ];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def ApplyLoopAnnotationsPass
    : Pass<"tide-apply-loop-annotations", "mlir::ModuleOp"> {
  let summary = "Turn llvm.loop_annotation attributes into loop metadata";
  let description = [{
    Runs on LLVM-dialect code. `convert-scf-to-cf` carries an `scf.for`'s
    `llvm.loop_annotation` attribute to the branch of its back edge and
    `convert-cf-to-llvm` keeps it there as a discardable attribute, which
    translation to LLVM IR ignores; this pass moves it into the `llvm.br`'s
    `loop_annotation` property, which becomes `!llvm.loop` metadata.
  }];
}

def ConvToLibraryPass : Pass<"tide-conv-to-library", "mlir::ModuleOp"> {
  let summary = "Run f32 host convolutions through oneDNN";
  let description = [{
    Replaces every buffer-level named linalg convolution that
    `convert-tide-to-linalg` marked with `tide.conv_pads` (f32 convolutions
    on the host: `linalg.conv_1d_ncw_fcw`, `conv_2d_nchw_fchw`,
    `conv_3d_ncdhw_fcdhw`, `conv_2d_ngchw_gfchw`) with a call to Tide's
    runtime `tide_rt_cpu_conv_f32` (lib/Runtime/Dnnl.c), which runs oneDNN,
    on unranked views of the NC<spatial> buffers:

     - grouped convolutions are handed over ungrouped (the sources of the
       group-splitting expand_shapes), with the group count;
     - the zero-filled padded copy of the input that tensor-level padding
       bufferizes to is erased: oneDNN reads the real input and pads it
       itself (before and after, as recorded in `tide.conv_pads`);
     - a zero fill of the output right before the convolution is erased
       (`accumulate` = 0; otherwise oneDNN adds to the output);
     - weights that are (views of) a constant `memref.global` are flagged
       constant: the runtime reorders them into oneDNN's preferred blocked
       layout once and keeps that copy;
     - `threads` (tide-compile's --cpu-threads, 0 for none) is passed on:
       the library runs on `tide_rt_cpu_team_size`'s thread count;
     - the elementwise consumer that follows an ungrouped, non-accumulating
       convolution is fused into it when it computes
       `relu?((y + bias[f]) + residual)` (each part optional, the adds in
       either operand order, nothing else reading `y`, only allocations,
       views, constants and deallocations of other buffers between): the
       call becomes `tide_rt_cpu_conv_epilogue_f32` with the bias, the
       residual and flags (bias 1, residual 2, ReLU 4), placed where the
       consumer was and writing its output (which may be the input's buffer
       or the residual's: the runtime copies what it must read first). oneDNN
       computes them as the convolution's bias and its sum and ReLU
       post-ops, in that order, so nothing is re-associated.

    ```mlir
    linalg.fill ins(%zero : f32) outs(%y : memref<1x8x4x4xf32>)
    linalg.conv_2d_nchw_fchw {tide.conv_pads = array<i64: 0, 0, 0, 0>, ...}
        ins(%x, %w : ...) outs(%y : memref<1x8x4x4xf32>)
    // becomes
    call @tide_rt_cpu_conv_f32(%xu, %wu, %yu, %groups, %accumulate,
        %constant, %threads, <pads before, after, strides, dilations>)
    ```
  }];
  let options = [
    Option<"threads", "threads", "int64_t", /*default=*/"0",
           "The module's compiled thread count (0: none), passed to the "
           "runtime">,
  ];
  let dependentDialects = ["mlir::func::FuncDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect"];
}

def MatmulToLibraryPass : Pass<"tide-matmul-to-library", "mlir::ModuleOp"> {
  let summary = "Run f32/f64 matmuls through the host BLAS or oneDNN";
  let description = [{
    Replaces every buffer-level `linalg.matmul` on f32 memrefs with a call
    of `tide_rt_cpu_matmul_f32` (oneDNN, declared in
    `include/tide/Runtime/RuntimeSymbols.h`), and every one on f64 with
    `tide_rt_gemm_f64` (OpenBLAS; f32 too with `dnnl=false`): the "library"
    kernel of the CPU's kernel table. A right operand that is a constant
    `memref.global` (a linear layer's weight) is flagged constant: oneDNN
    packs it once and keeps it, where the BLAS would pack it again at every
    call; other weights are read as they are. oneDNN runs on Tide's own
    OpenMP threads (OpenBLAS's threads spun in `sched_yield` on the cores
    oneDNN's calls and Tide's loops needed). A zero fill right before
    becomes `accumulate` = 0. `threads` is passed on as for
    `tide-conv-to-library`. Batched matmuls (the `linalg.generic` that
    `convert-tide-to-linalg` writes, batch dims broadcast NumPy-style) call
    `tide_rt_cpu_matmul_batched_f32` on 3-D (batch, rows, cols) views, batch
    dims joined while they step uniformly (attention's per-head products:
    one call, which oneDNN splits over its threads), the rest host loops;
    a right operand shared by every batch index folds the batch into the
    rows. With the BLAS: 2-D views, one call over all rows when the rows
    fold, else one per batch index in host loops. Runs after bufferization;
    other element types stay generated loops.
  }];
  let options = [
    Option<"threads", "threads", "int64_t", /*default=*/"0",
           "The module's compiled thread count (0: none), passed to oneDNN's "
           "calls">,
    Option<"dnnl", "dnnl", "bool", /*default=*/"true",
           "f32 matmuls through oneDNN (false: OpenBLAS for every GEMM; the "
           "module then does not need libdnnl)">,
  ];
  let dependentDialects = ["mlir::func::FuncDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::LLVM::LLVMDialect"];
}

def AttachGpuTargetPass : Pass<"tide-attach-gpu-target", "mlir::ModuleOp"> {
  let summary = "Attach the NVVM target of the module's GPU to its gpu.modules";
  let description = [{
    Reads the chip of the first GPU of the module's target (`tide.target`,
    recorded by placement; the default target when the module has none) and
    attaches `#nvvm.target<chip = ...>` to every `gpu.module` with upstream
    `nvvm-attach-target`. A `chip=` option overrides it and must agree with
    the module's target. A chip the CUDA toolkit's ptxas cannot build for
    (CUDA 13 dropped sm_50..sm_72, the chips of the built-in theano-0.7 and
    tensorflow-0.7 targets) is an error that says so, before any GPU code is
    generated; such targets still serve for placement and reports.

    ```mlir
    // module attributes {tide.target = #tide.target<name = "h200", ...>}
    gpu.module @k [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">] {
    ```
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"",
           "GPU architecture (default: the chip of the module's target)">,
    Option<"features", "features", "std::string", /*default=*/"\"+ptx80\"",
           "PTX features (PTX ISA version)">,
    Option<"toolkit", "toolkit", "std::string", /*default=*/"",
           "CUDA toolkit root whose ptxas must support the chip (empty: no check)">,
  ];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::NVVM::NVVMDialect"];
}

def AccurateMathToLibmPass
    : Pass<"tide-accurate-math-to-libm", "mlir::ModuleOp"> {
  let summary = "Call libm for math ops that the LLVM lowering would "
                "compute inaccurately";
  let description = [{
    `convert-math-to-llvm` expands `math.expm1` into `exp(x) - 1`, which
    loses every significant digit near 0 (expm1(-1e-7) 19% off in f32,
    expm1(-1e-30) = 0), and `math.log1p` into `log(1 + x)` likewise. This
    pass turns those two ops on f32 and f64 scalars into calls to libm's
    `expm1f`/`expm1` and `log1pf`/`log1p` (f16/bf16 are extended to f32
    before, by `math-extend-to-supported-types`; in Tide's pipelines f32
    `expm1` is computed inline by `tide-expand-host-exp` before this pass). Runs on host code before
    `convert-math-to-llvm`; GPU kernels call libdevice's `__nv_expm1f` and
    `__nv_log1pf` already.
  }];
  let dependentDialects = ["mlir::func::FuncDialect"];
}

def ExpandHostExpPass : Pass<"tide-expand-host-exp", "mlir::ModuleOp"> {
  let summary = "Compute host f32 exp and expm1 inline, in a form the loop "
                "vectorizer vectorizes";
  let description = [{
    `convert-math-to-llvm` turns `math.exp` into `llvm.exp`, which the loop
    vectorizer maps onto libmvec's `_ZGVeN16v_expf`: a call per vector, with
    every vector register clobbered around it (a softmax's running sum is
    spilled and reloaded at each call). This pass expands each scalar f32
    `math.exp` outside GPU code into arithmetic that vectorizes in place
    (and each 1-D vector one, of the loops `tide-stream-stores` vectorizes,
    into the same arithmetic on vectors):

    - `k = roundeven(x * log2(e))`, `r = x - k * ln(2)` in two steps
      (Cody-Waite: ln(2) split into a high part exact in 9 bits and a low
      part), so `r` is in [-ln(2)/2, ln(2)/2];
    - `e^r` by a degree-7 polynomial in Horner form, 7 FMAs (Cephes' expf
      coefficients);
    - `e^x = e^r * 2^k`: with `ldexp`, one `llvm.ldexp` (AVX-512's
      VSCALEFPS once vectorized); without (the vectorizer would call libm's
      `ldexpf` per element), as `e^r * 2^k1 * 2^k2` with `k1 = k >> 1`,
      `k2 = k - k1`, both normal powers of two built from the bits for
      every `k` in [-150, 129]. Either way results that underflow are
      rounded to subnormals once (not flushed to zero) and those that
      overflow are `inf`. (VSCALEFPS takes its exponent as a float: after
      LLVM's vectorizers, `tide-compile` gives it the float `k` the
      reduction computed instead of converting the integer back:
      `scaleByFloatExponents`, lib/Compiler/FloatExponentScaling.cpp);
    - `x` is clamped to [-104, 89] first (beyond it the result is 0 or
      `inf`); a NaN `x` stays NaN through every step (`k` is read from the
      bits of `x * log2(e) + 1.5 * 2^23`, with no float-to-integer
      conversion).

    Checked against `exp` in double precision on f32 inputs in [-105, 89]
    (every 7th bit pattern, 3.2e8 inputs): at most 0.89 ulp from the exact
    result.

    `math.expm1` (ELU's) shares the reduction: `e^r - 1 = r + r^2 q(r)`
    with the same coefficients (never a difference near 0), then
    `2^k (e^r - 1) + (2^k - 1)` as one FMA for `k` in [-25, 24] (2^k - 1
    exact, -1 below), `(e^r) 2^k - 1` above; `-0` stays `-0`. At most 1.43
    ulp from the exact result over every 13th bit pattern in [-110, 89],
    0.83 ulp on the inputs `tide.elu` gives it (x <= 0). It replaced libm's
    `expm1f` (`tide-accurate-math-to-libm`) and libmvec's vector variant,
    which sent some lanes to the scalar function: the f32 MLP at batch 256
    took 1.30 ms a call on 1 thread, 0.91 ms inline.

    f16 and bf16 are computed in f32 by then
    (`math-extend-to-supported-types`); f64 keeps libm's `expm1`, and
    libmvec's `exp` unless `f64` is set: then f64 `exp` takes the same steps
    in 64 bits (fdlibm's split of ln(2), `k` through the 1.5 * 2^52 shift,
    the Taylor polynomial of degree 13 in 13 FMAs, the scale built in the
    52-bit exponent field or `llvm.ldexp`), at most 0.89 ulp from `expl`
    over 3e6 inputs in [-746, 710]. Whether that is faster than libmvec
    depends on the CPU (benchmarks.md). Runs on host code before
    `convert-math-to-llvm`.
  }];
  let options = [
    Option<"ldexp", "ldexp", "bool", /*default=*/"false",
           "Scale by 2^k with llvm.ldexp (for CPUs with AVX-512, where it "
           "vectorizes to VSCALEFPS)">,
    Option<"f64", "f64", "bool", /*default=*/"false",
           "Also f64 exp (degree 13; faster than libmvec's on some CPUs, "
           "slower on others: the CPU pipeline decides)">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::LLVM::LLVMDialect",
                           "mlir::math::MathDialect"];
}

def HostAllocationChecksPass
    : Pass<"tide-host-allocation-checks", "mlir::ModuleOp"> {
  let summary = "Host allocations that fail end with a message, not a crash";
  let description = [{
    With `finalize-memref-to-llvm{use-generic-functions}`, host code
    allocates through `_mlir_memref_to_llvm_alloc`,
    `_mlir_memref_to_llvm_aligned_alloc` and `_mlir_memref_to_llvm_free`.
    This pass defines them in the module (internal linkage, so modules
    linked together do not clash) over `malloc`, `aligned_alloc` and
    `free`, and checks each allocation: when one fails, the module calls the
    function whose address is in its global
    `tide_host_out_of_memory_handler` (Tide's runner sets it when it loads
    the module, and turns the failure into an error of the call), or, with
    none set, writes `tide: error: out of host memory: cannot allocate N
    bytes` to standard error and exits with status 1. Without the check a
    failed `malloc` returned null and the first store faulted.
    Each successful allocation and each release also calls the function in
    the global `tide_host_on_allocate` or `tide_host_on_free` with the
    pointer, when one is set (null by default): the runner keeps the live
    allocations of a call that way and frees them when the call fails.
    Runs on the LLVM dialect, after the host code was converted.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def LowerHostAssertsPass : Pass<"tide-lower-host-asserts", "mlir::ModuleOp"> {
  let summary = "Failed run-time checks of host code end the call with an error";
  let description = [{
    The lowering checks at run time what only run time knows (sizes that
    must agree, a reshape that must keep the element count) with
    `cf.assert`, whose upstream lowering aborts the process. This pass turns
    each `cf.assert` of the module's host functions into a branch to a call
    of `tide_host_check_failed` with the assert's message, a function it
    defines (internal linkage): it calls the function whose address is in
    the global `tide_host_check_failed_handler` (Tide's runner sets it when
    it loads the module, and turns the failure into an error of the call),
    or, with none set, writes `tide: error: run-time check failed: MESSAGE`
    to standard error and exits with status 1. Runs on host code before
    `convert-cf-to-llvm`; a module without asserts is left alone.
  }];
  let dependentDialects = ["mlir::cf::ControlFlowDialect",
                           "mlir::LLVM::LLVMDialect"];
}

def GpuCorrectlyRoundedSqrtPass
    : Pass<"tide-gpu-correctly-rounded-sqrt", "mlir::gpu::GPUModuleOp"> {
  let summary = "Compute f32 square roots in GPU kernels with IEEE rounding";
  let description = [{
    `convert-gpu-to-nvvm` lowers an f32 `math.sqrt` to a call to libdevice's
    `__nv_sqrtf`, which takes the approximate `sqrt.approx.f32` unless the
    module sets `__CUDA_PREC_SQRT` (MLIR does not): results up to an ulp or
    two off the CPU's (a random program found x * sqrt(y) 2 ulp away from
    NumPy). Tide never lowers precision silently, so this pass, run on each
    `gpu.module` after `convert-gpu-to-nvvm`, turns every call to
    `__nv_sqrtf` into `llvm.intr.sqrt`, which the NVPTX backend emits as the
    correctly rounded `sqrt.rn.f32` (f64 square roots are `sqrt.rn.f64`
    already).

    ```mlir
    %r = llvm.call @__nv_sqrtf(%x) : (f32) -> f32   // before
    %r = llvm.intr.sqrt(%x) : (f32) -> f32          // after
    ```
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def SplitColumnReductionsPass
    : Pass<"tide-split-column-reductions", "mlir::func::FuncOp"> {
  let summary = "Split host column and full reductions into parts the "
                "threads share";
  let description = [{
    Runs on tensor-level host code. A reduction over the outermost loop of
    its op with parallel loops inside (a column sum: `sum(x, axis=0)` over
    rows x cols) lowers to a sequential loop over the rows around a parallel
    loop over the columns, which `tide-parallelize-loops` can only run on
    one thread (a parallel region per row would cost more than the row).
    This pass applies upstream's `linalg::splitReduction`: the rows are cut
    into K parts (the largest power of two up to 64 that divides them and
    leaves each part at least 256 rows, but up to 16 parts where the rows
    allow parts of at least 2 rows), a first op reduces each part into a
    row of a K x cols tensor (parallel over the parts: each thread reads
    whole, contiguous rows), and a second, small op reduces those K rows.
    The K partial rows are written, read back and combined, K / rows of the
    input's traffic again per pass: a column sum over 4096x2048 f32 took
    1.035x its unsplit time on one thread in 64 parts, 1.017x in 16.

    Full reductions get the same treatment: one loop reduced into a scalar
    (the sum of a vector, an exp-and-sum) is cut into K contiguous slices,
    reduced in parallel into a K-element tensor, then combined; a reduction
    of every loop of a several-loop op into a scalar, reading each operand
    whole and in order (the sum of a matrix), is first collapsed into one
    loop (upstream's `linalg::collapseOpIterationDims`); one into a
    1-element tensor that keeps its rank (keepdims) reduces into a rank-0
    tensor, reshaped back after.

    Only reductions whose combiner may be applied in another order are split
    (integer ops, float min/max, float sums and products with `reassoc`,
    which Tide's float sums carry), of at least `min-elements` iterations,
    with static sizes. The result is the same for every thread count (the
    parts are fixed at compile time).
  }];
  let options = [
    Option<"minElements", "min-elements", "int64_t", /*default=*/"1048576",
           "Reductions with fewer iterations are left alone">,
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def ParallelizeLoopsPass
    : Pass<"tide-parallelize-loops", "mlir::func::FuncOp"> {
  let summary = "Choose which loops of a function run across threads";
  let description = [{
    Runs on the loops `convert-linalg-to-parallel-loops` makes (one
    `scf.parallel` over the parallel dimensions of each linalg op, `scf.for`
    over its reduction dimensions), before `convert-scf-to-openmp`. For every
    outermost `scf.parallel` without reductions:

    - nested `scf.parallel` loops become `scf.for` nests (one parallel region
      per op: nested regions would only add overhead);
    - only the outer dimensions stay parallel: leading unit dimensions, then
      the first other dimension, then more only while fewer than 64 outer
      iterations are known and the innermost dimension is not reached. The
      inner dimensions become `scf.for` loops, which the LLVM loop vectorizer
      vectorizes inside each thread's share;
    - a nest whose work (innermost iterations, statically known) is below
      twice `grain` becomes `scf.for` loops: it stays on the calling thread
      with no threading code at all;
    - where the innermost dimension stays parallel (an elementwise op over a
      vector), it is split into chunks of a power of two from 4096 down to
      256 elements that divides its static trip count, each chunk an
      `scf.for` that `tide-annotate-inner-loops` marks for the loop
      vectorizer (exp over 230400 f32 on one thread: 61 -> 42 us); a 1-D
      loop that no such chunk divides, of at least 8192 iterations, gets
      chunks of 4096 and an `scf.for` over the rest after them (exp over
      230401 f32: 0.87 and 0.84 of the time of one parallel loop over the
      elements, on one and two threads).

    Nests of unknown size stay parallel; `tide-omp-team-size` decides their
    thread count at run time.

    ```mlir
    // before: 4x1000 elements, grain 1024
    scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c1000) step (%c1, %c1) {...}
    // after
    scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
      scf.for %j = %c0 to %c1000 step %c1 {...}
    }
    ```
  }];
  let options = [
    Option<"grain", "grain", "int64_t", /*default=*/"32768",
           "Fewest innermost iterations per thread">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect"];
}

def HoistAllocasPass : Pass<"tide-hoist-allocas", "mlir::ModuleOp"> {
  let summary = "Allocate the stack buffers of loop bodies once per thread";
  let description = [{
    Host buffers of at most 1 KiB that do not escape live on the stack
    (`promote-buffers-to-stack` in the CPU pipeline): a row tile's maxima
    and sums (`tide-tile-and-fuse-rows`) were two `malloc`s and `free`s per
    tile. Those buffers are allocated in loop bodies, where a
    `memref.alloca` runs at every iteration: inside an OpenMP loop,
    `convert-scf-to-openmp` wraps the body in a `memref.alloca_scope`, which
    cannot hold the blocks the loops inside it become; in a serial loop the
    stack grows at each iteration. An alloca's contents are undefined, so
    one buffer per thread, reused by every iteration, computes the same:
    each statically sized `memref.alloca` inside a loop (`scf.for`,
    `scf.parallel`, `scf.while`, `scf.forall`, `omp.loop_nest`) moves to the
    start of the region one thread runs once, the enclosing `omp.parallel`'s
    or the function's. Alloca scopes left empty are then inlined by the
    canonicalizer. Runs after `convert-scf-to-openmp`, before `scf-to-cf`.

    ```mlir
    omp.parallel {
      omp.wsloop { omp.loop_nest (%i) : index = (%c0) to (%n) step (%c1) {
        memref.alloca_scope {
          %m = memref.alloca() : memref<8xf32>   // every iteration
          ...
    // becomes
    omp.parallel {
      %m = memref.alloca() : memref<8xf32>       // once per thread
      omp.wsloop { omp.loop_nest ... { memref.alloca_scope { ... } } }
    ```
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

def OutlineLoopNestsPass : Pass<"tide-outline-loop-nests", "mlir::ModuleOp"> {
  let summary = "Move the loop nests of very large host functions into functions of their own";
  let description = [{
    A model imported with its recurrences unrolled (RNNs, LinearAttention)
    or simply large becomes one host function with thousands of loop nests,
    and LLVM's code generation grows faster than linearly with a function's
    size (register allocation, machine CSE, strength reduction): an unrolled
    128-step LinearAttention spent most of its 70 s compile there. In a
    function with at least `min-nests` top-level loop nests (`scf.for`,
    `scf.parallel`, `omp.parallel`), each nest moves into a private
    `noinline` function of its own, called in its place: the values it uses
    from outside become arguments, except constants, which are cloned into
    it (loop bounds stay known to LLVM). Results of a nest (a top-level
    loop's carried values) are returned. The new functions have internal
    linkage.
    Runs after the host loops exist, before `scf-to-cf`.

    ```mlir
    scf.for %i = %c0 to %c64 step %c1 { ... %a ... }
    // becomes
    func.call @main_nest3(%a) : (memref<64xf32>) -> ()
    func.func private @main_nest3(%a: memref<64xf32>)
        attributes {passthrough = ["noinline"], llvm.linkage = #llvm.linkage<internal>} {
      %c0 = arith.constant 0 : index ...
      scf.for %i = %c0 to %c64 step %c1 { ... %a ... }
      return
    }
    ```
  }];
  let options = [
    Option<"minNests", "min-nests", "int64_t", /*default=*/"256",
           "Outline the nests of functions with at least this many top-level "
           "loop nests (0: never)">
  ];
  let dependentDialects = ["mlir::func::FuncDialect",
                           "mlir::LLVM::LLVMDialect"];
}

def OmpTeamSizePass : Pass<"tide-omp-team-size", "mlir::ModuleOp"> {
  let summary = "Size every OpenMP parallel region by its work at run time";
  let description = [{
    Runs after `convert-scf-to-openmp`. Every `omp.parallel` without a
    `num_threads` clause gets one computed before it by Tide's runtime,
    `tide_rt_cpu_team_size(work, grain, threads)` (declared in
    `include/tide/Runtime/RuntimeSymbols.h`): the run-time thread count
    (`TIDE_NUM_THREADS`, else `threads` when positive, else the CPUs of the
    process's affinity mask), but no more than `work / grain` threads, where
    `work` is the region's innermost iteration count (the `omp.loop_nest`
    trip counts times those of the `scf.for` loops inside it whose bounds are
    known before the region). Its `if` clause is `num_threads > 1`, so a
    small nest runs on the calling thread without waking the thread pool.

    ```mlir
    %n = func.call @tide_rt_cpu_team_size(%work, %grain, %threads)
        : (i64, i64, i32) -> i32
    %many = arith.cmpi sgt, %n, %c1_i32 : i32
    omp.parallel if(%many) num_threads(%n : i32) {...}
    ```
  }];
  let options = [
    Option<"grain", "grain", "int64_t", /*default=*/"32768",
           "Fewest innermost iterations per thread">,
    Option<"threads", "threads", "int64_t", /*default=*/"0",
           "Threads when TIDE_NUM_THREADS is unset (0: the CPUs of the "
           "affinity mask)">,
  ];
  let dependentDialects = ["mlir::func::FuncDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::omp::OpenMPDialect"];
}

#endif // TIDE_LOWERING_PASSES_TD
