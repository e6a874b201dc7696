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
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tide {

#define GEN_PASS_DECL
#include "tide/Lowering/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tide/Lowering/Passes.h.inc"

} // namespace mlir::tide

#endif // TIDE_LOWERING_PASSES_H
