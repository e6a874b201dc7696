// Tests of tide-cpu-pipeline: placed tensor-level IR lowers all the way to
// the LLVM dialect (no tide, linalg, tensor, memref, bufferization, scf, cf,
// arith, math, func, affine or ub op and no unrealized cast left), with the C
// interface and the module metadata. Returning an input copies nothing; an
// elementwise chain fuses into one loop (unless fuse=false); f32 matmuls call
// the runtime GEMM (unless blas=false). The inputs are the examples and the
// parts of this file after the `//---` markers.

// RUN: rm -rf %t && split-file %s %t

// Every example lowers fully.
// RUN: tide-opt %examples/exp_f32.mlir --tide-cpu-pipeline=avx512=true \
// RUN:   | FileCheck %s --check-prefix=EXP \
// RUN:       --implicit-check-not='{{(tide|linalg|tensor|memref|bufferization|scf|cf|arith|math|func|affine|ub|builtin)\.[a-z_]+}}'
// RUN: tide-opt %examples/exp_f64.mlir --tide-cpu-pipeline \
// RUN:   | FileCheck %s --check-prefix=EXP64 \
// RUN:       --implicit-check-not='{{(tide|linalg|tensor|memref|bufferization|scf|cf|arith|math|func|affine|ub|builtin)\.[a-z_]+}}'
// RUN: tide-opt %examples/exp_f64.mlir --tide-cpu-pipeline=inline-f64-exp=true \
// RUN:   | FileCheck %s --check-prefix=EXP64-INLINE --implicit-check-not=llvm.intr.exp
// RUN: tide-opt %examples/mlp_f32.mlir --tide-cpu-pipeline=avx512=true \
// RUN:   | FileCheck %s --check-prefix=MLP \
// RUN:       --implicit-check-not='{{(tide|linalg|tensor|memref|bufferization|scf|cf|arith|math|func|affine|ub|builtin)\.[a-z_]+}}'
// RUN: tide-opt %examples/mlp_f64.mlir --tide-cpu-pipeline \
// RUN:   | FileCheck %s --check-prefix=MLP64 \
// RUN:       --implicit-check-not='{{(tide|linalg|tensor|memref|bufferization|scf|cf|arith|math|func|affine|ub|builtin)\.[a-z_]+}}'

// The identity function returns its argument: no allocation, no copy.
// RUN: tide-opt %examples/identity.mlir --tide-cpu-pipeline \
// RUN:   | FileCheck %s --check-prefix=IDENTITY --implicit-check-not=malloc --implicit-check-not=memcpy \
// RUN:       --implicit-check-not='{{(tide|linalg|tensor|memref|bufferization|scf|cf|arith|math|func|affine|ub|builtin)\.[a-z_]+}}'

// Without AVX-512, f32 exp scales by powers of two built from the bits: no
// libmvec call, no ldexp (which would be a libm call per element there).
// RUN: tide-opt %examples/exp_f32.mlir --tide-cpu-pipeline \
// RUN:   | FileCheck %s --check-prefix=EXP-BITS --implicit-check-not=llvm.intr.exp --implicit-check-not=ldexp

// exp(x) * a + b: one loop, one exp, one allocation (the result). Host
// allocations go through _mlir_memref_to_llvm_alloc, which
// tide-host-allocation-checks defines over malloc with a check (its own
// branches; sed leaves those functions out here).
// RUN: tide-opt %t/chain.mlir --tide-cpu-pipeline=avx512=true \
// RUN:   | sed -e '/llvm.func internal @tide_host_out_of_memory(/,/^  }/d' -e '/llvm.func internal @_mlir_memref_to_llvm_/,/^  }/d' \
// RUN:   | FileCheck %t/chain.mlir --check-prefix=FUSED --implicit-check-not='llvm.call @_mlir_memref_to_llvm_alloc' \
// RUN:       --implicit-check-not=ldexp --implicit-check-not=llvm.cond_br
// fuse=false keeps one loop per op.
// RUN: tide-opt %t/chain.mlir --tide-cpu-pipeline="fuse=false avx512=true" \
// RUN:   | FileCheck %t/chain.mlir --check-prefix=UNFUSED --implicit-check-not=ldexp

// f32 matmul: the runtime GEMM by default, loops with blas=false.
// RUN: tide-opt %t/matmul.mlir --tide-cpu-pipeline \
// RUN:   | FileCheck %t/matmul.mlir --check-prefix=DNNL
// RUN: tide-opt %t/matmul.mlir --tide-cpu-pipeline=dnnl=false \
// RUN:   | FileCheck %t/matmul.mlir --check-prefix=BLAS
// RUN: tide-opt %t/matmul.mlir --tide-cpu-pipeline=blas=false \
// RUN:   | FileCheck %t/matmul.mlir --check-prefix=LOOPS --implicit-check-not=tide_rt_gemm

// Parallel loops (the default) become OpenMP regions sized at run time;
// threads=1 builds single-threaded loops; bad option values are refused.
// RUN: tide-opt %examples/exp_f32.mlir --tide-cpu-pipeline=avx512=true | FileCheck %s --check-prefix=OMP
// RUN: tide-opt %examples/exp_f32.mlir --tide-cpu-pipeline="threads=1 avx512=true" \
// RUN:   | FileCheck %s --check-prefix=SERIAL --implicit-check-not=omp. --implicit-check-not=tide_rt_cpu_team_size
// RUN: not tide-opt %examples/exp_f32.mlir --tide-cpu-pipeline=threads=-1 2>&1 | FileCheck %s --check-prefix=BAD-THREADS
// RUN: not tide-opt %examples/exp_f32.mlir --tide-cpu-pipeline=grain=0 2>&1 | FileCheck %s --check-prefix=BAD-GRAIN
// OMP: llvm.call @tide_rt_cpu_team_size(
// OMP: omp.parallel if(%{{.*}}) num_threads(%{{.*}} : i32)
// OMP: omp.wsloop
// OMP: llvm.call_intrinsic "llvm.ldexp.f32.i32"
// SERIAL-LABEL: llvm.func @exp(
// SERIAL: llvm.call_intrinsic "llvm.ldexp.f32.i32"
// BAD-THREADS: invalid 'threads' option -1; expected 0 (decided at run time) to 1024
// BAD-GRAIN: invalid 'grain' option 0; it must be positive

// elu keeps expm1's accuracy near 0: a call to libm's expm1f/expm1, never
// exp(x) - 1 (convert-math-to-llvm's expansion of math.expm1).
// RUN: tide-opt %t/elu.mlir --tide-cpu-pipeline \
// RUN:   | FileCheck %t/elu.mlir --implicit-check-not=llvm.intr.exp

// f16/bf16 reductions and matmuls accumulate in f32 (an f32 accumulator, each
// element extended), rounded once at the end.
// RUN: tide-opt %t/narrow.mlir --tide-cpu-pipeline \
// RUN:   | FileCheck %t/narrow.mlir

// Known bugs (see the comments in those parts): run last.
// RUN: tide-opt %t/concat.mlir --tide-cpu-pipeline \
// RUN:   | FileCheck %t/concat.mlir \
// RUN:       --implicit-check-not='{{(tide|linalg|tensor|memref|bufferization|scf|cf|arith|math|func|affine|ub|builtin)\.[a-z_]+}}'
// RUN: tide-opt %t/strided.mlir --tide-cpu-pipeline \
// RUN:   | FileCheck %t/strided.mlir \
// RUN:       --implicit-check-not='{{(tide|linalg|tensor|memref|bufferization|scf|cf|arith|math|func|affine|ub|builtin)\.[a-z_]+}}'
// Sizes of a symbolic batch are read from the argument (not from the
// previous layer's result) before bufferization.
// RUN: tide-opt %t/dynconv.mlir --tide-place-pipeline=target=cpu \
// RUN:   | tide-opt --tide-cpu-pipeline=dnnl=false --mlir-print-ir-before=one-shot-bufferize -o /dev/null 2>&1 \
// RUN:   | FileCheck %t/dynconv.mlir

// exp over f32: the kernel, its C wrapper (result pointer first, then the
// argument's), and the metadata.
// EXP-LABEL: llvm.func @exp(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64) -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> attributes {llvm.emit_c_interface}
// EXP: llvm.call @_mlir_memref_to_llvm_alloc
// EXP: llvm.call_intrinsic "llvm.ldexp.f32.i32"(%{{.*}}, %{{.*}}) : (f32, i32) -> f32
// EXP-LABEL: llvm.func @_mlir_ciface_exp(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) attributes {llvm.emit_c_interface}
// EXP: llvm.call @exp(
// EXP: llvm.mlir.global external constant @tide_module_metadata("tide-module 1\0Afunc exp 1 1\0Aarg 0 f32 230400 cpu\0Aresult 0 f32 230400 cpu\0A\00")

// EXP-BITS-LABEL: llvm.func @exp(
// EXP-BITS: llvm.shl
// EXP-BITS: llvm.bitcast %{{.*}} : i32 to f32
// EXP-BITS-LABEL: llvm.func @_mlir_ciface_exp(

// The f64 version stays f64 (libmvec's exp once vectorized); with
// inline-f64-exp computed inline (no libm or libmvec call), the scale by
// powers of two in the 52-bit exponent field.
// EXP64-LABEL: llvm.func @exp(
// EXP64: llvm.intr.exp(%{{.*}}) : (f64) -> f64
// EXP64-INLINE-LABEL: llvm.func @exp(
// EXP64-INLINE-NOT: llvm.intr.exp
// EXP64-INLINE: llvm.bitcast %{{.*}} : i64 to f64
// EXP64-INLINE-LABEL: llvm.func @_mlir_ciface_exp(
// EXP64-LABEL: llvm.func @_mlir_ciface_exp(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// EXP64: @tide_module_metadata("tide-module 1\0Afunc exp 1 1\0Aarg 0 f64 230400 cpu\0Aresult 0 f64 230400 cpu\0A\00")

// The f32 multilayer perceptron uses the runtime's oneDNN matmul (weights
// that are arguments: flagged not constant), frees its temporaries and
// returns two results.
// MLP-DAG: llvm.func @free(!llvm.ptr)
// MLP-DAG: llvm.func @malloc(i64) -> !llvm.ptr
// MLP-DAG: llvm.func @_mlir_ciface_tide_rt_cpu_matmul_f32(!llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i32)
// MLP-LABEL: llvm.func @mlp(
// MLP-COUNT-3: llvm.call @tide_rt_cpu_matmul_f32(
// MLP: llvm.call_intrinsic "llvm.ldexp.f32.i32"
// MLP: llvm.call @_mlir_memref_to_llvm_free
// MLP-LABEL: llvm.func @_mlir_ciface_mlp(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// MLP: @tide_module_metadata("tide-module 1\0Afunc mlp 8 2\0A{{.*}}result 0 f32 256x10 cpu\0Aresult 1 f32 scalar cpu\0A\00")

// MLP64-LABEL: llvm.func @mlp(
// MLP64-COUNT-3: llvm.call @tide_rt_gemm_f64(
// MLP64-LABEL: llvm.func @_mlir_ciface_mlp(
// MLP64: @tide_module_metadata("tide-module 1\0Afunc mlp 8 2\0A{{.*}}result 1 f64 scalar cpu\0A\00")

// The identity: the returned descriptor is built from the argument's fields.
// IDENTITY-LABEL: llvm.func @identity(
// IDENTITY-SAME: %[[ALLOC:[^:]*]]: !llvm.ptr, %[[ALIGNED:[^:]*]]: !llvm.ptr,
// IDENTITY: llvm.insertvalue %[[ALLOC]], %{{.*}}[0]
// IDENTITY: llvm.insertvalue %[[ALIGNED]], %{{.*}}[1]
// IDENTITY: llvm.return
// IDENTITY-LABEL: llvm.func @_mlir_ciface_identity(
// IDENTITY: @tide_module_metadata("tide-module 1\0Afunc identity 1 1\0Aarg 0 f32 ?x3x448x448 cpu\0Aresult 0 f32 ?x3x448x448 cpu\0A\00")

//--- chain.mlir

// Fused: the one loop loads x, a and b and computes exp, mul, add together.
// FUSED-LABEL: llvm.func @chain(
// FUSED: llvm.call @_mlir_memref_to_llvm_alloc
// FUSED: llvm.cond_br
// FUSED: %[[P:.*]] = llvm.call_intrinsic "llvm.ldexp.f32.i32"(%{{.*}}, %{{.*}}) : (f32, i32) -> f32
// FUSED: %[[E:.*]] = llvm.select %{{.*}}, %[[P]], %{{.*}} : i1, f32
// FUSED-NEXT: %[[M:.*]] = llvm.fmul %[[E]], %{{.*}} : f32
// FUSED-NEXT: %[[S:.*]] = llvm.fadd %[[M]], %{{.*}} : f32
// FUSED: llvm.store %[[S]], %{{.*}} : f32, !llvm.ptr
// FUSED-LABEL: llvm.func @_mlir_ciface_chain(

// Unfused: three loops, one op each.
// UNFUSED-LABEL: llvm.func @chain(
// UNFUSED: llvm.cond_br
// UNFUSED: llvm.call_intrinsic "llvm.ldexp.f32.i32"
// UNFUSED-NOT: llvm.fmul
// UNFUSED: llvm.cond_br
// UNFUSED: llvm.fmul
// UNFUSED-NOT: llvm.fadd
// UNFUSED: llvm.cond_br
// UNFUSED: llvm.fadd
// UNFUSED-LABEL: llvm.func @_mlir_ciface_chain(
func.func @chain(%x: tensor<1024xf32>, %a: tensor<1024xf32>, %b: tensor<1024xf32>) -> tensor<1024xf32> {
  %e = tide.exp %x : tensor<1024xf32>
  %m = tide.mul %e, %a : tensor<1024xf32>
  %r = tide.add %m, %b : tensor<1024xf32>
  return %r : tensor<1024xf32>
}

//--- matmul.mlir

// f32: oneDNN's matmul by default, OpenBLAS with dnnl=false.
// DNNL-LABEL: llvm.func @mm(
// DNNL: llvm.call @tide_rt_cpu_matmul_f32(
// DNNL-NOT: llvm.fmul
// DNNL-LABEL: llvm.func @_mlir_ciface_mm(
// BLAS-LABEL: llvm.func @mm(
// BLAS: llvm.call @tide_rt_gemm_f32(
// BLAS-NOT: llvm.fmul
// BLAS-LABEL: llvm.func @_mlir_ciface_mm(

// blas=false: a loop nest of three loops with a multiply-add.
// LOOPS-LABEL: llvm.func @mm(
// LOOPS: llvm.cond_br
// LOOPS: llvm.cond_br
// LOOPS: llvm.cond_br
// LOOPS: %[[P:.*]] = llvm.fmul
// LOOPS-NEXT: llvm.fadd %{{.*}}, %[[P]]
// LOOPS-LABEL: llvm.func @_mlir_ciface_mm(
func.func @mm(%a: tensor<4x5xf32>, %b: tensor<5x6xf32>) -> tensor<4x6xf32> {
  %0 = tide.matmul %a, %b : tensor<4x5xf32>, tensor<5x6xf32>
  return %0 : tensor<4x6xf32>
}

//--- elu.mlir

// CHECK-DAG: llvm.func @expm1(f64) -> f64
// f32 expm1 is computed inline (tide-expand-host-exp), not as exp(x) - 1.
// CHECK-LABEL: llvm.func @elu_f32(
// CHECK-NOT: llvm.call @expm1f
// CHECK: llvm.intr.fma
// CHECK-NOT: llvm.call @expm1f
// CHECK-LABEL: llvm.func @_mlir_ciface_elu_f32(
func.func @elu_f32(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = tide.elu %x : tensor<16xf32>
  return %0 : tensor<16xf32>
}

// CHECK-LABEL: llvm.func @elu_f64(
// CHECK: llvm.call @expm1(%{{.*}}) : (f64) -> f64
func.func @elu_f64(%x: tensor<16xf64>) -> tensor<16xf64> {
  %0 = tide.elu %x alpha = 0.5 : tensor<16xf64>
  return %0 : tensor<16xf64>
}

// f16 computes in f32 and is rounded once, after the select.
// CHECK-LABEL: llvm.func @elu_f16(
// CHECK: %[[W:.*]] = llvm.fpext %{{.*}} : f16 to f32
// CHECK: llvm.intr.fma
// CHECK-NOT: llvm.fptrunc
// CHECK: %[[R:.*]] = llvm.select %{{.*}}, %[[W]], %{{.*}} : i1, f32
// CHECK-NOT: llvm.fptrunc
// CHECK: %[[R2:.*]] = llvm.select %{{.*}}, %[[W]], %{{.*}} : i1, f32
// CHECK-NEXT: llvm.fptrunc %[[R2]] : f32 to f16
func.func @elu_f16(%x: tensor<16xf16>) -> tensor<16xf16> {
  %0 = tide.elu %x : tensor<16xf16>
  return %0 : tensor<16xf16>
}

//--- narrow.mlir

// CHECK-LABEL: llvm.func @sum_f16(
// CHECK: %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f16
// CHECK: %[[ACC:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK: %[[W:.*]] = llvm.fpext %[[X]] : f16 to f32
// CHECK: %[[S:.*]] = llvm.fadd %[[W]], %[[ACC]] {fastmathFlags = #llvm.fastmath<reassoc>} : f32
// CHECK: llvm.store %[[S]], %{{.*}} : f32, !llvm.ptr
// CHECK: llvm.fptrunc %{{.*}} : f32 to f16
func.func @sum_f16(%x: tensor<8192xf16>) -> tensor<f16> {
  %s = tide.reduce_sum %x axes = [0] : tensor<8192xf16>
  return %s : tensor<f16>
}

// CHECK-LABEL: llvm.func @matmul_bf16(
// CHECK: llvm.fpext %{{.*}} : bf16 to f32
// CHECK: llvm.fpext %{{.*}} : bf16 to f32
// CHECK: llvm.fmul %{{.*}}, %{{.*}} : f32
// CHECK: llvm.fadd %{{.*}}, %{{.*}} : f32
// CHECK: llvm.fptrunc %{{.*}} : f32 to bf16
func.func @matmul_bf16(%a: tensor<4x4096xbf16>, %b: tensor<4096x4xbf16>) -> tensor<4x4xbf16> {
  %c = tide.matmul %a, %b : tensor<4x4096xbf16>, tensor<4096x4xbf16>
  return %c : tensor<4x4xbf16>
}

//--- concat.mlir

// BUG: concatenating after a dynamically sized operand computes the next
// offset with an affine.apply that memref-expand-strided-metadata creates
// after lower-affine has run: it survives, wrapped in
// builtin.unrealized_conversion_cast, and translation to LLVM IR fails
// ("LLVM Translation failed for operation: builtin.unrealized_conversion_cast").
// CHECK-LABEL: llvm.func @concat_after_dynamic(
// CHECK-LABEL: llvm.func @_mlir_ciface_concat_after_dynamic(
func.func @concat_after_dynamic(%a: tensor<2x3xf64>, %c: tensor<?x3xf64>, %b: tensor<4x3xf64>) -> tensor<?x3xf64> {
  %0 = tide.concat %a, %c, %b axis = 0 : tensor<2x3xf64>, tensor<?x3xf64>, tensor<4x3xf64>
  return %0 : tensor<?x3xf64>
}

//--- strided.mlir

// BUG: a column-strided slice feeding a matmul bufferizes to a memref with
// inner stride 2, which tide-matmul-to-library casts to strided<[?, 1]>: an
// invalid memref.cast, so the pipeline (and tide-compile) fails on a valid
// program. The matmul must compile (as loops, or after a copy).
// CHECK-LABEL: llvm.func @strided_slice_matmul(
// CHECK-LABEL: llvm.func @_mlir_ciface_strided_slice_matmul(
func.func @strided_slice_matmul(%x: tensor<4x10xf32>, %w: tensor<5x6xf32>) -> tensor<4x6xf32> {
  %s = tide.slice %x start = [0, 0] limit = [4, 10] strides = [1, 2] : tensor<4x10xf32>
  %m = tide.matmul %s, %w : tensor<4x5xf32>, tensor<5x6xf32>
  return %m : tensor<4x6xf32>
}

//--- dynconv.mlir

// Two convolutions through im2col (each a loop over the batch; oneDNN off, as
// in GPU modules and for f64) with a symbolic batch: every
// size of the batch is the argument's. With sizes read from the previous
// loop's result, bufferization's slice analysis walked the network back for
// every size (a MobileNetV3 took more than 10 minutes to compile).
// CHECK-LABEL: IR Dump Before OneShotBufferizePass
// CHECK: %[[DIM:.*]] = tensor.dim {{.*}}%arg0, %c0 : tensor<?x3x16x16xf32>
// CHECK-NOT: tensor.dim
// CHECK: scf.for %{{.*}} = %c0 to %[[DIM]]
// CHECK-NOT: tensor.dim
// CHECK: scf.for %{{.*}} = %c0 to %[[DIM]]
// CHECK-NOT: tensor.dim
// CHECK: return
func.func @convs(%x: tensor<?x3x16x16xf32>, %w1: tensor<8x3x3x3xf32>, %w2: tensor<8x8x3x3xf32>) -> tensor<?x8x16x16xf32> {
  %a = tide.conv %x, %w1 strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] : tensor<?x3x16x16xf32>, tensor<8x3x3x3xf32>
  %r = tide.relu %a : tensor<?x8x16x16xf32>
  %b = tide.conv %r, %w2 strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] : tensor<?x8x16x16xf32>, tensor<8x8x3x3xf32>
  %c = tide.relu %b : tensor<?x8x16x16xf32>
  return %c : tensor<?x8x16x16xf32>
}
