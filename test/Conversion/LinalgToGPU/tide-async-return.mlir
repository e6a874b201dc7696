// RUN: tide-opt %s --pass-pipeline='builtin.module(func.func(tide-async-return))' | FileCheck %s
module attributes {gpu.container_module} {

// Arguments and results all on the GPU: no host wait before returning.
// CHECK-LABEL: func.func @on_gpu(
// CHECK: gpu.launch_func async
// CHECK-NOT: gpu.wait [
// CHECK: return
func.func @on_gpu(%x: memref<8xf32> {tide.resident = #tide.device<cuda:0>})
    -> (memref<8xf32> {tide.resident = #tide.device<cuda:0>}) {
  %c1 = arith.constant 1 : index
  %t0 = gpu.wait async
  %y, %t1 = gpu.alloc async [%t0] () : memref<8xf32>
  %t2 = gpu.launch_func async [%t1] @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<8xf32>, %y : memref<8xf32>)
  gpu.wait [%t2]
  return %y : memref<8xf32>
}

// A host result (or a host argument) keeps the wait.
// CHECK-LABEL: func.func @to_host(
// CHECK: gpu.wait [%{{.*}}]
// CHECK-NEXT: return
func.func @to_host(%x: memref<8xf32> {tide.resident = #tide.device<cuda:0>}, %h: memref<8xf32>)
    -> memref<8xf32> {
  %t0 = gpu.wait async
  %t1 = gpu.memcpy async [%t0] %h, %x : memref<8xf32>, memref<8xf32>
  gpu.wait [%t1]
  return %h : memref<8xf32>
}

// No host wait before Tide's GEMM: it runs on the same stream.
// CHECK-LABEL: func.func @gemm(
// CHECK: gpu.launch_func async
// CHECK-NEXT: call @tide_rt_gpu_gemm_f32
// CHECK: gpu.wait [%{{.*}}]
// CHECK-NEXT: return
func.func @gemm(%a: memref<?x?xf32, strided<[?, 1], offset: ?>>, %h: memref<8xf32>) -> memref<8xf32> {
  %c1 = arith.constant 1 : index
  %c1_i32 = arith.constant 1 : i32
  %t0 = gpu.wait async
  %t1 = gpu.launch_func async [%t0] @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%h : memref<8xf32>, %h : memref<8xf32>)
  gpu.wait [%t1]
  call @tide_rt_gpu_gemm_f32(%a, %a, %a, %c1_i32) : (memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<?x?xf32, strided<[?, 1], offset: ?>>, i32) -> ()
  %t2 = gpu.wait async
  %t3 = gpu.memcpy async [%t2] %h, %h : memref<8xf32>, memref<8xf32>
  gpu.wait [%t3]
  return %h : memref<8xf32>
}
// Nor before a host loop that only calls it (batched matmuls over outer
// batch dims); a loop that also does other work keeps the wait.
// CHECK-LABEL: func.func @gemm_loop(
// CHECK: gpu.launch_func async
// CHECK-NEXT: scf.for
// CHECK: func.call @tide_rt_gpu_gemm_f32
// CHECK: gpu.wait [%{{.*}}]
// CHECK-NEXT: scf.for
// CHECK: memref.store
func.func @gemm_loop(%a: memref<?x?xf32, strided<[?, 1], offset: ?>>, %h: memref<8xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1_i32 = arith.constant 1 : i32
  %f = arith.constant 1.0 : f32
  %t0 = gpu.wait async
  %t1 = gpu.launch_func async [%t0] @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%h : memref<8xf32>, %h : memref<8xf32>)
  gpu.wait [%t1]
  scf.for %i = %c0 to %n step %c1 {
    %j = arith.addi %i, %c1 : index
    func.call @tide_rt_gpu_gemm_f32(%a, %a, %a, %c1_i32) : (memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<?x?xf32, strided<[?, 1], offset: ?>>, i32) -> ()
  }
  %t2 = gpu.wait async
  %t3 = gpu.launch_func async [%t2] @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%h : memref<8xf32>, %h : memref<8xf32>)
  gpu.wait [%t3]
  scf.for %i = %c0 to %n step %c1 {
    func.call @tide_rt_gpu_gemm_f32(%a, %a, %a, %c1_i32) : (memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<?x?xf32, strided<[?, 1], offset: ?>>, i32) -> ()
    memref.store %f, %h[%i] : memref<8xf32>
  }
  return
}
// A wait for a copy to the host stays: host code after the call may read it.
// CHECK-LABEL: func.func @gemm_after_copy(
// CHECK: gpu.memcpy async
// CHECK-NEXT: gpu.wait [%{{.*}}]
// CHECK-NEXT: call @tide_rt_gpu_gemm_f32
// CHECK: memref.load
func.func @gemm_after_copy(%a: memref<?x?xf32, strided<[?, 1], offset: ?>>, %h: memref<8xf32>, %d: memref<8xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1_i32 = arith.constant 1 : i32
  %t0 = gpu.wait async
  %t1 = gpu.memcpy async [%t0] %h, %d : memref<8xf32>, memref<8xf32>
  gpu.wait [%t1]
  call @tide_rt_gpu_gemm_f32(%a, %a, %a, %c1_i32) : (memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<?x?xf32, strided<[?, 1], offset: ?>>, i32) -> ()
  %v = memref.load %h[%c0] : memref<8xf32>
  return %v : f32
}
// A wait for copies into GPU memory only is dropped before a cuDNN call and
// a constant's copy (the host sources were read when the copies returned).
// CHECK-LABEL: func.func @conv_after_upload(
// CHECK: gpu.memcpy async
// CHECK-NOT: gpu.wait [
// CHECK: call @tide_rt_gpu_copy_constant
// CHECK-NOT: gpu.wait [
// CHECK: call @tide_rt_gpu_conv_f32
// CHECK: gpu.wait [%{{.*}}]
// CHECK-NEXT: return
func.func @conv_after_upload(%h: memref<8xf32>, %u: memref<*xf32>, %p: i64) {
  %c0 = arith.constant 0 : i64
  %t0 = gpu.wait async
  %d, %t1 = gpu.alloc async [%t0] () : memref<8xf32>
  %t2 = gpu.memcpy async [%t1] %d, %h : memref<8xf32>, memref<8xf32>
  gpu.wait [%t2]
  call @tide_rt_gpu_copy_constant(%p, %p, %p, %p) : (i64, i64, i64, i64) -> ()
  %t3 = gpu.wait async
  gpu.wait [%t3]
  call @tide_rt_gpu_conv_f32(%u, %u, %u, %c0) : (memref<*xf32>, memref<*xf32>, memref<*xf32>, i64) -> ()
  %t4 = gpu.wait async
  %t5 = gpu.memcpy async [%t4] %h, %d : memref<8xf32>, memref<8xf32>
  gpu.wait [%t5]
  return
}
func.func private @tide_rt_gpu_copy_constant(i64, i64, i64, i64)
func.func private @tide_rt_gpu_conv_f32(memref<*xf32>, memref<*xf32>, memref<*xf32>, i64)
func.func private @tide_rt_gpu_gemm_f32(memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<?x?xf32, strided<[?, 1], offset: ?>>, i32)

gpu.module @kernels {
  gpu.func @k(%a: memref<8xf32>, %b: memref<8xf32>) kernel {
    gpu.return
  }
}
}
