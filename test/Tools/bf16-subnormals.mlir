// bf16 results in the subnormal range (below 1.18e-38) are kept by CPU code.
// Found by the random programs (test/random, reduced by reduce.py): a bf16
// mul of 1.49 and 2.2e-39 gave 0 instead of 3.3e-39, and its sign 0 instead
// of 1, on this machine (Emerald Rapids). With AVX512-BF16, LLVM lowers the
// f32 to bf16 conversion to VCVTNEPS2BF16, which treats subnormal inputs as
// zero whatever MXCSR says (llvm/llvm-project#221052); tide-compile builds
// without AVX512-BF16 and AVX-NE-CONVERT. The run checks the values on the
// machine's own CPU (a no-op test where it lacks those features); the second
// compile, for Sapphire Rapids, checks that the instruction is not used.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: tide-compile %s --target=cpu -o %t/m.so --no-remarks
// RUN: %python -c "import numpy as np; b = lambda v: (np.array(v, np.float32).view(np.uint32) >> 16).astype(np.uint16); np.save('%t/a.npy', b([1.4921875])); np.save('%t/x.npy', b([2.204052e-39, -2.204052e-39, 1e-37, -3e-39, 0.0]))"
// RUN: tide-run %t/m.so --entry=mul_sign --input=%t/a.npy --input=%t/x.npy | FileCheck %s
// RUN: tide-compile %s --target=cpu --cpu=sapphirerapids -o %t/spr.so --no-remarks
// RUN: llvm-objdump -d %t/spr.so | FileCheck %s --check-prefix=ASM

// CHECK: result 0: bf16[5] = [3.30607786e-39, -3.30607786e-39, 1.49140846e-37, -4.40810382e-39, 0]
// CHECK: result 1: bf16[5] = [1, -1, 1, -1, 0]
// ASM-LABEL: <_mlir_ciface_mul_sign>:
// ASM-NOT: vcvtneps2bf16
func.func @mul_sign(%a: tensor<1xbf16>, %x: tensor<5xbf16>) -> (tensor<5xbf16>, tensor<5xbf16>) {
  %p = tide.mul %a, %x : tensor<1xbf16>, tensor<5xbf16>
  %s = tide.sign %p : tensor<5xbf16>
  return %p, %s : tensor<5xbf16>, tensor<5xbf16>
}
