// RUN: tide-opt %s --tide-resident-results | FileCheck %s

// A result resident on the GPU is returned in GPU memory, without the host
// copy that bufferization made.
// CHECK-LABEL: func.func @resident(
// CHECK-SAME: -> (memref<8xf32, #tide.device<cuda:0>> {tide.resident = #tide.device<cuda:0>})
// CHECK: %[[D:.*]] = memref.alloc() : memref<8xf32, #tide.device<cuda:0>>
// CHECK-NEXT: memref.copy %{{.*}}, %[[D]] : memref<8xf32> to memref<8xf32, #tide.device<cuda:0>>
// CHECK-NEXT: return %[[D]] : memref<8xf32, #tide.device<cuda:0>>
func.func @resident(%x: memref<8xf32>) -> (memref<8xf32> {tide.resident = #tide.device<cuda:0>}) {
  %d = memref.alloc() : memref<8xf32, #tide.device<cuda:0>>
  memref.copy %x, %d : memref<8xf32> to memref<8xf32, #tide.device<cuda:0>>
  %h = memref.alloc() : memref<8xf32>
  memref.copy %d, %h : memref<8xf32, #tide.device<cuda:0>> to memref<8xf32>
  return %h : memref<8xf32>
}

// A host result keeps its copy.
// CHECK-LABEL: func.func @on_host(
// CHECK-SAME: -> memref<8xf32>
// CHECK: memref.copy %{{.*}}, %[[H:.*]] : memref<8xf32, #tide.device<cuda:0>> to memref<8xf32>
// CHECK: return %[[H]] : memref<8xf32>
func.func @on_host(%x: memref<8xf32>) -> memref<8xf32> {
  %d = memref.alloc() : memref<8xf32, #tide.device<cuda:0>>
  memref.copy %x, %d : memref<8xf32> to memref<8xf32, #tide.device<cuda:0>>
  %h = memref.alloc() : memref<8xf32>
  memref.copy %d, %h : memref<8xf32, #tide.device<cuda:0>> to memref<8xf32>
  return %h : memref<8xf32>
}
