// RUN: tide-opt %s --tide-strip-memory-spaces | FileCheck %s

// The GPU memory spaces (#tide.device<cuda:N>) leave every type, signatures
// included; a cast between the spaces disappears.
// CHECK-LABEL: func.func @strip(
// CHECK-SAME: %[[X:.*]]: memref<8xf32>) -> memref<8xf32>
// CHECK: %[[D:.*]] = gpu.alloc () : memref<8xf32>
// CHECK: gpu.memcpy %[[D]], %[[X]] : memref<8xf32>, memref<8xf32>
// CHECK-NOT: memory_space_cast
// CHECK: return %[[D]] : memref<8xf32>
func.func @strip(%x: memref<8xf32>) -> memref<8xf32, #tide.device<cuda:0>> {
  %d = gpu.alloc () : memref<8xf32, #tide.device<cuda:0>>
  gpu.memcpy %d, %x : memref<8xf32, #tide.device<cuda:0>>, memref<8xf32>
  %c = memref.memory_space_cast %x : memref<8xf32> to memref<8xf32, #tide.device<cuda:0>>
  return %d : memref<8xf32, #tide.device<cuda:0>>
}

// Other memory spaces (integers included) are left alone.
// CHECK-LABEL: func.func @other_space(
// CHECK-SAME: memref<8xf32, 3>, %{{.*}}: memref<8xf32, 1>
func.func @other_space(%x: memref<8xf32, 3>, %y: memref<8xf32, 1>) {
  return
}
