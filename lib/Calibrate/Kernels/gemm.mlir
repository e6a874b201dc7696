// The CPU GEMMs that go to the host BLAS (tide_rt_gemm_f32/f64 ->
// OpenBLAS): kept apart from loops.mlir, so that a machine without OpenBLAS
// still measures the generated loops.
// Compiled when Tide is built (lib/Calibrate/CMakeLists.txt: --target=cpu,
// --cpu-threads=1, a portable --cpu) into <lib>/tide-calibrate/ and timed by
// tide-calibrate (lib/Calibrate/CpuCalibrate.cpp), which calls the functions
// by name: keep the names and signatures in step with it.

func.func @gemm_f32(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c = tide.matmul %a, %b : tensor<?x?xf32>
  return %c : tensor<?x?xf32>
}

func.func @gemm_f64(%a: tensor<?x?xf64>, %b: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %c = tide.matmul %a, %b : tensor<?x?xf64>
  return %c : tensor<?x?xf64>
}

// A 3x3 convolution as ResNet's first stage has them (batch 1, 64 channels,
// 56x56, padding 1), its weights an argument (reordered into oneDNN's layout
// at every call): the target's conv_gflops.
func.func @conv_f32(%x: tensor<1x64x56x56xf32>, %w: tensor<64x64x3x3xf32>) -> tensor<1x64x56x56xf32> {
  %y = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] : tensor<1x64x56x56xf32>, tensor<64x64x3x3xf32>
  return %y : tensor<1x64x56x56xf32>
}
