// Tests of tide-drop-empty-slices: slices of tensors with a size 0 (seen
// through tensor.casts) become empty tensors of the slice's sizes, and
// insertions into or of them their destination, so that bufferization makes
// no memref.subview into a dimension of size 0 (which upstream's
// canonicalization would fold into an invalid one).

// RUN: tide-opt %s --tide-drop-empty-slices --canonicalize | FileCheck %s
// RUN: tide-opt %s --tide-drop-empty-slices --one-shot-bufferize="bufferize-function-boundaries" --canonicalize | FileCheck %s --check-prefix=BUF

// CHECK-LABEL: func.func @extract_of_cast(
// CHECK-SAME: %[[A:.*]]: tensor<?x0x4xi16>, %[[N:.*]]: index, %[[M:.*]]: index
// CHECK-NEXT: %[[E:.*]] = tensor.empty(%[[N]], %[[M]]) : tensor<?x?x4xi16>
// CHECK-NEXT: return %[[E]]
// BUF-LABEL: func.func @extract_of_cast(
// BUF-NOT: memref.subview
// BUF: return
func.func @extract_of_cast(%a: tensor<?x0x4xi16>, %n: index, %m: index) -> tensor<?x?x4xi16> {
  %c = tensor.cast %a : tensor<?x0x4xi16> to tensor<?x?x4xi16>
  %s = tensor.extract_slice %c[0, 0, 0] [%n, %m, 4] [1, 1, 1] : tensor<?x?x4xi16> to tensor<?x?x4xi16>
  return %s : tensor<?x?x4xi16>
}

// A rank-reducing slice whose result has a size 0.
// CHECK-LABEL: func.func @rank_reducing(
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<0x4xf32>
// CHECK-NEXT: return %[[E]]
func.func @rank_reducing(%a: tensor<?x?x4xf32>) -> tensor<0x4xf32> {
  %s = tensor.extract_slice %a[0, 0, 0] [1, 0, 4] [1, 1, 1] : tensor<?x?x4xf32> to tensor<0x4xf32>
  return %s : tensor<0x4xf32>
}

// Inserting into a tensor with no elements, or inserting one: the
// destination.
// CHECK-LABEL: func.func @inserts(
// CHECK-SAME: %[[D:.*]]: tensor<?x?xf32>, %[[Z:.*]]: tensor<0x3xf32>, %[[S:.*]]: tensor<2x3xf32>
// CHECK-NOT: tensor.insert_slice
// CHECK: return %[[D]], %[[Z]]
func.func @inserts(%d: tensor<?x?xf32>, %z: tensor<0x3xf32>, %s: tensor<2x3xf32>, %n: index)
    -> (tensor<?x?xf32>, tensor<0x3xf32>) {
  %a = tensor.insert_slice %z into %d[0, 0] [0, 3] [1, 1] : tensor<0x3xf32> into tensor<?x?xf32>
  %zc = tensor.cast %z : tensor<0x3xf32> to tensor<?x3xf32>
  %b = tensor.insert_slice %s into %zc[0, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<?x3xf32>
  %bc = tensor.cast %b : tensor<?x3xf32> to tensor<0x3xf32>
  return %a, %bc : tensor<?x?xf32>, tensor<0x3xf32>
}

// Slices of tensors with elements stay.
// CHECK-LABEL: func.func @negative_full(
// CHECK: tensor.extract_slice
// CHECK: tensor.insert_slice
func.func @negative_full(%a: tensor<?x4xf32>, %b: tensor<?x4xf32>, %n: index) -> (tensor<?x4xf32>, tensor<?x4xf32>) {
  %s = tensor.extract_slice %a[0, 0] [%n, 4] [1, 1] : tensor<?x4xf32> to tensor<?x4xf32>
  %i = tensor.insert_slice %b into %a[0, 0] [%n, 4] [1, 1] : tensor<?x4xf32> into tensor<?x4xf32>
  return %s, %i : tensor<?x4xf32>, tensor<?x4xf32>
}
