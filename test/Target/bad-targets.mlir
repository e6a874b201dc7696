// Tests of target loading: unknown built-in names, missing files, and target
// files that are not valid (Inputs/*.json). Every error names the file, the
// key (as a path into the JSON document) and what is wrong. Target files are
// read by every pass that takes a target; tide-list-kernels is used for most
// cases, and the other passes are checked to report the same way.

// A valid target file loads; its deny rules remove kernels (positive control).
// RUN: tide-opt %s -o /dev/null --tide-list-kernels=target=%S/Inputs/custom-ok.json | FileCheck %s --check-prefix=CUSTOM
// CUSTOM: target custom-ok ({{.*}}Inputs/custom-ok.json): A valid target file
// CUSTOM: cuda:0 sm_80, test GPU
// CUSTOM: {{^}} exp | C C C C | C C . C{{ *$}}
// CUSTOM: {{^}} matmul | C C C C C C C C C C L L | . . . . . . . . L L L .{{ *$}}

// An unknown built-in name lists the built-in targets.
// RUN: not tide-opt %s --tide-list-kernels=target=a100 2>&1 | FileCheck %s --check-prefix=UNKNOWN-NAME
// UNKNOWN-NAME: error: invalid 'target' option: unknown target 'a100'; built-in targets are cpu, h100, h200, rtx3090, tensorflow-0.7, theano-0.7; 'native' is this machine as tide-calibrate measured it; or give the path of a .json target file

// A missing file, by path and by a bare .json name.
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/no-such-target.json 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: invalid 'target' option: cannot read target file '{{.*}}Inputs/no-such-target.json': No such file or directory
// RUN: not tide-opt %s --tide-list-kernels=target=a100.json 2>&1 | FileCheck %s --check-prefix=MISSING-BARE
// MISSING-BARE: error: invalid 'target' option: cannot read target file 'a100.json': No such file or directory
// A directory is not a target file.
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs 2>&1 | FileCheck %s --check-prefix=DIRECTORY
// DIRECTORY: error: invalid 'target' option: cannot read target file '{{.*}}Inputs': {{.*}}directory

// Every pass that takes a target reports a bad file the same way.
// RUN: not tide-opt %s --tide-place-devices=target=%S/Inputs/unknown-key.json 2>&1 | FileCheck %s --check-prefix=UNKNOWN-KEY
// RUN: not tide-opt %s --tide-decompose=target=%S/Inputs/unknown-key.json 2>&1 | FileCheck %s --check-prefix=UNKNOWN-KEY
// RUN: not tide-opt %s --tide-verify-placement=target=%S/Inputs/unknown-key.json 2>&1 | FileCheck %s --check-prefix=UNKNOWN-KEY
// RUN: not tide-opt %s --tide-placement-report=target=%S/Inputs/unknown-key.json 2>&1 | FileCheck %s --check-prefix=UNKNOWN-KEY
// RUN: not tide-opt %s --tide-place-pipeline=target=%S/Inputs/unknown-key.json 2>&1 | FileCheck %s --check-prefix=UNKNOWN-KEY

// Not JSON: a trailing comma in the devices array.
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/invalid-json.json 2>&1 | FileCheck %s --check-prefix=INVALID-JSON
// INVALID-JSON: error: invalid 'target' option: {{.*}}Inputs/invalid-json.json: invalid JSON: [5:3, byte={{[0-9]+}}]: Invalid JSON value
// INVALID-JSON-NOT: error

// Nested 100 levels deep (50000 overflowed the JSON parser's stack before).
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/deep-nesting.json 2>&1 | FileCheck %s --check-prefix=DEEP
// DEEP: error: invalid 'target' option: {{.*}}Inputs/deep-nesting.json: invalid JSON: nested more than 64 levels deep

// Valid JSON, but an array instead of an object.
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/not-object.json 2>&1 | FileCheck %s --check-prefix=NOT-OBJECT
// NOT-OBJECT: error: invalid 'target' option: {{.*}}Inputs/not-object.json: (top level): must be a JSON object
// NOT-OBJECT-NOT: error

// A misspelt top-level key (device for devices).
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/unknown-top-key.json 2>&1 | FileCheck %s --check-prefix=UNKNOWN-TOP-KEY
// UNKNOWN-TOP-KEY: error: invalid 'target' option: {{.*}}Inputs/unknown-top-key.json: device: unknown key; expected one of: name, description, devices, links
// UNKNOWN-TOP-KEY-NOT: error

// A key devices do not have.
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/unknown-key.json 2>&1 | FileCheck %s --check-prefix=UNKNOWN-KEY
// UNKNOWN-KEY: error: invalid 'target' option: {{.*}}Inputs/unknown-key.json: devices[0].sockets: unknown key; expected one of: id, chip, description, peak_gflops, elementwise_gflops, conv_gflops, flops_per_element, bandwidth_gbps, launch_us, cores, core_bandwidth_gbps, parallel_launch_us, gemm_overhead_us, call_us, kernels
// UNKNOWN-KEY-NOT: error

// A required key is missing.
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/missing-name.json 2>&1 | FileCheck %s --check-prefix=MISSING-NAME
// MISSING-NAME: error: invalid 'target' option: {{.*}}Inputs/missing-name.json: name: missing (a string is required)
// MISSING-NAME-NOT: error

// No device at all.
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/empty-devices.json 2>&1 | FileCheck %s --check-prefix=EMPTY-DEVICES
// EMPTY-DEVICES: error: invalid 'target' option: {{.*}}Inputs/empty-devices.json: devices: missing or empty; list the CPU first, then any GPUs
// EMPTY-DEVICES-NOT: error

// The host must come first.
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/gpu-first.json 2>&1 | FileCheck %s --check-prefix=GPU-FIRST
// GPU-FIRST: error: invalid 'target' option: {{.*}}Inputs/gpu-first.json: devices[0].id: the first device must be the host "cpu"
// GPU-FIRST-NOT: error

// A second host.
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/two-cpus.json 2>&1 | FileCheck %s --check-prefix=TWO-CPUS
// TWO-CPUS: error: invalid 'target' option: {{.*}}Inputs/two-cpus.json: devices[1].id: only one "cpu" device is allowed
// TWO-CPUS-NOT: error

// The same GPU twice.
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/dup-device.json 2>&1 | FileCheck %s --check-prefix=DUP-DEVICE
// DUP-DEVICE: error: invalid 'target' option: {{.*}}Inputs/dup-device.json: devices[2].id: device 'cuda:0' is listed twice
// DUP-DEVICE-NOT: error

// A device id Tide does not know.
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/bad-id.json 2>&1 | FileCheck %s --check-prefix=BAD-ID
// BAD-ID: error: invalid 'target' option: {{.*}}Inputs/bad-id.json: devices[1].id: 'gpu0' is not a device; expected "cpu" or "cuda:N" with 0 <= N < 64
// BAD-ID-NOT: error

// A CUDA architecture older than Tide supports.
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/bad-chip.json 2>&1 | FileCheck %s --check-prefix=BAD-CHIP
// BAD-CHIP: error: invalid 'target' option: {{.*}}Inputs/bad-chip.json: devices[1].chip: 'sm_30' is not a CUDA architecture Tide can target; expected sm_50 .. sm_120 (e.g. "sm_90")
// BAD-CHIP-NOT: error

// An architecture name instead of sm_NN.
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/bad-chip-name.json 2>&1 | FileCheck %s --check-prefix=BAD-CHIP-NAME
// BAD-CHIP-NAME: error: invalid 'target' option: {{.*}}Inputs/bad-chip-name.json: devices[1].chip: 'volta' is not a CUDA architecture Tide can target; expected sm_50 .. sm_120 (e.g. "sm_90")
// BAD-CHIP-NAME-NOT: error

// A GPU must name its chip.
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/gpu-no-chip.json 2>&1 | FileCheck %s --check-prefix=GPU-NO-CHIP
// GPU-NO-CHIP: error: invalid 'target' option: {{.*}}Inputs/gpu-no-chip.json: devices[1].chip: missing (a string is required)
// GPU-NO-CHIP-NOT: error

// The host has no chip.
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/cpu-chip.json 2>&1 | FileCheck %s --check-prefix=CPU-CHIP
// CPU-CHIP: error: invalid 'target' option: {{.*}}Inputs/cpu-chip.json: devices[0].chip: only GPU devices have a chip
// CPU-CHIP-NOT: error

// A peak rate for a dtype Tide does not have.
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/bad-dtype.json 2>&1 | FileCheck %s --check-prefix=BAD-DTYPE
// BAD-DTYPE: error: invalid 'target' option: {{.*}}Inputs/bad-dtype.json: devices[0].peak_gflops.f128: unknown dtype; expected one of i1, i8, i16, i32, i64, ui8, ui16, ui32, ui64, f16, bf16, f32, f64
// BAD-DTYPE-NOT: error

// The elementwise rates (written by tide-calibrate) are checked like the
// peak rates: an object of dtype -> positive GFLOP/s.
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/elementwise-dtype.json 2>&1 | FileCheck %s --check-prefix=ELEMENTWISE-DTYPE
// ELEMENTWISE-DTYPE: error: invalid 'target' option: {{.*}}Inputs/elementwise-dtype.json: devices[0].elementwise_gflops.fp8: unknown dtype; expected one of i1, i8, i16, i32, i64, ui8, ui16, ui32, ui64, f16, bf16, f32, f64
// ELEMENTWISE-DTYPE-NOT: error
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/elementwise-zero.json 2>&1 | FileCheck %s --check-prefix=ELEMENTWISE-ZERO
// ELEMENTWISE-ZERO: error: invalid 'target' option: {{.*}}Inputs/elementwise-zero.json: devices[1].elementwise_gflops.f32: must be a positive number
// ELEMENTWISE-ZERO-NOT: error
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/elementwise-list.json 2>&1 | FileCheck %s --check-prefix=ELEMENTWISE-LIST
// ELEMENTWISE-LIST: error: invalid 'target' option: {{.*}}Inputs/elementwise-list.json: devices[0].elementwise_gflops: must be an object of dtype -> GFLOP/s
// ELEMENTWISE-LIST-NOT: error
// So are the convolution rates.
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/conv-negative.json 2>&1 | FileCheck %s --check-prefix=CONV-NEGATIVE
// CONV-NEGATIVE: error: invalid 'target' option: {{.*}}Inputs/conv-negative.json: devices[0].conv_gflops.f32: must be a positive number
// CONV-NEGATIVE-NOT: error
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/conv-list.json 2>&1 | FileCheck %s --check-prefix=CONV-LIST
// CONV-LIST: error: invalid 'target' option: {{.*}}Inputs/conv-list.json: devices[0].conv_gflops: must be an object of dtype -> GFLOP/s
// CONV-LIST-NOT: error
// flops_per_element: op names without the prefix, positive numbers.
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/flops-per-element-op.json 2>&1 | FileCheck %s --check-prefix=FLOPS-OP
// FLOPS-OP: error: invalid 'target' option: {{.*}}Inputs/flops-per-element-op.json: devices[0].flops_per_element.tide.erf: unknown op 'tide.erf' (write op names without the 'tide.' prefix, e.g. "tanh")
// FLOPS-OP-NOT: error
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/flops-per-element-zero.json 2>&1 | FileCheck %s --check-prefix=FLOPS-ZERO
// FLOPS-ZERO: error: invalid 'target' option: {{.*}}Inputs/flops-per-element-zero.json: devices[0].flops_per_element.tanh: must be a positive number
// FLOPS-ZERO-NOT: error
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/flops-per-element-list.json 2>&1 | FileCheck %s --check-prefix=FLOPS-LIST
// FLOPS-LIST: error: invalid 'target' option: {{.*}}Inputs/flops-per-element-list.json: devices[0].flops_per_element: must be an object of op name -> FLOPs per element (e.g. {"tanh": 30})
// FLOPS-LIST-NOT: error

// A number written as a string.
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/string-number.json 2>&1 | FileCheck %s --check-prefix=STRING-NUMBER
// STRING-NUMBER: error: invalid 'target' option: {{.*}}Inputs/string-number.json: devices[0].peak_gflops.f32: must be a number
// STRING-NUMBER-NOT: error

// A negative bandwidth.
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/negative-bw.json 2>&1 | FileCheck %s --check-prefix=NEGATIVE-BW
// NEGATIVE-BW: error: invalid 'target' option: {{.*}}Inputs/negative-bw.json: devices[0].bandwidth_gbps: must be a positive number
// NEGATIVE-BW-NOT: error

// A negative launch latency.
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/negative-launch.json 2>&1 | FileCheck %s --check-prefix=NEGATIVE-LAUNCH
// NEGATIVE-LAUNCH: error: invalid 'target' option: {{.*}}Inputs/negative-launch.json: devices[0].launch_us: must be a non-negative number
// NEGATIVE-LAUNCH-NOT: error

// An unknown kernel base.
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/bad-base.json 2>&1 | FileCheck %s --check-prefix=BAD-BASE
// BAD-BASE: error: invalid 'target' option: {{.*}}Inputs/bad-base.json: devices[0].kernels.base: must be "native" (every kernel Tide can generate) or "none"
// BAD-BASE-NOT: error

// An op name with the dialect prefix.
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/unknown-op.json 2>&1 | FileCheck %s --check-prefix=UNKNOWN-OP
// UNKNOWN-OP: error: invalid 'target' option: {{.*}}Inputs/unknown-op.json: devices[0].kernels.deny[0].ops[0]: unknown op 'tide.exp' (write op names without the 'tide.' prefix, e.g. "reduce_mean")
// UNKNOWN-OP-NOT: error

// An op group that does not exist.
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/bad-group.json 2>&1 | FileCheck %s --check-prefix=BAD-GROUP
// BAD-GROUP: error: invalid 'target' option: {{.*}}Inputs/bad-group.json: devices[0].kernels.deny[0].ops[0]: unknown op group '@unary'; groups are @all, @elementwise, @matmul, @reductions, @shape, @composite, @constant
// BAD-GROUP-NOT: error

// A dtype spelt the NumPy way.
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/unknown-rule-dtype.json 2>&1 | FileCheck %s --check-prefix=UNKNOWN-RULE-DTYPE
// UNKNOWN-RULE-DTYPE: error: invalid 'target' option: {{.*}}Inputs/unknown-rule-dtype.json: devices[0].kernels.deny[0].dtypes[0]: unknown dtype; expected one of i1, i8, i16, i32, i64, ui8, ui16, ui32, ui64, f16, bf16, f32, f64
// UNKNOWN-RULE-DTYPE-NOT: error

// A rule naming a dtype the op cannot have.
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/no-form.json 2>&1 | FileCheck %s --check-prefix=NO-FORM
// NO-FORM: error: invalid 'target' option: {{.*}}Inputs/no-form.json: devices[0].kernels.deny[0]: op 'exp' has no i32 form (the dialect rejects it)
// NO-FORM-NOT: error

// The same for matmul on i1.
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/rule-matmul-i1.json 2>&1 | FileCheck %s --check-prefix=MATMUL-I1
// MATMUL-I1: error: invalid 'target' option: {{.*}}Inputs/rule-matmul-i1.json: devices[0].kernels.deny[0]: op 'matmul' has no i1 form (the dialect rejects it)
// MATMUL-I1-NOT: error

// A GPU claiming an integer GEMM, which Tide's GPU lowering cannot generate.
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/gpu-int-matmul.json 2>&1 | FileCheck %s --check-prefix=GPU-INT-MATMUL
// GPU-INT-MATMUL: error: invalid 'target' option: {{.*}}Inputs/gpu-int-matmul.json: devices[1].kernels.allow[0]: claims a kernel Tide cannot generate: 'matmul' on i32 for cuda:0 (Tide's GPU lowering has no such kernel)
// GPU-INT-MATMUL-NOT: error

// A GPU without link figures.
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/gpu-no-link.json 2>&1 | FileCheck %s --check-prefix=GPU-NO-LINK
// GPU-NO-LINK: error: invalid 'target' option: {{.*}}Inputs/gpu-no-link.json: links: no link figures for 'cuda:0' (host<->device copy bandwidth is needed to place ops)
// GPU-NO-LINK-NOT: error

// Link figures for a GPU the target does not have.
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/link-not-gpu.json 2>&1 | FileCheck %s --check-prefix=LINK-NOT-GPU
// LINK-NOT-GPU: error: invalid 'target' option: {{.*}}Inputs/link-not-gpu.json: links[0].device: 'cuda:1' is not a GPU of this target
// LINK-NOT-GPU-NOT: error

// A zero copy bandwidth.
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/zero-link.json 2>&1 | FileCheck %s --check-prefix=ZERO-LINK
// ZERO-LINK: error: invalid 'target' option: {{.*}}Inputs/zero-link.json: links[0].h2d_pinned_gbps: must be a positive number
// ZERO-LINK-NOT: error

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tide.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// "cores" (CPU only) must be a whole number.
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/bad-cores.json 2>&1 | FileCheck %s --check-prefix=BAD-CORES
// BAD-CORES: error: invalid 'target' option: {{.*}}Inputs/bad-cores.json: devices[0].cores: must be a whole number from 1 to 4096
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/gpu-cores.json 2>&1 | FileCheck %s --check-prefix=GPU-CORES
// GPU-CORES: error: invalid 'target' option: {{.*}}Inputs/gpu-cores.json: devices[1].cores: only the CPU has this figure
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/gpu-parallel-launch.json 2>&1 | FileCheck %s --check-prefix=GPU-PARALLEL
// GPU-PARALLEL: error: invalid 'target' option: {{.*}}Inputs/gpu-parallel-launch.json: devices[1].parallel_launch_us: only the CPU has this figure
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/negative-parallel-launch.json 2>&1 | FileCheck %s --check-prefix=NEGATIVE-PARALLEL
// NEGATIVE-PARALLEL: error: invalid 'target' option: {{.*}}Inputs/negative-parallel-launch.json: devices[0].parallel_launch_us: must be a non-negative number
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/cpu-call-latency.json 2>&1 | FileCheck %s --check-prefix=CPU-CALL
// CPU-CALL: error: invalid 'target' option: {{.*}}Inputs/cpu-call-latency.json: devices[0].call_us: only GPUs have this figure
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/negative-call-latency.json 2>&1 | FileCheck %s --check-prefix=NEGATIVE-CALL
// NEGATIVE-CALL: error: invalid 'target' option: {{.*}}Inputs/negative-call-latency.json: devices[1].call_us: must be a non-negative number
// The CPU's threaded-GEMM overheads: CPU only, dtype -> non-negative us.
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/gpu-gemm-overhead.json 2>&1 | FileCheck %s --check-prefix=GPU-GEMM-OVERHEAD
// GPU-GEMM-OVERHEAD: error: invalid 'target' option: {{.*}}Inputs/gpu-gemm-overhead.json: devices[1].gemm_overhead_us: only the CPU has this figure
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/negative-gemm-overhead.json 2>&1 | FileCheck %s --check-prefix=NEGATIVE-GEMM-OVERHEAD
// NEGATIVE-GEMM-OVERHEAD: error: invalid 'target' option: {{.*}}Inputs/negative-gemm-overhead.json: devices[0].gemm_overhead_us.f64: must be a non-negative number
// RUN: not tide-opt %s --tide-list-kernels=target=%S/Inputs/gemm-overhead-list.json 2>&1 | FileCheck %s --check-prefix=GEMM-OVERHEAD-LIST
// GEMM-OVERHEAD-LIST: error: invalid 'target' option: {{.*}}Inputs/gemm-overhead-list.json: devices[0].gemm_overhead_us: must be an object of dtype -> microseconds
