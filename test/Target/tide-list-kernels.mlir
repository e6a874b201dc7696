// Tests of tide-list-kernels: a target's devices, cost figures, links and
// kernel table (C = generated code, L = library, . = none, blank = the op has
// no such dtype). FileCheck collapses runs of spaces, so the table rows are
// written with single spaces.

// RUN: tide-opt %s -o /dev/null --tide-list-kernels=target=h200 | FileCheck %s --check-prefix=H200
// RUN: tide-opt %s -o /dev/null --tide-list-kernels=target=theano-0.7 | FileCheck %s --check-prefix=THEANO
// RUN: tide-opt %s -o /dev/null --tide-list-kernels=target=tensorflow-0.7 | FileCheck %s --check-prefix=TF
// RUN: tide-opt %s -o /dev/null --tide-list-kernels=target=rtx3090 | FileCheck %s --check-prefix=RTX
// RUN: tide-opt %s -o /dev/null --tide-list-kernels=target=cpu | FileCheck %s --check-prefix=CPU
// The default target is h200; /dev/null is a valid (empty) input.
// RUN: tide-opt /dev/null -o /dev/null --tide-list-kernels | FileCheck %s --check-prefix=H200
// A target file is read like a built-in one, and its path is shown.
// RUN: tide-opt %s -o /dev/null --tide-list-kernels=target=%targets/h200.json | FileCheck %s --check-prefix=H200-FILE
// The IR is printed unchanged.
// RUN: tide-opt %s --tide-list-kernels=target=cpu | FileCheck %s --check-prefix=IR
// RUN: not tide-opt %s -o /dev/null --tide-list-kernels=target=a100 2>&1 | FileCheck %s --check-prefix=BAD-TARGET

// H200: target h200 (built-in): NVIDIA H200 (sm_90, full-rate FP64)
// H200: devices:
// H200-NEXT: cpu x86-64 host (Intel Xeon, AVX-512), 16 cores; GEMM f32 through oneDNN, f64 through OpenBLAS, the rest through Tide's loops for x86-64-v4 [16 cores; figures for code on 16 threads]
// H200-NEXT: bandwidth 92 GB/s, launch 0.0 us, parallel loops 9.8 us, threaded GEMM us: f64=81, peak GFLOP/s: i8=23 i16=22 i32=19 i64=18 ui8=23 ui16=22 ui32=19 ui64=18 f16=5 bf16=18 f32=1154 f64=532
// H200-NEXT: elementwise GFLOP/s: i8=111.0 i16=77.9 i32=40.3 i64=24.6 ui8=111.0 ui16=77.9 ui32=40.3 ui64=24.6 f16=227.0 bf16=20.6 f32=324.0 f64=125.0
// H200-NEXT: convolution GFLOP/s: f32=922
// H200-NEXT: FLOPs per element: acos=20.2 acosh=43.0 asin=19.3 asinh=36.8 atan=20.5 atanh=26.0 cos=13.9 cosh=15.2 erf=28.7 log=13.3 sigmoid=14.7 sin=14.3 sinh=18.2 tan=20.7 tanh=16.3
// H200-NEXT: cuda:0 sm_90, NVIDIA H200, 141 GB HBM3e, 132 multiprocessors; GEMM through cuBLAS
// H200-NEXT: bandwidth 4230 GB/s, launch 3.9 us, per call 9.2 us, peak GFLOP/s: i8=60000 i16=30000 i32=30000 i64=15000 ui8=60000 ui16=30000 ui32=30000 ui64=15000 f16=684000 bf16=734000 f32=51000 f64=64700
// H200: links (GB/s: host->device pinned/pageable, device->host pinned/pageable; latency):
// H200-NEXT: cpu <-> cuda:0: 53.9/38.1, 55.0/50.1; 11.2 us (+58.9 us from 64 KiB: staged)
// H200: kernels (C = codegen, L = library, . = none, blank = the op has no such form):
// H200-NEXT: op | cpu | cuda:0
// H200-NEXT: | i1 i8 i16 i32 i64 ui8 ui16 ui32 ui64 f16 bf16 f32 f64 | i1 i8 i16 i32 i64 ui8 ui16 ui32 ui64 f16 bf16 f32 f64
// Logical ops: integer dtypes only.
// H200: {{^}} and | C C C C C C C C C | C C C C C C C C C{{ *$}}
// Elementwise float op: f16 to f64 everywhere, f64 included on the H200.
// H200: {{^}} exp | C C C C | C C C C{{ *$}}
// matmul: BLAS (L) for f32/f64 on the CPU; cuBLAS (L) for floats on the GPU, no integer GEMM there.
// H200: {{^}} matmul | C C C C C C C C C C L L | . . . . . . . . L L L L{{ *$}}
// H200: {{^}} reduce_mean | C C C C | C C C C{{ *$}}
// H200: {{^}} transpose | C C C C C C C C C C C C C | C C C C C C C C C C C C C{{ *$}}
// The table has no row for tide.transfer (it is not placed).
// H200-NOT: transfer |

// THEANO: target theano-0.7 (built-in): Theano 0.7's old CUDA backend: GPU kernels for float32 only
// THEANO: cuda:0 sm_52, GeForce GTX TITAN X (float32-only kernel table)
// THEANO-NEXT: bandwidth 336 GB/s, launch 5.0 us, peak GFLOP/s: f32=6600 f64=206
// THEANO: cpu <-> cuda:0: 12.0/6.0, 12.0/4.0; 10.0 us
// Integer-only ops have no GPU kernel at all.
// THEANO: {{^}} and | C C C C C C C C C | . . . . . . . . .{{ *$}}
// f32 only on the GPU: a cast needs both of its dtypes.
// THEANO: {{^}} cast | C C C C C C C C C C C C C | . . . . . . . . . . . C .{{ *$}}
// exp: no f64 kernel on Theano's cuda:0 (the exp f64 of the user report).
// THEANO: {{^}} exp | C C C C | . . C .{{ *$}}
// THEANO: {{^}} matmul | C C C C C C C C C C L L | . . . . . . . . . . L .{{ *$}}
// THEANO: {{^}} reduce_mean | C C C C | . . C .{{ *$}}

// TF: target tensorflow-0.7 (built-in): TensorFlow 0.7's GPU kernel table
// exp f64 is fine on the GPU; matmul and reductions are not in f64, and Mean not at all.
// TF: {{^}} exp | C C C C | C C C C{{ *$}}
// TF: {{^}} matmul | C C C C C C C C C C L L | . . . . . . . . L L L .{{ *$}}
// TF: {{^}} reduce_max | C C C C C C C C C C C C | C C C C C C C C C C C .{{ *$}}
// TF: {{^}} reduce_mean | C C C C | . . . .{{ *$}}
// TF: {{^}} reduce_sum | C C C C C C C C C C C C | C C C C C C C C C C C .{{ *$}}
// Composites are not reductions: softmax keeps its f64 GPU kernel.
// TF: {{^}} softmax | C C C C | C C C C{{ *$}}

// RTX: target rtx3090 (built-in): NVIDIA GeForce RTX 3090 (sm_86; FP64 at 1/64 of FP32)
// RTX: cuda:0 sm_86, NVIDIA GeForce RTX 3090, 24 GB GDDR6X
// RTX-NEXT: bandwidth 936 GB/s, launch 5.0 us, peak GFLOP/s: i8=35600 i16=17800 i32=17800 i64=4450 ui8=35600 ui16=17800 ui32=17800 ui64=4450 f16=71000 bf16=71000 f32=35600 f64=556
// RTX: cpu <-> cuda:0: 24.0/10.0, 24.0/6.0; 10.0 us

// A CPU-only target: one device, one column, no links.
// CPU: target cpu (built-in): The host CPU alone (no GPU)
// CPU: devices:
// CPU-NEXT: cpu x86-64 host, AVX2, 16 cores
// CPU-NOT: cuda
// CPU-NOT: links
// CPU: kernels (C = codegen
// CPU-NEXT: op | cpu{{ *$}}
// conv: im2col and BLAS GEMMs (L) for f32/f64 on the CPU, loops for f16/bf16.
// CPU: {{^}} conv | C C L L{{ *$}}
// CPU: {{^}} matmul | C C C C C C C C C C L L{{ *$}}

// H200-FILE: target h200 ({{.*}}targets/h200.json): NVIDIA H200
// H200-FILE: {{^}} matmul | C C C C C C C C C C L L | . . . . . . . . L L L L{{ *$}}

// IR-LABEL: func.func @unchanged(
// IR-NEXT: tide.exp %{{.*}} : tensor<4xf32>{{$}}

// BAD-TARGET: error: invalid 'target' option: unknown target 'a100'; built-in targets are cpu, h100, h200, rtx3090, tensorflow-0.7, theano-0.7; 'native' is this machine as tide-calibrate measured it; or give the path of a .json target file

func.func @unchanged(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tide.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
