// Tests of tide-host-allocation-checks: the generic allocation functions that
// finalize-memref-to-llvm{use-generic-functions} calls get internal
// definitions over malloc/aligned_alloc/free, and a failed allocation calls
// the runner's handler (tide_host_out_of_memory_handler, null by default),
// else writes a message and exits with status 1. Each allocation and release
// is told to the runner's hooks (tide_host_on_allocate / tide_host_on_free,
// null by default) so that a failed call's allocations can be freed. A module
// without them is left alone.

// RUN: tide-opt %s --split-input-file --tide-host-allocation-checks | FileCheck %s

// CHECK: llvm.mlir.global weak @tide_host_out_of_memory_handler() {addr_space = 0 : i32, alignment = 8 : i64} : !llvm.ptr {
// CHECK-NEXT: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT: llvm.return %[[NULL]] : !llvm.ptr
// CHECK: llvm.mlir.global weak @tide_host_on_allocate() {{.*}} : !llvm.ptr
// CHECK: llvm.mlir.global weak @tide_host_on_free() {{.*}} : !llvm.ptr
// CHECK-LABEL: llvm.func internal @tide_host_out_of_memory(
// CHECK-SAME: %[[BYTES:.*]]: i64)
// CHECK: %[[SLOT:.*]] = llvm.mlir.addressof @tide_host_out_of_memory_handler
// CHECK: %[[FN:.*]] = llvm.load %[[SLOT]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[UNSET:.*]] = llvm.icmp "eq" %[[FN]]
// CHECK: llvm.cond_br %[[UNSET]], ^[[REPORT:.*]], ^[[CALL:[^ ]*]]
// CHECK: ^[[CALL]]:
// CHECK-NEXT: llvm.call %[[FN]](%[[BYTES]]) : !llvm.ptr, (i64) -> ()
// CHECK: ^[[REPORT]]:
// CHECK: llvm.call @dprintf({{.*}}) vararg(!llvm.func<i32 (i32, ptr, ...)>)
// CHECK: llvm.call @exit(
// CHECK-NEXT: llvm.unreachable
// CHECK-LABEL: llvm.func internal @_mlir_memref_to_llvm_alloc(
// CHECK-SAME: %[[N:.*]]: i64) -> !llvm.ptr
// CHECK: %[[P:.*]] = llvm.call @malloc(%[[N]])
// CHECK: %[[ISNULL:.*]] = llvm.icmp "eq" %[[P]]
// CHECK: %[[ASKED:.*]] = llvm.icmp "ne" %[[N]]
// CHECK: %[[BAD:.*]] = llvm.and %[[ISNULL]], %[[ASKED]]
// CHECK: llvm.cond_br %[[BAD]], ^[[FAIL:.*]], ^[[OK:[^ ]*]]
// CHECK: ^[[OK]]:
// CHECK-NEXT: %[[HSLOT:.*]] = llvm.mlir.addressof @tide_host_on_allocate
// CHECK-NEXT: %[[HOOK:.*]] = llvm.load %[[HSLOT]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[NOHOOK:.*]] = llvm.icmp "eq" %[[HOOK]]
// CHECK-NEXT: llvm.cond_br %[[NOHOOK]], ^[[RET:.*]], ^[[TELL:[^ ]*]]
// CHECK: ^[[FAIL]]:
// CHECK-NEXT: llvm.call @tide_host_out_of_memory(%[[N]])
// CHECK-NEXT: llvm.unreachable
// CHECK: ^[[TELL]]:
// CHECK-NEXT: llvm.call %[[HOOK]](%[[P]]) : !llvm.ptr, (!llvm.ptr) -> ()
// CHECK-NEXT: llvm.br ^[[RET]]
// CHECK: ^[[RET]]:
// CHECK-NEXT: llvm.return %[[P]]
// CHECK-LABEL: llvm.func internal @_mlir_memref_to_llvm_aligned_alloc(
// CHECK: llvm.call @aligned_alloc(
// CHECK-LABEL: llvm.func internal @_mlir_memref_to_llvm_free(
// CHECK-SAME: %[[Q:[^:]*]]: !llvm.ptr)
// CHECK: llvm.mlir.addressof @tide_host_on_free
// CHECK: llvm.call %{{.*}}(%[[Q]]) : !llvm.ptr, (!llvm.ptr) -> ()
// CHECK: llvm.call @free(%[[Q]])
// CHECK-NEXT: llvm.return
// CHECK-LABEL: llvm.func @f(
// CHECK: llvm.call @_mlir_memref_to_llvm_alloc(
llvm.func @_mlir_memref_to_llvm_alloc(i64) -> !llvm.ptr
llvm.func @_mlir_memref_to_llvm_aligned_alloc(i64, i64) -> !llvm.ptr
llvm.func @_mlir_memref_to_llvm_free(!llvm.ptr)
llvm.func @f(%n: i64) {
  %p = llvm.call @_mlir_memref_to_llvm_alloc(%n) : (i64) -> !llvm.ptr
  llvm.call @_mlir_memref_to_llvm_free(%p) : (!llvm.ptr) -> ()
  llvm.return
}

// -----

// No generic allocation functions: nothing to define.
// CHECK-LABEL: llvm.func @g(
// CHECK-NOT: tide_host_out_of_memory
llvm.func @g() {
  llvm.return
}
