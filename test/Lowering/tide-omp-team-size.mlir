// Tests of tide-omp-team-size: every omp.parallel without num_threads gets
// its team size from tide_rt_cpu_team_size(work, grain, threads), and runs on
// the calling thread alone (its if clause) when that is 1.

// RUN: tide-opt %s -split-input-file --tide-omp-team-size="grain=4096 threads=3" \
// RUN:   | FileCheck %s
// RUN: not tide-opt %s -split-input-file --tide-omp-team-size=grain=-1 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD-GRAIN
// RUN: not tide-opt %s -split-input-file --tide-omp-team-size=threads=5000 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD-THREADS

// BAD-GRAIN: error: invalid 'grain' option -1; it must be positive
// BAD-THREADS: error: invalid 'threads' option 5000; expected 0 (decided at run time) to 1024

// Work = rows x columns (the loop nest times the scf.for inside it), both
// known only at run time.
// CHECK: func.func private @tide_rt_cpu_team_size(i64, i64, i32) -> i32
// CHECK-LABEL: func.func @dyn
// CHECK-DAG: %[[M:.*]] = memref.dim %{{.*}}, %c0
// CHECK-DAG: %[[N:.*]] = memref.dim %{{.*}}, %c1
// CHECK: %[[WORK:.*]] = arith.muli
// CHECK: %[[W64:.*]] = arith.index_cast %[[WORK]] : index to i64
// CHECK-DAG: %[[GRAIN:.*]] = arith.constant 4096 : i64
// CHECK-DAG: %[[THREADS:.*]] = arith.constant 3 : i32
// CHECK: %[[TEAM:.*]] = call @tide_rt_cpu_team_size(%[[W64]], %[[GRAIN]], %[[THREADS]])
// CHECK: %[[MANY:.*]] = arith.cmpi sgt, %[[TEAM]], %{{.*}} : i32
// CHECK: omp.parallel if(%[[MANY]]) num_threads(%[[TEAM]] : i32)
func.func @dyn(%a: memref<?x?xf32>, %b: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %a, %c0 : memref<?x?xf32>
  %n = memref.dim %a, %c1 : memref<?x?xf32>
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%m) step (%c1) {
        memref.alloca_scope {
          scf.for %j = %c0 to %n step %c1 {
            %x = memref.load %a[%i, %j] : memref<?x?xf32>
            memref.store %x, %b[%i, %j] : memref<?x?xf32>
          }
        }
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// Static sizes: the work is a constant (300 x 200).
// CHECK-LABEL: func.func @static
// CHECK: %[[WORK:.*]] = arith.constant 60000 : i64
// CHECK: call @tide_rt_cpu_team_size(%[[WORK]],
func.func @static(%a: memref<300x200xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c200 = arith.constant 200 : index
  %c300 = arith.constant 300 : index
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c300) step (%c1) {
        scf.for %j = %c0 to %c200 step %c1 {
          %x = memref.load %a[%i, %j] : memref<300x200xf32>
          memref.store %x, %a[%i, %j] : memref<300x200xf32>
        }
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// Chunks of an innermost dimension (tide-parallelize-loops): [i, i + 1024)
// counts 1024 iterations, the work is 225 x 1024.
// CHECK-LABEL: func.func @chunks
// CHECK: %[[WORK:.*]] = arith.constant 230400 : i64
// CHECK: call @tide_rt_cpu_team_size(%[[WORK]],
func.func @chunks(%a: memref<230400xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  %cn = arith.constant 230400 : index
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%cn) step (%c1024) {
        %end = arith.addi %i, %c1024 : index
        scf.for %j = %i to %end step %c1 {
          %x = memref.load %a[%j] : memref<230400xf32>
          memref.store %x, %a[%j] : memref<230400xf32>
        }
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// A region that already has num_threads is left alone.
// CHECK-LABEL: func.func @negative_sized
// CHECK-NOT: call @tide_rt_cpu_team_size
// CHECK: omp.parallel num_threads
func.func @negative_sized(%a: memref<300xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c300 = arith.constant 300 : index
  %t = arith.constant 2 : i32
  omp.parallel num_threads(%t : i32) {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c300) step (%c1) {
        %x = memref.load %a[%i] : memref<300xf32>
        memref.store %x, %a[%i] : memref<300xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  return
}
