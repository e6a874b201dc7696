//===- Passes.td - Tide placement passes -------------------*- tablegen -*-===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_PLACEMENT_PASSES_TD
#define TIDE_PLACEMENT_PASSES_TD

include "mlir/Pass/PassBase.td"

// Every pass that needs a target reads the module's `tide.target` (recorded by
// tide-place-devices); `target=` overrides it and must agree with it. Without
// either, the default target is h200.
defvar TargetOption = Option<"target", "target", "std::string", /*default=*/"",
  "Built-in target name (cpu, h200, rtx3090, theano-0.7, tensorflow-0.7), native (this machine as tide-calibrate measured it) or path of a JSON target file; default: the module's tide.target, else h200">;

// The CPU's cost figures are for code on every core of the target's CPU
// ("cores"); cpu-threads=N scales them to code on N threads (tide-compile
// --cpu-threads).
defvar CpuThreadsOption = Option<"cpuThreads", "cpu-threads", "int64_t",
  /*default=*/"0",
  "Threads the CPU code will run on, for the CPU's cost figures (0: every core of the target's CPU)">;

defvar PolicyOption = Option<"policy", "policy", "::mlir::tide::PlacementPolicy",
  /*default=*/"::mlir::tide::PlacementPolicy::Soft",
  "Placement policy", [{::llvm::cl::values(
    clEnumValN(::mlir::tide::PlacementPolicy::Soft, "soft", "fall back to a device with a kernel, with a remark"),
    clEnumValN(::mlir::tide::PlacementPolicy::Strict, "strict", "like soft, but a pin to a device without a kernel is an error"),
    clEnumValN(::mlir::tide::PlacementPolicy::RequireGPU, "require-gpu", "any op on the CPU is an error"),
    clEnumValN(::mlir::tide::PlacementPolicy::Cost, "cost", "minimise compute plus copy time"))}]>;

def FoldAffineIntoWeightsPass : Pass<"tide-fold-affine-into-weights", "mlir::func::FuncOp"> {
  let summary = "Fold per-channel scales and shifts after a convolution or a linear layer (inference batch norms) into its weight";
  let description = [{
    A convolution with a constant weight, or a matrix product whose right
    operand is a constant 2-D matrix or the transpose of one (ONNX `Gemm`
    with `transB`, PyTorch's `Linear`), followed by a chain of `add`, `sub`,
    `mul` and `div` ops whose other operand is a constant per output
    channel (or a scalar), each the only user of the one before, computes
    `a[f] * op(x, w) + b[f]`: an inference `BatchNormalization` as the ONNX
    importer writes it, `(y - mean) * (scale * rsqrt(var + eps)) + bias`,
    or a scale and shift from another exporter. This pass replaces the chain
    by the op on the weight scaled per output channel (`w'[f] = a[f] *
    w[f]`, computed in f64 and rounded once) and one `add` of `b`, which the
    CPU's convolution library applies as its bias: the three elementwise
    passes over the output that followed every convolution of such a model
    are gone. The per-channel constants may be computed from constants
    (`reshape`, `add`, `sub`, `mul`, `div`, `sqrt`, `rsqrt`, `neg` of
    constants, evaluated here in f64). The output channels are a
    convolution's channel dimension and a product's last dimension.

    f32 and f64 only (an f16 or bf16 weight would be rounded differently
    from what the program computes), ops and chain ops that carry the same
    discardable attributes (pins) only; the new ops take the convolution's
    or product's. The results equal the chain's up to rounding (a few ulp).

    Before:
    ```mlir
    %y = tide.conv %x, %w ... : tensor<1x64x56x56xf32>, tensor<64x64x3x3xf32>
    %c = tide.sub %y, %mean : tensor<1x64x56x56xf32>, tensor<64x1x1xf32>
    %s = tide.mul %c, %scale : tensor<1x64x56x56xf32>, tensor<64x1x1xf32>
    %z = tide.add %s, %beta : tensor<1x64x56x56xf32>, tensor<64x1x1xf32>
    ```
    After:
    ```mlir
    %w2 = tide.constant dense<...> : tensor<64x64x3x3xf32>   // w * scale
    %y = tide.conv %x, %w2 ... : tensor<1x64x56x56xf32>, tensor<64x64x3x3xf32>
    %b = tide.constant dense<...> : tensor<64x1x1xf32>       // beta - mean * scale
    %z = tide.add %y, %b : tensor<1x64x56x56xf32>, tensor<64x1x1xf32>
    ```
  }];
  let dependentDialects = ["mlir::tide::TideDialect"];
}

def DecomposePass : Pass<"tide-decompose", "mlir::ModuleOp"> {
  let summary = "Rewrite composite ops into primitives where that enables a better placement";
  let description = [{
    Rewrites `reduce_mean` into `reduce_sum` and `div`, `softmax` into
    `reduce_max`, `sub`, `exp`, `reduce_sum`, `div`, and `log_softmax` into
    `reduce_max`, `sub`, `exp`, `reduce_sum`, `log`, `sub`.

    With `mode=auto` (the default) an op is rewritten only when the device it
    would prefer (its pin, else the function's or module's default device,
    else the target's first GPU) has no kernel for it but has kernels for all
    the primitives; `mode=always` rewrites every composite; `mode=never`
    nothing. Each new op records `tide.decomposed = "<op>"`, which placement
    shows in its reason, and inherits the original op's pin.

    `tide.if` (a branch the host decides) whose preferred device is a GPU is
    speculated (except with `mode=never`) when that GPU has kernels for
    every op of both regions and every size there is static (no run-time
    check a branch not taken would fail): both regions are computed and each
    result is a `tide.select` on the condition, so the work stays on the GPU
    (`tide.decomposed = "speculate-if"`). Otherwise it stays a host branch.

    Precision never changes here. With `demote-f64` (off by default) an
    `f64` op whose preferred device has no `f64` kernel but an `f32` one is
    computed in `f32` between two `tide.cast`s; every such rewrite is reported
    as a warning.

    With `reduce-precision=bf16` (or `f16`), asked for explicitly, every f32
    `matmul` and `conv` whose preferred device is a GPU with a kernel for the
    narrower type reads its operands in that type (constant operands are
    converted here, once; others through a `tide.cast` that fuses into its
    producer) and its result is cast back to f32: the tensor cores run the
    products, cuBLAS and cuDNN accumulate in f32, and everything else
    (elementwise ops, softmax, normalization statistics, reductions) stays
    f32. Each rewritten op is reported as a warning and its placement reason
    says `decomposed(reduce-precision)`.

    Before (tensorflow-0.7: no GPU kernel for reduce_mean):
    ```mlir
    %m = tide.reduce_mean %x axes = [0] : tensor<256xf32>
    ```
    After:
    ```mlir
    %s = tide.reduce_sum %x axes = [0] {tide.decomposed = "reduce_mean"} : tensor<256xf32>
    %n = tide.constant {tide.decomposed = "reduce_mean"} dense<2.560000e+02> : tensor<f32>
    %m = tide.div %s, %n {tide.decomposed = "reduce_mean"} : tensor<f32>
    ```
  }];
  let options = [
    TargetOption,
    Option<"mode", "mode", "::mlir::tide::DecomposeMode",
           /*default=*/"::mlir::tide::DecomposeMode::Auto",
           "When to decompose", [{::llvm::cl::values(
      clEnumValN(::mlir::tide::DecomposeMode::Auto, "auto", "only where it enables a better placement"),
      clEnumValN(::mlir::tide::DecomposeMode::Always, "always", "every composite op"),
      clEnumValN(::mlir::tide::DecomposeMode::Never, "never", "none"))}]>,
    Option<"demoteF64", "demote-f64", "bool", /*default=*/"false",
           "Compute f64 ops in f32 where only f32 has a kernel (reported)">,
    Option<"reducePrecision", "reduce-precision",
           "::mlir::tide::ReducedPrecision",
           /*default=*/"::mlir::tide::ReducedPrecision::None",
           "Compute f32 matmuls and convolutions placed on a GPU in a "
           "narrower type (reported)", [{::llvm::cl::values(
      clEnumValN(::mlir::tide::ReducedPrecision::None, "none", "as written"),
      clEnumValN(::mlir::tide::ReducedPrecision::BF16, "bf16", "bf16 inputs, f32 accumulation"),
      clEnumValN(::mlir::tide::ReducedPrecision::F16, "f16", "f16 inputs, f32 accumulation"))}]>,
  ];
  let dependentDialects = ["mlir::tide::TideDialect"];
}

def PlaceDevicesPass : Pass<"tide-place-devices", "mlir::ModuleOp"> {
  let summary = "Annotate every tide op with the device that will run it, and why";
  let description = [{
    Sets `tide.device` and `tide.reason` on every tide op (except
    `tide.transfer`) from the target's kernel tables, the user's pins
    (`tide.device` already on an op), defaults (`tide.default_device` on the
    function or module), colocation groups (`tide.colocate = "name"`: all
    members share one device) and the policy:

    - `soft`: an op whose preferred device has no kernel for its dtype falls
      back to a device that has one, with a remark.
    - `strict`: like soft, but an op pinned by the user to a device without a
      kernel is an error.
    - `require-gpu`: any op that would run on the CPU is an error.
    - `cost`: minimise compute plus transfer time from the target's figures;
      exact for one CPU and one GPU (an s-t minimum cut). With several GPUs,
      ops that go to "a GPU" run on the function's default GPU, else the
      first GPU; pins to other GPUs are honoured (a documented heuristic).

    Function arguments and results live on the host unless marked
    `tide.resident = #tide.device<cuda:N>`. Every violation is reported at
    once: one error per op, naming the op, its dtype, the device, why, and
    the fixes. Reasons: `pinned`, `default`, `preferred`, `colocated(group)`,
    `no-kernel(device, dtype)`, `cost(cpu=..., gpu=..., copy=...)`, prefixed
    by `decomposed(op)` for ops `tide-decompose` created.
  }];
  let options = [
    TargetOption,
    PolicyOption,
    CpuThreadsOption,
    Option<"dynamicDimSize", "dynamic-dim-size", "int64_t", /*default=*/"32",
           "Size assumed for dynamic dimensions in cost estimates">,
    Option<"copyMode", "copy-mode", "::mlir::tide::CopyMode",
           /*default=*/"::mlir::tide::CopyMode::Pinned",
           "Link figures for copies", [{::llvm::cl::values(
      clEnumValN(::mlir::tide::CopyMode::Pinned, "pinned", "pinned host memory (Tide's runtime stages copies)"),
      clEnumValN(::mlir::tide::CopyMode::Pageable, "pageable", "pageable host memory"))}]>,
    Option<"remarks", "remarks", "bool", /*default=*/"true",
           "Emit a remark for every fallback">,
  ];
  let dependentDialects = ["mlir::tide::TideDialect"];
}

def VerifyPlacementPass : Pass<"tide-verify-placement", "mlir::ModuleOp"> {
  let summary = "Check an existing placement against a target and a policy";
  let description = [{
    Every tide op must carry a `tide.device` of the target that has a kernel
    for the op's dtype; with `policy=require-gpu` no op may be on the CPU.
    Reports every offending op (one error each) with the fixes. Useful after
    hand edits of placed IR.
  }];
  let options = [
    TargetOption,
    PolicyOption,
  ];
  let dependentDialects = ["mlir::tide::TideDialect"];
}

def InsertTransfersPass : Pass<"tide-insert-transfers", "mlir::func::FuncOp"> {
  let summary = "Insert tide.transfer where a value crosses devices";
  let description = [{
    For every use of a value on a device other than the one it lives on, a
    `tide.transfer` to the user's device is inserted right before the user.
    Function arguments live on the host (or their `tide.resident` device) and
    returned values must reach the host (or the result's `tide.resident`
    device). Non-tide users of tensors run on the host. Run
    `tide-optimize-transfers` next to share copies.
  }];
  let dependentDialects = ["mlir::tide::TideDialect"];
}

def OptimizeTransfersPass : Pass<"tide-optimize-transfers", "mlir::func::FuncOp"> {
  let summary = "One copy per (value, destination); no round trips";
  let description = [{
    Merges transfers of the same value to the same device into one, placed
    right after the value is defined; removes transfers to the device the
    value already lives on; replaces a round trip (x moved to B and back to
    A, where it came from) by x itself.
  }];
  let dependentDialects = ["mlir::tide::TideDialect"];
}

def PlacementReportPass : Pass<"tide-placement-report", "mlir::ModuleOp"> {
  let summary = "Print every placement decision with its reason";
  let description = [{
    Prints, per function, each tide op with its dtype, device and reason,
    then a transfer summary (count and bytes per call) and the cost of the
    placement against all-CPU and all-GPU, from the target's figures.
    `format=text` prints a table, `format=json` a JSON document, and
    `format=dot` a Graphviz graph coloured by device with transfers drawn as
    red edges. `output=-` (default) writes to stdout. The IR is unchanged.
  }];
  let options = [
    TargetOption,
    CpuThreadsOption,
    Option<"format", "format", "::mlir::tide::ReportFormat",
           /*default=*/"::mlir::tide::ReportFormat::Text",
           "Report format", [{::llvm::cl::values(
      clEnumValN(::mlir::tide::ReportFormat::Text, "text", "a table"),
      clEnumValN(::mlir::tide::ReportFormat::JSON, "json", "a JSON document"),
      clEnumValN(::mlir::tide::ReportFormat::Dot, "dot", "a Graphviz graph"))}]>,
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "File to write, or - for stdout">,
    Option<"dynamicDimSize", "dynamic-dim-size", "int64_t", /*default=*/"32",
           "Size assumed for dynamic dimensions in cost estimates">,
  ];
  let dependentDialects = ["mlir::tide::TideDialect"];
}

def ListKernelsPass : Pass<"tide-list-kernels", "mlir::ModuleOp"> {
  let summary = "Print a target's devices, cost figures and kernel table";
  let description = [{
    Prints which (op, dtype) pairs have a kernel on which device of the
    target (C = generated code, L = library such as cuBLAS, . = none), the
    devices' peak rates, bandwidths and launch latencies, and the link
    figures. The IR is unchanged: `tide-opt --tide-list-kernels=target=h200
    /dev/null` prints the built-in H200 table.

    `format=json` prints the same as one JSON document for scripts: the
    target's devices and links, and per op its facts from ODS (element kind,
    accepted dtypes, kernel group, lowering family, flops per element, the
    primitives a composite decomposes into) and its kernel per device and
    dtype (`codegen`, `library` or `none`). Tide's test harnesses build their
    op lists from it.
  }];
  let options = [
    TargetOption,
    CpuThreadsOption,
    Option<"format", "format", "::mlir::tide::ReportFormat",
           /*default=*/"::mlir::tide::ReportFormat::Text",
           "Output format", [{::llvm::cl::values(
      clEnumValN(::mlir::tide::ReportFormat::Text, "text", "tables"),
      clEnumValN(::mlir::tide::ReportFormat::JSON, "json", "a JSON document"))}]>,
  ];
  let dependentDialects = ["mlir::tide::TideDialect"];
}

#endif // TIDE_PLACEMENT_PASSES_TD
