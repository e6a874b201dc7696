// tide-parallelize-loops refuses a grain that is not positive.

// RUN: not tide-opt %s \
// RUN:   --pass-pipeline='builtin.module(func.func(tide-parallelize-loops{grain=0}))' 2>&1 \
// RUN:   | FileCheck %s

// CHECK: error: invalid 'grain' option 0; it must be positive
func.func @f() {
  return
}
