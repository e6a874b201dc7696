//===- GemmMatchers.h - Matmuls a GEMM library computes ---------*- C++ -*-===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// Which buffer-level matmuls a GEMM library (the host BLAS in
// tide-matmul-to-library, cuBLAS in convert-linalg-to-gpu) computes in place,
// shared by both lowerings.
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_CONVERSION_GEMMMATCHERS_H
#define TIDE_CONVERSION_GEMMMATCHERS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>

namespace mlir::tide {

/// The GEMM libraries Tide calls.
enum class GemmLibrary {
  /// The host BLAS (OpenBLAS): f32, f64.
  HostBlas,
  /// cuBLAS through Tide's GPU runtime: f16, bf16, f32, f64.
  CuBlas,
};

/// Whether `library` has a GEMM over elements of type `element`.
bool hasLibraryGemm(GemmLibrary library, Type element);

/// The element type of a 2-D `linalg.matmul` on memrefs with the default
/// maps, one element type and unit inner strides: what a library GEMM
/// computes in place. With `transposedB`, the right-hand operand may be
/// column-major instead (unit stride between rows: a transposed view).
/// Null otherwise.
Type getLibraryGemmElementType(linalg::MatmulOp op, bool transposedB = false);

/// Whether `library` computes `op` in place: a matmul of
/// getLibraryGemmElementType with a GEMM in `library` (cuBLAS's also with a
/// column-major right-hand operand).
bool isLibraryGemm(linalg::MatmulOp op, GemmLibrary library);

/// How a batched matmul (convert-tide-to-linalg's linalg.generic over loops
/// (batch..., m, n, k), batch dims broadcast NumPy-style) reads an operand:
/// for each result batch dim, whether the operand has it (else it is
/// broadcast: absent or a size-1 dim read at 0) and which of its dims.
struct BatchedGemmOperand {
  Value value;
  /// Per result batch dim.
  SmallVector<std::optional<int64_t>> dimOf;
};

/// The operands of a batched matmul `library` can run as a strided batched
/// GEMM, in the order lhs, rhs, result; empty when `op` is not one.
SmallVector<BatchedGemmOperand> matchBatchedGemm(linalg::LinalgOp op,
                                                 GemmLibrary library);

/// The (batch, rows, cols) views of a batched matmul's operands (`values`:
/// matchBatchedGemm's `operands`, or casts of them to another memory space)
/// that a strided batched GEMM reads and writes in place, of `viewType` (3-D,
/// dynamic sizes, strides [?, ?, 1]). Batch dims join one GEMM batch from the
/// innermost out while, for every operand, they are all broadcast (batch
/// stride 0) or all present with static strides that step uniformly
/// (attention's per-head matmuls of a contiguous (batch, heads, ...) tensor:
/// one call); the outer ones that do not join become host loops, and `b` is
/// left inside the innermost. A right operand shared by every batch index
/// (a linear layer's weight) with the lhs and result rows stepping uniformly
/// folds the batch into the rows instead: a batch of 1, (batch x m) rows.
SmallVector<Value> buildBatchedGemmViews(OpBuilder &b, Location loc,
                                         ArrayRef<BatchedGemmOperand> operands,
                                         ArrayRef<Value> values,
                                         MemRefType viewType);

/// The `linalg.fill` right before `gemm` that fills its output with zero, or
/// null: a library GEMM then overwrites the output (beta = 0) instead.
linalg::FillOp getZeroFillBefore(linalg::LinalgOp gemm);

} // namespace mlir::tide

#endif // TIDE_CONVERSION_GEMMMATCHERS_H
