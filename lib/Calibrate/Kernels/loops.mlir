// Generated loops on the CPU: GEMM for the dtypes without a BLAS kernel,
// elementwise ops per dtype (exp for floats, add for integers), f32 math ops
// whose cost per element is measured against exp's (Calibrate.h's kMathOps),
// and a one-element op for the cost of a call.
// Compiled when Tide is built (lib/Calibrate/CMakeLists.txt: --target=cpu,
// --cpu-threads=1, a portable --cpu) into <lib>/tide-calibrate/ and timed by
// tide-calibrate (lib/Calibrate/CpuCalibrate.cpp), which calls the functions
// by name: keep the names and signatures in step with it.

func.func @gemm_f16(%a: tensor<?x?xf16>, %b: tensor<?x?xf16>) -> tensor<?x?xf16> {
  %c = tide.matmul %a, %b : tensor<?x?xf16>
  return %c : tensor<?x?xf16>
}

func.func @gemm_bf16(%a: tensor<?x?xbf16>, %b: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %c = tide.matmul %a, %b : tensor<?x?xbf16>
  return %c : tensor<?x?xbf16>
}

func.func @gemm_i8(%a: tensor<?x?xi8>, %b: tensor<?x?xi8>) -> tensor<?x?xi8> {
  %c = tide.matmul %a, %b : tensor<?x?xi8>
  return %c : tensor<?x?xi8>
}

func.func @gemm_i16(%a: tensor<?x?xi16>, %b: tensor<?x?xi16>) -> tensor<?x?xi16> {
  %c = tide.matmul %a, %b : tensor<?x?xi16>
  return %c : tensor<?x?xi16>
}

func.func @gemm_i32(%a: tensor<?x?xi32>, %b: tensor<?x?xi32>) -> tensor<?x?xi32> {
  %c = tide.matmul %a, %b : tensor<?x?xi32>
  return %c : tensor<?x?xi32>
}

func.func @gemm_i64(%a: tensor<?x?xi64>, %b: tensor<?x?xi64>) -> tensor<?x?xi64> {
  %c = tide.matmul %a, %b : tensor<?x?xi64>
  return %c : tensor<?x?xi64>
}

func.func @exp_f16(%x: tensor<?xf16>) -> tensor<?xf16> {
  %y = tide.exp %x : tensor<?xf16>
  return %y : tensor<?xf16>
}

func.func @exp_bf16(%x: tensor<?xbf16>) -> tensor<?xbf16> {
  %y = tide.exp %x : tensor<?xbf16>
  return %y : tensor<?xbf16>
}

func.func @exp_f32(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = tide.exp %x : tensor<?xf32>
  return %y : tensor<?xf32>
}

func.func @exp_f64(%x: tensor<?xf64>) -> tensor<?xf64> {
  %y = tide.exp %x : tensor<?xf64>
  return %y : tensor<?xf64>
}

func.func @add_i8(%x: tensor<?xi8>, %y: tensor<?xi8>) -> tensor<?xi8> {
  %z = tide.add %x, %y : tensor<?xi8>
  return %z : tensor<?xi8>
}

func.func @add_i16(%x: tensor<?xi16>, %y: tensor<?xi16>) -> tensor<?xi16> {
  %z = tide.add %x, %y : tensor<?xi16>
  return %z : tensor<?xi16>
}

func.func @add_i32(%x: tensor<?xi32>, %y: tensor<?xi32>) -> tensor<?xi32> {
  %z = tide.add %x, %y : tensor<?xi32>
  return %z : tensor<?xi32>
}

func.func @add_i64(%x: tensor<?xi64>, %y: tensor<?xi64>) -> tensor<?xi64> {
  %z = tide.add %x, %y : tensor<?xi64>
  return %z : tensor<?xi64>
}

func.func @call(%x: tensor<1xf32>, %y: tensor<1xf32>) -> tensor<1xf32> {
  %z = tide.add %x, %y : tensor<1xf32>
  return %z : tensor<1xf32>
}

func.func @unary_log_f32(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = tide.log %x : tensor<?xf32>
  return %y : tensor<?xf32>
}

func.func @unary_tanh_f32(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = tide.tanh %x : tensor<?xf32>
  return %y : tensor<?xf32>
}

func.func @unary_sigmoid_f32(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = tide.sigmoid %x : tensor<?xf32>
  return %y : tensor<?xf32>
}

func.func @unary_sin_f32(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = tide.sin %x : tensor<?xf32>
  return %y : tensor<?xf32>
}

func.func @unary_cos_f32(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = tide.cos %x : tensor<?xf32>
  return %y : tensor<?xf32>
}

func.func @unary_erf_f32(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = tide.erf %x : tensor<?xf32>
  return %y : tensor<?xf32>
}

func.func @unary_tan_f32(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = tide.tan %x : tensor<?xf32>
  return %y : tensor<?xf32>
}

func.func @unary_asin_f32(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = tide.asin %x : tensor<?xf32>
  return %y : tensor<?xf32>
}

func.func @unary_acos_f32(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = tide.acos %x : tensor<?xf32>
  return %y : tensor<?xf32>
}

func.func @unary_atan_f32(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = tide.atan %x : tensor<?xf32>
  return %y : tensor<?xf32>
}

func.func @unary_sinh_f32(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = tide.sinh %x : tensor<?xf32>
  return %y : tensor<?xf32>
}

func.func @unary_cosh_f32(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = tide.cosh %x : tensor<?xf32>
  return %y : tensor<?xf32>
}

func.func @unary_asinh_f32(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = tide.asinh %x : tensor<?xf32>
  return %y : tensor<?xf32>
}

func.func @unary_acosh_f32(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = tide.acosh %x : tensor<?xf32>
  return %y : tensor<?xf32>
}

func.func @unary_atanh_f32(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = tide.atanh %x : tensor<?xf32>
  return %y : tensor<?xf32>
}
