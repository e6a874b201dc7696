//===- Passes.h - Tide conversions ------------------------------*- C++ -*-===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_CONVERSION_PASSES_H
#define TIDE_CONVERSION_PASSES_H

#include "tide/Conversion/TideToLinalg/TideToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tide {

#define GEN_PASS_DECL
#include "tide/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tide/Conversion/Passes.h.inc"

} // namespace mlir::tide

#endif // TIDE_CONVERSION_PASSES_H
