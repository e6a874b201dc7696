// Tests of tide-export-abi: public functions get the C interface, their
// arguments are marked read-only for bufferization unless donated, and the
// module gets the `tide_module_metadata` string that tide-run reads (one
// `func` line per public function, then one line per argument and result:
// dtype, dims with `?` or `scalar`, device, and `donated` for an argument
// the call may overwrite). Signatures that are not ranked
// tensors of Tide's element types are errors. The inputs are the parts of
// this file after the `//---` markers.

// RUN: rm -rf %t && split-file %s %t
// RUN: tide-opt %t/abi.mlir --tide-export-abi | FileCheck %t/abi.mlir
// RUN: tide-opt %t/empty.mlir --tide-export-abi | FileCheck %t/empty.mlir
// RUN: tide-opt %t/errors.mlir --tide-export-abi --split-input-file -verify-diagnostics

//--- abi.mlir

// Static shapes; the donated argument may be written (no writable = false).
// CHECK-LABEL: func.func @static(
// CHECK-SAME: %{{.*}}: tensor<4x3xf32> {bufferization.writable = false},
// CHECK-SAME: %{{.*}}: tensor<3xf32> {tide.donate})
// CHECK-SAME: -> tensor<4x3xf32> attributes {llvm.emit_c_interface}
func.func @static(%x: tensor<4x3xf32>, %y: tensor<3xf32> {tide.donate}) -> tensor<4x3xf32> {
  %0 = tide.add %x, %y : tensor<4x3xf32>, tensor<3xf32>
  return %0 : tensor<4x3xf32>
}

// Dynamic dimensions are described as `?`.
// CHECK-LABEL: func.func @dynamic(
// CHECK-SAME: %{{.*}}: tensor<?x3x?xf64> {bufferization.writable = false})
// CHECK-SAME: attributes {llvm.emit_c_interface}
func.func @dynamic(%x: tensor<?x3x?xf64>) -> tensor<?x3x?xf64> {
  return %x : tensor<?x3x?xf64>
}

// Rank-0 tensors are `scalar`; several results are described in order.
// CHECK-LABEL: func.func @scalar_multi(
// CHECK-SAME: %{{.*}}: tensor<i64> {bufferization.writable = false}, %{{.*}}: tensor<2xi1> {bufferization.writable = false})
// CHECK-SAME: -> (tensor<i64>, tensor<2xi1>, tensor<bf16>) attributes {llvm.emit_c_interface}
func.func @scalar_multi(%x: tensor<i64>, %b: tensor<2xi1>) -> (tensor<i64>, tensor<2xi1>, tensor<bf16>) {
  %c = tide.constant dense<1.0> : tensor<bf16>
  return %x, %b, %c : tensor<i64>, tensor<2xi1>, tensor<bf16>
}

// tide.resident names where a value lives; other attributes are kept.
// CHECK-LABEL: func.func @resident(
// CHECK-SAME: %{{.*}}: tensor<8xf16> {bufferization.writable = false, tide.resident = #tide.device<cuda:1>})
// CHECK-SAME: -> (tensor<8xf16> {tide.resident = #tide.device<cuda:1>})
// CHECK-SAME: attributes {llvm.emit_c_interface}
func.func @resident(%x: tensor<8xf16> {tide.resident = #tide.device<cuda:1>})
    -> (tensor<8xf16> {tide.resident = #tide.device<cuda:1>}) {
  return %x : tensor<8xf16>
}

// Private functions and declarations are not exported: no C interface, no
// writable marks, no metadata (so their signatures are not checked either).
// CHECK-LABEL: func.func private @negative_private(
// CHECK-SAME: %{{.*}}: tensor<8xf32>) -> tensor<8xf32> {
// CHECK-LABEL: func.func private @negative_declaration(tensor<8xf32>, i32) -> tensor<8xf32>{{$}}
func.func private @negative_private(%x: tensor<8xf32>) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}
func.func private @negative_declaration(tensor<8xf32>, i32) -> tensor<8xf32>

// A function with no tensors at all is still described (0 arguments, 0 results).
// CHECK-LABEL: func.func @nothing()
// CHECK-SAME: attributes {llvm.emit_c_interface}
func.func @nothing() {
  return
}

// The metadata, one global for the module: exactly the public functions, in
// order (nothing about the private ones).
// CHECK-LABEL: llvm.mlir.global external constant @tide_module_metadata(
// CHECK-SAME: "tide-module 1\0Afunc static 2 1\0Aarg 0 f32 4x3 cpu\0Aarg 1 f32 3 cpu donated\0Aresult 0 f32 4x3 cpu\0Afunc dynamic 1 1\0Aarg 0 f64 ?x3x? cpu\0Aresult 0 f64 ?x3x? cpu\0Afunc scalar_multi 2 3\0Aarg 0 i64 scalar cpu\0Aarg 1 i1 2 cpu\0Aresult 0 i64 scalar cpu\0Aresult 1 i1 2 cpu\0Aresult 2 bf16 scalar cpu\0Afunc resident 1 1\0Aarg 0 f16 8 cuda:1\0Aresult 0 f16 8 cuda:1\0Afunc nothing 0 0\0A\00")
// CHECK-NOT: tide_module_metadata

//--- empty.mlir

// A module without public functions still describes itself (no functions).
// CHECK: llvm.mlir.global external constant @tide_module_metadata("tide-module 1\0A\00")
func.func private @helper(%x: tensor<8xf32>) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

//--- errors.mlir

// A scalar argument that is not a tensor: the runner could not pass it.
// expected-error @below {{argument 0 has type 'i32'; exported functions take and return ranked tensors of Tide's element types}}
func.func @negative_i32_argument(%x: i32) -> tensor<2xf32> {
  %c = tide.constant dense<1.0> : tensor<2xf32>
  return %c : tensor<2xf32>
}

// -----

// Unranked tensors have no descriptor layout to describe; argument and
// result are both reported.
// expected-error @below {{argument 0 has type 'tensor<*xf32>'; exported functions}}
// expected-error @below {{result 0 has type 'tensor<*xf32>'; exported functions}}
func.func @negative_unranked(%x: tensor<*xf32>) -> tensor<*xf32> {
  return %x : tensor<*xf32>
}

// -----

// A type of more than 2^63 - 1 bytes.
// expected-error @below {{argument 0 has type 'tensor<4611686018427387904x4xf32>', of more than 2^63 - 1 bytes}}
func.func @huge(%x: tensor<4611686018427387904x4xf32>) -> tensor<4xf32> {
  %c = tide.constant dense<1.0> : tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// A name the line-based metadata cannot hold.
// expected-error @below {{exported function name 'a b' has a space, a control character or a non-ASCII byte}}
func.func @"a b"(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// An element type Tide has no dtype for.
// expected-error @below {{result 1 has type 'tensor<4xi3>'}}
func.func @negative_element_type(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi3>) {
  %c = arith.constant dense<1> : tensor<4xi3>
  return %x, %c : tensor<4xf32>, tensor<4xi3>
}

// -----

// Memrefs are not accepted: the pass runs before bufferization.
// expected-error @below {{argument 0 has type 'memref<4xf32>'}}
func.func @negative_memref(%x: memref<4xf32>) {
  return
}
