//===- BufferOrigins.h - Which buffer a memref view is of -------*- C++ -*-===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// Telling loop-level host buffers apart, for the passes that reorder or
// vectorize their accesses (tide-pipeline-row-loops, tide-stream-stores): the
// buffer a view is of, where that buffer comes from, and whether two buffers
// may overlap.
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_LIB_LOWERING_BUFFERORIGINS_H
#define TIDE_LIB_LOWERING_BUFFERORIGINS_H

#include "mlir/IR/Value.h"

namespace mlir::tide {

/// The buffer a memref view is of: through subviews, casts and reshapes
/// (every ViewLikeOpInterface op).
Value rootOf(Value memref);

/// Where a buffer comes from, as far as telling buffers apart goes.
enum class BufferOrigin { Allocation, Global, Argument, Unknown };

/// The origin of a root (rootOf's result): an allocation of its own
/// (memref.alloc, memref.alloca), a global, an argument of the function, or
/// anything else (a select of two, a call's result).
BufferOrigin originOf(Value root);

/// Whether two roots may overlap: not when one is an allocation of its own
/// and the other comes from elsewhere (an allocation, a global or an
/// argument), nor when they are different globals. A buffer of unknown
/// origin may be any.
bool mayAlias(Value a, Value b);

} // namespace mlir::tide

#endif // TIDE_LIB_LOWERING_BUFFERORIGINS_H
