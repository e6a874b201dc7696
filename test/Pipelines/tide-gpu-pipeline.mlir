// REQUIRES: cuda-toolkit
// RUN: tide-opt %s --tide-place-pipeline=target=h200 --tide-gpu-pipeline \
// RUN:   | FileCheck %s
// RUN: tide-opt %s --tide-place-pipeline=target=h200 --tide-gpu-pipeline=format=isa \
// RUN:   | FileCheck %s --check-prefix=PTX

// The host's share of a GPU module runs across threads as CPU modules do
// (threads=0, the default: OpenMP regions sized at run time); threads=1 keeps
// it serial, with no libomp; bad values are refused.
// RUN: tide-opt %S/Inputs/gpu-host-loops.mlir --tide-place-pipeline=target=h200 \
// RUN:   --tide-gpu-pipeline=avx512=true | FileCheck %s --check-prefix=HOST-OMP
// RUN: tide-opt %S/Inputs/gpu-host-loops.mlir --tide-place-pipeline=target=h200 \
// RUN:   --tide-gpu-pipeline="threads=1 avx512=true" \
// RUN:   | FileCheck %s --check-prefix=HOST-SERIAL --implicit-check-not=omp. --implicit-check-not=tide_rt_cpu_team_size
// RUN: not tide-opt %S/Inputs/gpu-host-loops.mlir --tide-gpu-pipeline=threads=2000 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD-THREADS
// RUN: not tide-opt %S/Inputs/gpu-host-loops.mlir --tide-gpu-pipeline=grain=-5 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD-GRAIN
// HOST-OMP-LABEL: llvm.func @host_loops(
// HOST-OMP:       llvm.call @tide_rt_cpu_team_size(
// HOST-OMP:       omp.parallel if(%{{.*}}) num_threads(%{{.*}} : i32)
// HOST-OMP:       omp.wsloop
// HOST-OMP:       llvm.call_intrinsic "llvm.ldexp.f32.i32"
// HOST-OMP:       gpu.launch_func
// HOST-OMP:       llvm.call @tide_rt_cpu_team_size(
// HOST-OMP:       omp.parallel
// HOST-OMP-LABEL: gpu.binary @tide_kernels
// HOST-SERIAL-LABEL: llvm.func @host_loops(
// HOST-SERIAL:       llvm.call_intrinsic "llvm.ldexp.f32.i32"
// HOST-SERIAL:       gpu.launch_func
// Host products as in CPU modules: f32 through oneDNN, f64 through OpenBLAS;
// dnnl=false sends both to OpenBLAS (no libdnnl needed).
// RUN: tide-opt %S/Inputs/gpu-host-matmul.mlir --tide-place-pipeline=target=h200 \
// RUN:   --tide-gpu-pipeline | FileCheck %s --check-prefix=HOST-DNNL
// RUN: tide-opt %S/Inputs/gpu-host-matmul.mlir --tide-place-pipeline=target=h200 \
// RUN:   --tide-gpu-pipeline=dnnl=false | FileCheck %s --check-prefix=HOST-BLAS \
// RUN:   --implicit-check-not=tide_rt_cpu_matmul
// HOST-DNNL-LABEL: llvm.func @host_matmul(
// HOST-DNNL-DAG:   gpu.launch_func
// HOST-DNNL-DAG:   llvm.call @tide_rt_cpu_matmul_f32(
// HOST-DNNL-DAG:   llvm.call @tide_rt_gemm_f64(
// HOST-BLAS-LABEL: llvm.func @host_matmul(
// HOST-BLAS-DAG:   llvm.call @tide_rt_gemm_f32(
// HOST-BLAS-DAG:   llvm.call @tide_rt_gemm_f64(
// The host's softmax and column sum after a kernel are tiled as in CPU
// modules: one parallel loop of row tiles for the softmax (four without
// tide-tile-and-fuse-rows), one for the split column sum.
// RUN: tide-opt %S/Inputs/gpu-host-rows.mlir --tide-place-pipeline=target=h200 \
// RUN:   --tide-gpu-pipeline=avx512=true | FileCheck %s --check-prefix=HOST-ROWS
// HOST-ROWS-LABEL: llvm.func @host_rows(
// HOST-ROWS:       gpu.launch_func
// HOST-ROWS-COUNT-2: omp.parallel if
// HOST-ROWS-NOT:   omp.parallel if
// HOST-ROWS-LABEL: gpu.binary @tide_kernels
// BAD-THREADS: invalid 'threads' option 2000; expected 0 (decided at run time) to 1024
// BAD-GRAIN: invalid 'grain' option -5; it must be positive

// A 64-bit shift amount is clamped to 64 before PTX's shift, whose amount is
// 32 bits: an amount of 2^32 or more shifts every bit out (a random program
// found x << (22 << 40) == x when NVPTX narrowed the amount unclamped).
// RUN: tide-opt %S/Inputs/gpu-shift.mlir --tide-place-pipeline=target=h200 --tide-gpu-pipeline=format=isa \
// RUN:   | FileCheck %s --check-prefix=SHIFT
// SHIFT: min.u64 {{[^%]*}}[[C:%rd[0-9]+]], [[X:%rd[0-9]+]], 64;
// SHIFT: setp.lt.u64 {{[^%]*}}[[OK:%p[0-9]+]], [[X]], 64;
// SHIFT: cvt.u32.u64 {{[^%]*}}[[N:%r[0-9]+]], [[C]];
// SHIFT: shl.b64 {{[^%]*}}[[S:%rd[0-9]+]], [[X]], [[N]];
// SHIFT: selp.b64 {{[^%]*}}%rd{{[0-9]+}}, [[S]], 0, [[OK]];

// Host allocations hoisted above the first GPU work take the ops of their
// size along, each once and in order: a size two additions read
// (dim(%a5) + dim(%a5)) was moved twice and ended after its first reader
// ("operand does not dominate this use"; found by random programs).
// A dynamic slice from [1, 0, 0] of a k = 1 top_k (its run-time size 1, made
// static by canonicalization after bufferization) takes no element and reads
// at offset 0, where the subview at offset 1 of a size 1 was rejected ("offset
// 0 is out-of-bounds: 1 >= 1"; found by random programs built for h200).
// RUN: tide-opt %S/Inputs/gpu-empty-slice-end.mlir --tide-place-pipeline=target=h200 --tide-gpu-pipeline \
// RUN:   | FileCheck %s --check-prefix=EMPTY-END
// EMPTY-END-LABEL: llvm.func @slice_from_end(
// RUN: tide-opt %S/Inputs/gpu-concat-sizes.mlir --tide-place-pipeline=target=h200 --tide-gpu-pipeline \
// RUN:   | FileCheck %s --check-prefix=SIZES
// SIZES-LABEL: llvm.func @f(
// SIZES: llvm.call @mgpuMemAlloc(

// A module with CPU and GPU parts: exp and the sum run on the GPU, the log
// pinned to the CPU runs as a host loop between them. One stream serves the
// call; the host waits for it before the log reads the copied values, and
// once at the end.
func.func @mixed(%x: tensor<1024xf32>) -> tensor<f32> {
  %e = tide.exp %x : tensor<1024xf32>
  %l = tide.log %e {tide.device = #tide.device<cpu>} : tensor<1024xf32>
  %s = tide.reduce_sum %l axes = [0] : tensor<1024xf32>
  return %s : tensor<f32>
}

// CHECK-LABEL: llvm.func @mixed(
// CHECK:       %[[S:.*]] = llvm.call @mgpuStreamCreate()
// CHECK:       llvm.call @mgpuMemcpy(
// CHECK:       gpu.launch_func <%[[S]] : !llvm.ptr> @tide_kernels::@mixed_exp_0
// CHECK:       llvm.call @mgpuMemcpy(
// CHECK:       llvm.call @mgpuStreamSynchronize(%[[S]])
// CHECK:       llvm.intr.log(
// CHECK-NOT:   @mixed_fill
// CHECK:       gpu.launch_func {{.*}} @tide_kernels::@mixed_addf_1
// CHECK:       llvm.call @mgpuStreamSynchronize(
// CHECK:       gpu.binary @tide_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, properties = {{[{].*[}]}}, "

// The kernels: 16-byte vector loads for exp, libdevice's expf, and a block
// reduction through warp shuffles.
// PTX: .visible .entry mixed_exp_0(
// PTX: ld.global.v4.b32
// PTX: ex2.approx.ftz.f32
// PTX: st.global.v4.b32
// PTX: .visible .entry mixed_addf_1(
// PTX: shfl.sync.bfly.b32

// gather on the GPU: one thread per index; a constant input (its payload
// reads it, it is no operand of the linalg op) is only read, so the kernel
// reads the runtime's device copy of it (uploaded at the first call):
// no allocation or copy of it per call.
func.func @gather_constant(%i: tensor<4xi64>) -> tensor<4xf32> {
  %c = tide.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0]> : tensor<5xf32>
  %r = tide.gather %c, %i axis = 0 : tensor<5xf32>, tensor<4xi64>
  return %r : tensor<4xf32>
}

// CHECK-LABEL: llvm.func @gather_constant(
// CHECK:       llvm.mlir.addressof @__constant_5xf32_device_copy
// CHECK:       llvm.mlir.addressof @__constant_5xf32 :
// CHECK:       %[[P:.*]] = llvm.call @tide_rt_gpu_constant(
// CHECK:       %[[D:.*]] = llvm.inttoptr %[[P]] : i64 to !llvm.ptr
// CHECK-NOT:   tide_rt_gpu_copy_constant
// CHECK:       gpu.launch_func <{{.*}}> @tide_kernels::@gather_constant_{{.*}} args({{.*}}%[[D]] : !llvm.ptr, %[[D]] : !llvm.ptr
// CHECK-LABEL: llvm.func @_mlir_ciface_gather_constant(

// The kernel clamps each index before it loads (two indices per thread here:
// 16-byte vector loads of the i64 indices).
// PTX: .visible .entry gather_constant_
// PTX: ld.global.v2.b64
// PTX: max.s64
// PTX: min.s64
// PTX: ld.global.b32
