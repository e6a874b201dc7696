// Tests of tide-expand-host-exp: host math.exp and math.expm1 on f32 scalars
// become inline arithmetic the loop vectorizer vectorizes (no libm or libmvec
// call); the scale by 2^k is llvm.ldexp with ldexp=true (VSCALEFPS on
// AVX-512), else two powers of two built from the bits. f64 exp the same way
// in 64 bits (degree 13) with f64=true; 1-D vectors the same way on vectors;
// f64 expm1, other vectors and GPU code are left alone.

// RUN: tide-opt %s --tide-expand-host-exp="f64=true" | FileCheck %s --check-prefixes=CHECK,BITS
// RUN: tide-opt %s --tide-expand-host-exp="ldexp=true f64=true" | FileCheck %s --check-prefixes=CHECK,LDEXP
// Without f64=true, f64 exp is left to libmvec.
// RUN: tide-opt %s --tide-expand-host-exp | FileCheck %s --check-prefix=NOF64

// CHECK-LABEL: func.func @host(
// CHECK-SAME: %[[X:.*]]: f32, %[[V:.*]]: vector<4xf32>, %[[W:.*]]: vector<2x4xf32>
// CHECK-NOT: math.exp %[[X]]
// Lanes below -103.97 (e^x rounds to 0) give 0 at the end; without ldexp
// they compute from 0 instead, so that no step underflows (a microcode assist
// on x86); with it only the scaling could, and it is masked. The argument is
// clamped above at 89. The kept lanes are the unordered-not-below ones (a NaN
// goes on), so that the selects keep where the mask is set (zero-masked
// AVX-512 instructions).
// CHECK: %[[LOW:.*]] = arith.constant -103.972076 : f32
// CHECK: %[[KEEP:.*]] = arith.cmpf uge, %[[X]], %[[LOW]] : f32
// BITS: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// BITS: %[[XL:.*]] = arith.select %[[KEEP]], %[[X]], %[[ZERO]] : f32
// BITS: %[[HIGH:.*]] = arith.constant 8.900000e+01 : f32
// BITS: %[[GT:.*]] = arith.cmpf ogt, %[[XL]], %[[HIGH]] : f32
// BITS: %[[XC:.*]] = arith.select %[[GT]], %[[HIGH]], %[[XL]] : f32
// LDEXP-NOT: arith.select %[[KEEP]], %[[X]]
// LDEXP: %[[HIGH:.*]] = arith.constant 8.900000e+01 : f32
// LDEXP: %[[GT:.*]] = arith.cmpf ogt, %[[X]], %[[HIGH]] : f32
// LDEXP: %[[XC:.*]] = arith.select %[[GT]], %[[HIGH]], %[[X]] : f32
// k = round(x * log2(e)) through the 1.5 * 2^23 shift, also as an integer;
// r = x - k * ln(2).
// CHECK: %[[SHIFTED:.*]] = math.fma %[[XC]], %{{.*}}, %[[ROUND:.*]] : f32
// CHECK: %[[K:.*]] = arith.subf %[[SHIFTED]], %[[ROUND]] : f32
// CHECK: %[[R1:.*]] = math.fma %[[K]], %{{.*}}, %[[XC]] : f32
// CHECK: %[[R:.*]] = math.fma %[[K]], %{{.*}}, %[[R1]] : f32
// CHECK: %[[KI:.*]] = arith.subi
// Six FMAs of the polynomial (degree 6), the last two adding 1.
// CHECK-COUNT-6: math.fma %{{.*}}, %[[R]], %{{.*}} : f32
// CHECK-NOT: math.fma
// LDEXP: %[[P:.*]] = llvm.call_intrinsic "llvm.ldexp.f32.i32"(%{{.*}}, %[[KI]]) : (f32, i32) -> f32
// BITS: %[[K1:.*]] = arith.shrsi %[[KI]], %{{.*}} : i32
// BITS: %[[K2:.*]] = arith.subi %[[KI]], %[[K1]] : i32
// BITS: arith.shli
// BITS: arith.bitcast %{{.*}} : i32 to f32
// BITS: arith.mulf
// BITS: arith.shli
// BITS: arith.bitcast %{{.*}} : i32 to f32
// BITS: %[[P:.*]] = arith.mulf
// CHECK: %[[Y1:.*]] = arith.select %[[KEEP]], %[[P]], %{{.*}} : f32
// A 1-D vector (a loop tide-stream-stores vectorized): the same steps on
// vectors, constants splat; other shapes are left alone.
// CHECK: arith.cmpf uge, %[[V]], %{{.*}} : vector<4xf32>
// CHECK-COUNT-6: math.fma %{{.*}} : vector<4xf32>
// LDEXP: llvm.call_intrinsic "llvm.ldexp.v4f32.v4i32"(%{{.*}}, %{{.*}}) : (vector<4xf32>, vector<4xi32>) -> vector<4xf32>
// BITS: arith.bitcast %{{.*}} : vector<4xi32> to vector<4xf32>
// CHECK: %[[Y3:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<4xi1>, vector<4xf32>
// CHECK: %[[Y4:.*]] = math.exp %[[W]] : vector<2x4xf32>
// CHECK: return %[[Y1]], %[[Y3]], %[[Y4]]
func.func @host(%x: f32, %v: vector<4xf32>, %w: vector<2x4xf32>) -> (f32, vector<4xf32>, vector<2x4xf32>) {
  %a = math.exp %x : f32
  %c = math.exp %v : vector<4xf32>
  %d = math.exp %w : vector<2x4xf32>
  return %a, %c, %d : f32, vector<4xf32>, vector<2x4xf32>
}

// f64 exp: the same steps in 64 bits. Lanes below ln(2^-1075) give 0, the
// argument is clamped at 710 (the scaling gives inf), k = round(x * log2(e))
// through the 1.5 * 2^52 shift (an i64), ln(2) split as fdlibm splits it, 13
// FMAs of the degree-13 Taylor polynomial; llvm.ldexp takes k as an i32, the
// powers of two are built in the 52-bit field.
// CHECK-LABEL: func.func @host_f64(
// CHECK-SAME: %[[X:.*]]: f64
// CHECK: %[[LOW:.*]] = arith.constant -745.13321910194111 : f64
// CHECK: %[[KEEP:.*]] = arith.cmpf uge, %[[X]], %[[LOW]] : f64
// CHECK: %[[HIGH:.*]] = arith.constant 7.100000e+02 : f64
// CHECK: arith.cmpf ogt, %{{.*}}, %[[HIGH]] : f64
// CHECK: %[[ROUND:.*]] = arith.constant 0x4338000000000000 : f64
// CHECK: %[[SHIFTED:.*]] = math.fma %{{.*}}, %{{.*}}, %[[ROUND]] : f64
// CHECK: %[[K:.*]] = arith.subf %[[SHIFTED]], %[[ROUND]] : f64
// CHECK: arith.constant -0.69314718036912382 : f64
// CHECK: %[[R1:.*]] = math.fma %[[K]], %{{.*}}, %{{.*}} : f64
// CHECK: %[[R:.*]] = math.fma %[[K]], %{{.*}}, %[[R1]] : f64
// CHECK: %[[KI:.*]] = arith.subi %{{.*}}, %{{.*}} : i64
// CHECK-COUNT-13: math.fma %{{.*}}, %[[R]], %{{.*}} : f64
// CHECK-NOT: math.fma
// LDEXP: %[[K32:.*]] = arith.trunci %[[KI]] : i64 to i32
// LDEXP: %[[P:.*]] = llvm.call_intrinsic "llvm.ldexp.f64.i32"(%{{.*}}, %[[K32]]) : (f64, i32) -> f64
// BITS: %[[K1:.*]] = arith.shrsi %[[KI]], %{{.*}} : i64
// BITS: arith.constant 1023 : i64
// BITS: arith.constant 52 : i64
// BITS: arith.bitcast %{{.*}} : i64 to f64
// BITS: arith.mulf
// BITS: arith.bitcast %{{.*}} : i64 to f64
// BITS: %[[P:.*]] = arith.mulf
// CHECK: %[[Y:.*]] = arith.select %[[KEEP]], %[[P]], %{{.*}} : f64
// CHECK: return %[[Y]]
// NOF64-LABEL: func.func @host_f64(
// NOF64-NEXT: math.exp %{{.*}} : f64
func.func @host_f64(%x: f64) -> f64 {
  %a = math.exp %x : f64
  return %a : f64
}

// expm1: lanes below -18 (e^x - 1 rounds to -1) compute from 0 and give -1;
// e^r - 1 = r + r^2 q(r) (never a difference near 0), then
// 2^k (e^r - 1) + (2^k - 1) with k clamped to [-25, 24], or (e^r) 2^k - 1
// above; -0 kept.
// CHECK-LABEL: func.func @host_expm1(
// CHECK-SAME: %[[X:.*]]: f32, %[[Y:.*]]: f64
// CHECK: %[[LOW:.*]] = arith.constant -1.800000e+01 : f32
// CHECK: %[[LT:.*]] = arith.cmpf olt, %[[X]], %[[LOW]] : f32
// CHECK: arith.select %[[LT]], %{{.*}}, %[[X]] : f32
// CHECK: %[[SHIFTED:.*]] = math.fma
// CHECK: arith.subf %[[SHIFTED]]
// CHECK: math.fma
// CHECK: %[[R:.*]] = math.fma
// CHECK: %[[KI:.*]] = arith.subi
// CHECK-COUNT-5: math.fma %{{.*}}, %[[R]], %{{.*}} : f32
// CHECK: %[[R2:.*]] = arith.mulf %[[R]], %[[R]] : f32
// CHECK: %[[EM1R:.*]] = math.fma %{{.*}}, %[[R2]], %[[R]] : f32
// CHECK: arith.maxsi %[[KI]]
// CHECK: arith.minsi
// CHECK: %[[T:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK: %[[TM1:.*]] = arith.subf %[[T]], %{{.*}} : f32
// CHECK: %[[SMALL:.*]] = math.fma %[[T]], %[[EM1R]], %[[TM1]] : f32
// LDEXP: llvm.call_intrinsic "llvm.ldexp.f32.i32"
// CHECK: %[[LARGE:.*]] = arith.subf
// CHECK: %[[BIG:.*]] = arith.cmpi sgt, %[[KI]], %{{.*}} : i32
// CHECK: %[[SEL:.*]] = arith.select %[[BIG]], %[[LARGE]], %[[SMALL]] : f32
// CHECK: %[[MONE:.*]] = arith.constant -1.000000e+00 : f32
// CHECK: %[[SEL2:.*]] = arith.select %[[LT]], %[[MONE]], %[[SEL]] : f32
// CHECK: %[[ZERO:.*]] = arith.cmpf oeq, %[[X]], %{{.*}} : f32
// CHECK: %[[E:.*]] = arith.select %[[ZERO]], %[[X]], %[[SEL2]] : f32
// CHECK: %[[E64:.*]] = math.expm1 %[[Y]] : f64
// CHECK: return %[[E]], %[[E64]]
func.func @host_expm1(%x: f32, %y: f64) -> (f32, f64) {
  %a = math.expm1 %x : f32
  %b = math.expm1 %y : f64
  return %a, %b : f32, f64
}

// negative: kernels call libdevice's __nv_expf.
// CHECK-LABEL: gpu.func @negative_kernel(
// CHECK: math.exp
// CHECK-NOT: math.fma
gpu.module @k {
  gpu.func @negative_kernel(%x: f32, %out: memref<1xf32>) kernel {
    %c0 = arith.constant 0 : index
    %e = math.exp %x : f32
    memref.store %e, %out[%c0] : memref<1xf32>
    gpu.return
  }
}
