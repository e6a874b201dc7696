//===- Passes.h - Tide passes of the lowering that are not conversions
//-------------------*- C++ -*-===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_LOWERING_PASSES_H
#define TIDE_LOWERING_PASSES_H

#include "tide/IR/TideDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tide {

#define GEN_PASS_DECL
#include "tide/Lowering/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tide/Lowering/Passes.h.inc"

/// Whether `buffer` is (a view of) a constant memref.global: the same values
/// at every call, so a library may keep a copy of it in its own layout
/// (ConvToLibrary.cpp).
bool isConstantBuffer(Value buffer);

/// Whether `op`'s one output holds zeros when `op` runs: a zero linalg.fill
/// of it right before, a copy into it right before from a buffer that holds
/// zeros there (what bufferization makes of one zero tensor shared by
/// several ops), or a zero fill of it earlier with no write since. A
/// library call then overwrites the output; `erasable` is the fill or copy
/// that makes dead: the one right before, or the earlier fill when nothing
/// between uses the buffer (null when there is none).
bool outputIsZero(linalg::LinalgOp op, Operation *&erasable);

} // namespace mlir::tide

#endif // TIDE_LOWERING_PASSES_H
