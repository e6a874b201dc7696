// Stock mlir-opt-22 loads Tide's dialect and pass plugins and runs placement
// without tide-opt (in a sanitizer build, with the sanitizer runtime
// preloaded: mlir-opt-22 is built without it).
// RUN: %sanitizer_preload %mlir_opt --load-dialect-plugin=%tide_obj/lib/libTideDialectPlugin.so \
// RUN:   --load-pass-plugin=%tide_obj/lib/libTidePassPlugin.so %s \
// RUN:   --pass-pipeline="builtin.module(tide-place-pipeline{target=theano-0.7 remarks=false})" \
// RUN:   | FileCheck %s

// CHECK-LABEL: func.func @exp32
// CHECK: %[[IN:.*]] = tide.transfer %{{.*}} : tensor<8xf32> to #tide.device<cuda:0>
// CHECK: %[[E:.*]] = tide.exp %[[IN]] {tide.device = #tide.device<cuda:0>, tide.reason = "preferred"}
// CHECK: tide.transfer %[[E]] : tensor<8xf32> to #tide.device<cpu>
func.func @exp32(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = tide.exp %x : tensor<8xf32>
  return %y : tensor<8xf32>
}

// CHECK-LABEL: func.func @exp64
// CHECK-NOT: tide.transfer
// CHECK: tide.exp %{{.*}} {tide.device = #tide.device<cpu>, tide.reason = "no-kernel(cuda:0, f64)"}
func.func @exp64(%x: tensor<8xf64>) -> tensor<8xf64> {
  %y = tide.exp %x : tensor<8xf64>
  return %y : tensor<8xf64>
}
