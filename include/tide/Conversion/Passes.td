//===- Passes.td - Tide conversions ------------------------*- tablegen -*-===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_CONVERSION_PASSES_TD
#define TIDE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTideToLinalgPass : Pass<"convert-tide-to-linalg"> {
  let summary = "Lower every tide op to linalg, tensor, arith and math";
  let description = [{
    Elementwise ops (with NumPy broadcasting in the indexing maps),
    `broadcast_to` and `cast` become `linalg.generic`; reductions become
    `linalg.generic` with reduction loops (arg-reductions carry the index
    alongside the value; `reduce_mean` divides by the run-time count);
    2-D `matmul` becomes `linalg.matmul`, batched matmul a `linalg.generic`;
    `transpose` becomes `linalg.transpose`, `concat` `tensor.concat`, `slice`
    `tensor.extract_slice`, `reshape` `tensor.reshape`, `constant`
    `arith.constant`; `softmax`/`log_softmax` are decomposed first, except a
    last-axis softmax placed on a GPU, which becomes `linalg.softmax` (one
    fused kernel there). A
    `tide.transfer` becomes `bufferization.alloc_tensor() copy(%x)` in the
    destination's memory space (`0` for the host; a GPU's is the device
    itself, `#tide.device<cuda:0>`). Every op created for a tide
    op carries that op's `tide.device`, so later passes know where it runs.

    Unsigned integers (`ui8`..`ui64`) become signless (`i8`..`i64`, the same
    bits): their ops use the unsigned arith ops where the semantics differ
    (`divui`, `remui`, `cmpi ult/ule/ugt/uge`, `maxui`/`minui`, `extui`,
    `uitofp`, `fptoui`), and function signatures, returns and calls are
    converted, so no unsigned type is left after the pass.

    Ops placed on a GPU are an error unless `gpu=true` (set by
    `tide-gpu-pipeline`): the CPU pipeline cannot run them.

    f32 `conv` not placed on a GPU that oneDNN runs (1-3-D, grouped only in
    2-D, static weight shape) becomes the named linalg convolution over the
    zero-padded input, marked with `tide.conv_pads` (as for cuDNN), which
    `tide-conv-to-library` turns into a call of oneDNN after bufferization.
    The other f32 and the f64 ones become GEMMs (`linalg.matmul` per
    image and group, which `tide-matmul-to-library` sends to the host BLAS)
    over the input itself when the convolution is GEMM-shaped (1x1, stride 1,
    no padding) or over an im2col copy of it; a depthwise one becomes one
    `linalg.generic` whose innermost loops run along the output rows.
    `conv-gemm=false` keeps the generic loop nest for all of those.

    ```mlir
    %y = tide.exp %x : tensor<4xf32>
    // becomes
    %e = tensor.empty() : tensor<4xf32>
    %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %0 = math.exp %in : f32
      linalg.yield %0 : f32
    } -> tensor<4xf32>
    ```
  }];
  let options = [
    Option<"gpu", "gpu", "bool", /*default=*/"false",
           "Lower GPU-placed ops and transfers too (for tide-gpu-pipeline)">,
    Option<"convGemm", "conv-gemm", "bool", /*default=*/"true",
           "CPU f32 convolutions through oneDNN, the others through im2col "
           "and GEMMs, depthwise ones as row loops (false: the generic loop "
           "nest)">,
    Option<"dnnl", "dnnl", "bool", /*default=*/"true",
           "CPU f32 convolutions through oneDNN (false: im2col and GEMMs; "
           "the module then does not need libdnnl)">,
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::bufferization::BufferizationDialect",
    "mlir::cf::ControlFlowDialect", "mlir::linalg::LinalgDialect",
    "mlir::math::MathDialect", "mlir::scf::SCFDialect",
    "mlir::tensor::TensorDialect"
  ];
}

def DonateBuffersPass : Pass<"tide-donate-buffers", "mlir::ModuleOp"> {
  let summary = "Compute a result in the buffer of a donated argument";
  let description = [{
    Runs on tensor-level IR after elementwise fusion, before bufferization.
    An argument marked `tide.donate` gives its buffer to the function
    (`tide-export-abi` lets bufferization write it). When the argument's last
    use is an elementwise linalg op that reads it through the identity map
    and writes a new tensor of the same type, that op writes into the
    argument instead, so bufferization computes the result in place and the
    result aliases the argument (on the host or, for a GPU-resident
    argument, on the GPU). A donation that cannot be used is reported with a
    warning naming the argument and the reason.

    ```mlir
    func.func @f(%x: tensor<8xf32> {tide.donate}) -> tensor<8xf32> {
      %e = tensor.empty() : tensor<8xf32>
      %y = linalg.generic ... ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) ...
      // becomes ... outs(%x : tensor<8xf32>)
    ```
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def AssignMemorySpacesPass
    : Pass<"tide-assign-memory-spaces", "mlir::ModuleOp"> {
  let summary = "Make GPU values bufferize into their GPU's memory space";
  let description = [{
    Runs on tensor-level IR after `convert-tide-to-linalg` and elementwise
    fusion, before one-shot bufferization. An op is on the GPU when its
    `tide.device` says so, or when it is untagged (created by fusion) and
    reads a GPU value; an empty tensor, fill or constant is on the GPU when a
    GPU op uses it. Each GPU use of `tensor.empty` becomes
    `bufferization.alloc_tensor() {memory_space = #tide.device<cuda:0>}` (the
    memory space of a GPU is the device attribute itself), a tensor constant
    read by a GPU op is copied to the device once, and a GPU `tensor.concat`
    is decomposed into insert_slice ops into such an allocation.
    Bufferization then puts exactly the GPU values in GPU memory. A fill that several
    ops write into (CSE merges equal fills) is cloned for each of them, so
    that bufferization does not copy the filled buffer.

    Ops placed on a GPU other than `cuda:0` are an error: the lowering drives
    one GPU.
  }];
  let dependentDialects = ["mlir::bufferization::BufferizationDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::tide::TideDialect"];
}

def ResidentResultsPass : Pass<"tide-resident-results", "mlir::ModuleOp"> {
  let summary = "Return GPU-resident results in GPU memory, without a copy";
  let description = [{
    Runs right after one-shot bufferization (before buffer deallocation).
    Bufferization gives function results the default memory space, so a GPU
    value returned as a result marked `tide.resident = #tide.device<cuda:0>`
    is first copied into a new host buffer. This pass returns the GPU buffer
    instead (the result type takes the GPU's memory space) and drops the
    copy: the
    caller receives a device pointer, as the module's metadata says.
  }];
  let dependentDialects = ["mlir::tide::TideDialect"];
}

def ConvertLinalgToGPUPass : Pass<"convert-linalg-to-gpu", "mlir::ModuleOp"> {
  let summary = "Turn buffer-level work on GPU memory into GPU kernels";
  let description = [{
    Runs after bufferization and buffer deallocation. Everything that touches
    a memref in a GPU's memory space (`#tide.device<cuda:0>`, or a
    GPU-resident argument) becomes GPU code:

    - a linalg op with only parallel loops: one `gpu.launch` with one thread
      per iteration point (fused elementwise chains are one kernel; NumPy
      broadcasting is in the indexing maps); over contiguous buffers without
      broadcasting, one thread per 16-byte vector (aligned vector loads and
      stores);
    - a reduction whose payload folds each element into the accumulator with
      one associative op (add, mul, max, min, and, or, xor): a block-parallel
      reduction (threads stride over the reduced elements, `gpu.all_reduce`
      combines them). With few outputs, the reduced range is split over up to
      1024 blocks and a second kernel combines the partials. Narrow integers
      accumulate in i32 (the same result modulo 2^n), f16/bf16 in f32;
    - an arg-reduction (argmax/argmin as `convert-tide-to-linalg` writes it:
      the first element taken, then a strictly better one or the first NaN):
      block-parallel too. Each thread keeps its best element and the first
      index of it (four loads in flight per iteration); one `gpu.all_reduce`
      finds the best value (NaN-propagating), a second the smallest index
      holding it; long rows are split over blocks as above;
    - a batched matmul (its `linalg.generic`, NumPy-broadcast batch dims) on
      f16, bf16, f32 or f64: calls into cuBLAS's strided batched GEMM over
      3-D views (stride 0 for a broadcast operand), in a host loop over any
      outer batch dims;
    - other reductions: one thread per output;
    - `linalg.softmax` over the last dimension (what a GPU softmax becomes):
      a warp (rows of at most 1024 f32-computed columns) or a block per row,
      max and sum of exponentials combined by shuffles or `gpu.all_reduce`,
      one read of the row from memory and one write;
    - attention (`fuse-attention`, with `use-library`): a batched matmul
      Q K^T, an optional elementwise generic of steps (multiply or divide by
      a constant, add a mask, each rounded to the element type), a softmax
      over the keys and a batched matmul by V, on f16/bf16 with a head dim
      of 32 or 64 and at most 128 keys, where nothing else reads the
      scores: one call of the runtime's fused attention kernel (tensor
      cores, the scores in registers, rounded where these ops round);
    - row groups (`fuse-rows`, first): a run of linalg ops over one row space
      [rows x cols] (reductions of the trailing dimensions, elementwise ops
      over the rows or over per-row values, softmax) is one kernel with a
      warp or a block per row. Per-row values stay in registers; elementwise
      results that only the group reads are recomputed where read instead
      of stored; independent reductions share a pass over the row. A layer
      normalization (mean, variance, normalize, scale, shift) is one kernel
      with two reduction passes and one write, and an attention softmax
      takes the scale and mask before it;
    - a 2-D `linalg.matmul` on f16, bf16, f32 or f64: a call into Tide's
      runtime, which runs cuBLAS on the GPU (`use-library=false` generates
      a kernel instead);
    - `memref.alloc`/`dealloc`/`copy` on GPU memory: `gpu.alloc`/`dealloc`/
      `memcpy` (a copy between strided GPU views becomes a kernel); a copy
      of a constant global calls the runtime, which uploads the constant
      once and copies it on the device; where the buffer is then only read
      (an input of linalg ops, itself or through views), the runtime's
      device copy is used in its place (`constants-in-place`, first):
      no allocation and no copy per call.

    Kernels are named `<function>_<first payload op>_<n>` and all go into the
    `gpu.module @tide_kernels` when outlined. Host code that still reads or
    writes GPU memory is an error.
  }];
  let options = [
    Option<"useLibrary", "use-library", "bool", /*default=*/"true",
           "Run floating-point matmuls (2-D and batched) through cuBLAS">,
    Option<"fuseRows", "fuse-rows", "bool", /*default=*/"true",
           "Lower row groups (layer norms, softmax with its scale and mask) "
           "as one kernel each">,
    Option<"fuseAttention", "fuse-attention", "bool", /*default=*/"true",
           "Run f16/bf16 attention (batched matmul, scale and mask, softmax, "
           "batched matmul) as one kernel of Tide's runtime">,
    Option<"constantsInPlace", "constants-in-place", "bool",
           /*default=*/"true",
           "A constant copied into a GPU buffer that the function only reads "
           "becomes the runtime's device copy of it (uploaded at the first "
           "call): no allocation and copy per call">,
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "The GPU chip the code is for (sm_90, ...; empty when unknown): "
           "the fused attention kernel is built for sm_90 only">,
  ];
  let dependentDialects = [
    "mlir::affine::AffineDialect", "mlir::arith::ArithDialect",
    "mlir::func::FuncDialect", "mlir::gpu::GPUDialect",
    "mlir::linalg::LinalgDialect", "mlir::math::MathDialect",
    "mlir::LLVM::LLVMDialect", "mlir::memref::MemRefDialect",
    "mlir::scf::SCFDialect", "mlir::tide::TideDialect",
    "mlir::vector::VectorDialect"
  ];
}

def AsyncReturnPass : Pass<"tide-async-return", "mlir::func::FuncOp"> {
  let summary = "Return before the GPU finishes when nothing is on the host";
  let description = [{
    Runs after `gpu-async-region`, which ends every function with a host wait
    for its stream. A function whose memref arguments and results are all
    resident on the GPU (`tide.resident`) touches no host memory, so the
    final wait is dropped: the call returns once its work is queued on the
    calling thread's stream. Tide's runtime gives each host thread one
    stream, so later calls, copies through the runtime and its caching
    allocator are ordered after the work; code that reads the results on
    another stream calls `tide_rt_synchronize()` first. For the same reason
    the host wait before a call to Tide's cuBLAS GEMM (which runs on that
    stream), or before a host loop that only computes views and makes such
    calls (batched matmuls), is dropped in every function, unless the work
    it waits for copies to or from host memory.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::tide::TideDialect"];
}

def StripMemorySpacesPass
    : Pass<"tide-strip-memory-spaces", "mlir::ModuleOp"> {
  let summary = "Drop the GPU memory spaces from every type once kernels exist";
  let description = [{
    Runs after `convert-linalg-to-gpu`. The host passes device pointers around
    without dereferencing them and kernels use generic addressing, so the GPU
    memory spaces (`#tide.device<cuda:N>`) are removed from all memref types
    (function signatures included); other memory spaces are left alone.
    `gpu-to-llvm` then sees one pointer type on both sides of a launch.
  }];
}

#endif // TIDE_CONVERSION_PASSES_TD
