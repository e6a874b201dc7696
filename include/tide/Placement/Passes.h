//===- Passes.h - Tide placement passes -------------------------*- C++ -*-===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_PLACEMENT_PASSES_H
#define TIDE_PLACEMENT_PASSES_H

#include "tide/IR/TideDialect.h"
#include "tide/Placement/Placement.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace mlir::tide {

#define GEN_PASS_DECL
#include "tide/Placement/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tide/Placement/Passes.h.inc"

} // namespace mlir::tide

#endif // TIDE_PLACEMENT_PASSES_H
