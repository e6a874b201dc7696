// Tests of tide-attach-gpu-target: the NVVM target of every gpu.module comes
// from the chip of the module's target (tide.target); an override must agree.

// RUN: rm -rf %t && split-file %s %t
// RUN: tide-opt %t/placed.mlir -split-input-file --tide-attach-gpu-target | FileCheck %t/placed.mlir
// RUN: tide-opt %t/placed.mlir -split-input-file --tide-attach-gpu-target=chip=sm_90 | FileCheck %t/placed.mlir
// RUN: not tide-opt %t/placed.mlir -split-input-file --tide-attach-gpu-target=chip=sm_80 2>&1 \
// RUN:   | FileCheck %t/placed.mlir --check-prefix=DISAGREE
// RUN: not tide-opt %t/old.mlir --tide-attach-gpu-target=toolkit=%cuda_root 2>&1 \
// RUN:   | FileCheck %t/old.mlir
// REQUIRES: cuda-toolkit

//--- placed.mlir

// The chip of the recorded target (h200: sm_90).
// CHECK: gpu.module @k [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">]
// DISAGREE: error: option chip='sm_80' disagrees with the sm_90 of target 'h200' the module was placed for (its tide.target)
module attributes {gpu.container_module, tide.target = #tide.target<name = "h200", source = "built-in", chips = {cpu = "", "cuda:0" = "sm_90"}>} {
  gpu.module @k {
  }
}

// -----

// No recorded target: the default target's chip.
// CHECK: gpu.module @d [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">]
module attributes {gpu.container_module} {
  gpu.module @d {
  }
}

//--- old.mlir

// negative: a target for a chip this toolkit cannot build for.
// CHECK: error: GPU chip sm_52 (target 'theano-0.7') cannot be built by the CUDA toolkit at '{{.*}}': its ptxas builds for sm_{{[0-9]+}} to sm_{{[0-9]+}} only
module attributes {gpu.container_module, tide.target = #tide.target<name = "theano-0.7", source = "built-in", chips = {cpu = "", "cuda:0" = "sm_52"}>} {
  gpu.module @old {
  }
}
