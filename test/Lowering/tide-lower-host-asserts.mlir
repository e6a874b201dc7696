// Tests of tide-lower-host-asserts: each cf.assert of a host function (a
// run-time check of convert-tide-to-linalg) becomes a branch to a block that
// calls tide_host_check_failed with the assert's message (equal messages
// share one string). That function calls the runner's handler
// (tide_host_check_failed_handler, null by default), else writes the message
// and exits with status 1. A module without asserts is left alone.

// RUN: tide-opt %s --split-input-file --tide-lower-host-asserts | FileCheck %s

// CHECK-DAG: llvm.mlir.global internal constant @tide_check_message_0("sizes differ\00")
// CHECK-DAG: llvm.mlir.global internal constant @tide_check_message_1("count\00")
// CHECK: llvm.mlir.global weak @tide_host_check_failed_handler() {{.*}} : !llvm.ptr {
// CHECK-NEXT: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT: llvm.return %[[NULL]] : !llvm.ptr
// CHECK-LABEL: llvm.func internal @tide_host_check_failed(
// CHECK-SAME: %[[MSG:.*]]: !llvm.ptr)
// CHECK: %[[SLOT:.*]] = llvm.mlir.addressof @tide_host_check_failed_handler
// CHECK: %[[FN:.*]] = llvm.load %[[SLOT]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[UNSET:.*]] = llvm.icmp "eq" %[[FN]]
// CHECK: llvm.cond_br %[[UNSET]], ^[[REPORT:.*]], ^[[CALL:[^ ]*]]
// CHECK: ^[[CALL]]:
// CHECK-NEXT: llvm.call %[[FN]](%[[MSG]]) : !llvm.ptr, (!llvm.ptr) -> ()
// CHECK: ^[[REPORT]]:
// CHECK: llvm.call @dprintf({{.*}}) vararg(!llvm.func<i32 (i32, ptr, ...)>)
// CHECK: llvm.call @exit(
// CHECK-NEXT: llvm.unreachable
// CHECK-LABEL: func.func @checked(
// CHECK-SAME: %[[A:.*]]: index, %[[B:.*]]: index)
// CHECK: %[[SAME:.*]] = arith.cmpi eq, %[[A]], %[[B]] : index
// CHECK-NEXT: cf.cond_br %[[SAME]], ^[[OK:.*]], ^[[FAIL:[^ ]*]]
// CHECK-NEXT: ^[[FAIL]]:
// CHECK-NEXT: %[[M0:.*]] = llvm.mlir.addressof @tide_check_message_0
// CHECK: llvm.call @tide_host_check_failed(%{{.*}}) : (!llvm.ptr) -> ()
// CHECK-NEXT: llvm.unreachable
// CHECK-NEXT: ^[[OK]]:
// CHECK: cf.cond_br
// CHECK: llvm.mlir.addressof @tide_check_message_1
// CHECK: cf.cond_br
// CHECK: llvm.mlir.addressof @tide_check_message_0
// CHECK: return %[[A]] : index
func.func @checked(%a: index, %b: index) -> index {
  %same = arith.cmpi eq, %a, %b : index
  cf.assert %same, "sizes differ"
  %lt = arith.cmpi ult, %a, %b : index
  cf.assert %lt, "count"
  cf.assert %same, "sizes differ"
  return %a : index
}

// -----

// CHECK-LABEL: func.func @unchecked(
// CHECK-NOT: llvm.
// CHECK: return
func.func @unchecked(%a: index) -> index {
  return %a : index
}
