// Placement costs the CPU for the threads its code will run on: exp over
// 16M f32 is cheaper on the 16-core host than on the H200 plus the copies,
// but not when the CPU code runs on one thread (tide-compile --cpu-threads=1).

// RUN: tide-opt %s -o /dev/null --tide-place-pipeline="target=h200 policy=cost report=text" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ALL
// RUN: tide-opt %s -o /dev/null --tide-place-pipeline="target=h200 policy=cost report=text cpu-threads=1" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ONE
// RUN: not tide-opt %s -o /dev/null --tide-place-devices="cpu-threads=5000" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD

// ALL: 0 tide.exp f32 cpu 1.475 ms 35.63 us
// ONE: 0 tide.exp f32 cuda:0 {{[0-9.]+}} ms 35.63 us
// BAD: error: invalid 'cpu-threads' option 5000; expected 0 (every core of the target's CPU) to 4096
func.func @exp(%x: tensor<16777216xf32>) -> tensor<16777216xf32> {
  %y = tide.exp %x : tensor<16777216xf32>
  return %y : tensor<16777216xf32>
}
