// The seed examples parse, verify and round-trip (they are the programs every
// later stage compiles and runs).
// RUN: tide-opt %examples/exp_f32.mlir | FileCheck %s --check-prefix=EXP32
// RUN: tide-opt %examples/exp_f64.mlir | FileCheck %s --check-prefix=EXP64
// RUN: tide-opt %examples/mlp_f32.mlir | FileCheck %s --check-prefix=MLP32
// RUN: tide-opt %examples/mlp_f64.mlir | FileCheck %s --check-prefix=MLP64
// RUN: tide-opt %examples/identity.mlir | FileCheck %s --check-prefix=ID
// RUN: tide-opt %examples/mlp_f32.mlir --mlir-print-op-generic | tide-opt | FileCheck %s --check-prefix=MLP32

// EXP32-LABEL: func.func @exp(%{{.*}}: tensor<230400xf32>) -> tensor<230400xf32>
// EXP32: tide.exp %{{.*}} : tensor<230400xf32>

// EXP64-LABEL: func.func @exp(%{{.*}}: tensor<230400xf64>) -> tensor<230400xf64>
// EXP64: tide.exp %{{.*}} : tensor<230400xf64>

// The MLP: three matmuls, two ELUs, softmax output and a scalar mean loss.
// MLP32-LABEL: func.func @mlp
// MLP32-SAME: -> (tensor<256x10xf32>, tensor<f32>)
// MLP32-COUNT-3: tide.matmul
// MLP32: tide.softmax %{{.*}} axis = 1 : tensor<256x10xf32>
// MLP32: tide.log_softmax
// MLP32: tide.reduce_mean %{{.*}} axes = [0] : tensor<256xf32>

// MLP64-LABEL: func.func @mlp
// MLP64-SAME: -> (tensor<256x10xf64>, tensor<f64>)
// MLP64: tide.elu %{{.*}} : tensor<256x256xf64>
// MLP64: tide.reduce_mean %{{.*}} axes = [0] : tensor<256xf64>

// ID-LABEL: func.func @identity
// ID-SAME: (%[[X:.*]]: tensor<?x3x448x448xf32>) -> tensor<?x3x448x448xf32>
// ID-NEXT: return %[[X]] : tensor<?x3x448x448xf32>
