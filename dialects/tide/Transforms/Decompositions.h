//===- Decompositions.h - Composite tide ops into primitives ----*- C++ -*-===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// The rewrites of composite ops (those whose ODS facts list a decomposition:
// reduce_mean, softmax, log_softmax) into primitive tide ops. Placement's
// tide-decompose uses them where a decomposition enables a better placement;
// the lowering uses them for composites no device kernel takes whole. Every
// new op is marked `tide.decomposed = "<op>"` and keeps the original's pin
// and colocation group.
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_TRANSFORMS_DECOMPOSITIONS_H
#define TIDE_TRANSFORMS_DECOMPOSITIONS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

#include <string>

namespace mlir::tide {

/// Marks an op created by a rewrite of placement (the composite it came
/// from, or "demote-f64"); reports name it.
constexpr llvm::StringLiteral kDecomposedAttrName = "tide.decomposed";

/// Builds the primitives of composite `op` at `b`'s insertion point and
/// returns the value that replaces its result. Fails, creating nothing and
/// saying why in `*why` (when given), when `op` is not composite or this
/// instance cannot be decomposed exactly: a dynamic reduced dimension, an
/// element count the element type cannot hold, or f16/bf16, which compute in
/// f32 and round once where the primitives would round every intermediate.
FailureOr<Value> decomposeCompositeOp(Operation *op, OpBuilder &b,
                                      std::string *why = nullptr);

/// softmax and log_softmax into primitives (max-subtracted exp, sum, div/log),
/// for lowerings that have no composite kernels; f16/bf16 are not matched
/// (convert-tide-to-linalg computes them in f32 between casts first).
void populateDecompositionPatterns(RewritePatternSet &patterns);

} // namespace mlir::tide

#endif // TIDE_TRANSFORMS_DECOMPOSITIONS_H
