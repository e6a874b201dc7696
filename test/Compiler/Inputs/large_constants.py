"""Writes large_constants.mlir (argv[1]) and the expected results (argv[2],
an .npz): functions whose constants are large (f32 and i8 dense_resource
blobs, a dense f64 literal), shared by two functions, and small (left in LLVM
IR)."""
import sys

import numpy as np

rng = np.random.default_rng(7)
w = rng.standard_normal((64, 300)).astype(np.float32)  # 76,800 bytes
b = rng.integers(-128, 127, (300, 256), dtype=np.int8)  # 76,800 bytes
d = rng.standard_normal(9000)  # 72,000 bytes, a dense literal
s = np.arange(300, dtype=np.float32)  # 1,200 bytes: stays in the IR


def blob(a):
    # dense_resource blobs: a 4-byte alignment, then the bytes, in hex.
    return '"0x%s%s"' % ("04000000", a.tobytes().hex().upper())


mlir = f"""
func.func @linear(%x: tensor<2x64xf32>) -> tensor<2x300xf32> {{
  %w = tide.constant dense_resource<w> : tensor<64x300xf32>
  %s = tide.constant dense<{np.array2string(s, separator=",", threshold=10**6, max_line_width=10**9, floatmode="unique")}> : tensor<300xf32>
  %m = tide.matmul %x, %w : tensor<2x64xf32>, tensor<64x300xf32>
  %y = tide.add %m, %s : tensor<2x300xf32>, tensor<300xf32>
  return %y : tensor<2x300xf32>
}}
func.func @twice(%x: tensor<64x300xf32>) -> tensor<64x300xf32> {{
  %w = tide.constant dense_resource<w> : tensor<64x300xf32>
  %y = tide.mul %x, %w : tensor<64x300xf32>, tensor<64x300xf32>
  return %y : tensor<64x300xf32>
}}
func.func @bytes(%x: tensor<300x256xi8>) -> tensor<300x256xi8> {{
  %b = tide.constant dense_resource<b> : tensor<300x256xi8>
  %y = tide.add %x, %b : tensor<300x256xi8>, tensor<300x256xi8>
  return %y : tensor<300x256xi8>
}}
func.func @doubles(%x: tensor<9000xf64>) -> tensor<9000xf64> {{
  %d = tide.constant dense<{np.array2string(d, separator=",", threshold=10**6, max_line_width=10**9, floatmode="unique")}> : tensor<9000xf64>
  %y = tide.sub %x, %d : tensor<9000xf64>, tensor<9000xf64>
  return %y : tensor<9000xf64>
}}

{{-#
  dialect_resources: {{
    builtin: {{
      w: {blob(w)},
      b: {blob(b)}
    }}
  }}
#-}}
"""
open(sys.argv[1], "w").write(mlir)
x = rng.standard_normal((2, 64)).astype(np.float32)
xt = rng.standard_normal((64, 300)).astype(np.float32)
xb = rng.integers(-128, 127, (300, 256), dtype=np.int8)
xd = rng.standard_normal(9000)
np.savez(sys.argv[2], x=x, xt=xt, xb=xb, xd=xd,
         linear=(x.astype(np.float64) @ w.astype(np.float64) + s).astype(np.float32),
         twice=xt * w, bytes=(xb.astype(np.int16) + b).astype(np.int8), doubles=xd - d)
