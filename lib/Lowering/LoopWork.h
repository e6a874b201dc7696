//===- LoopWork.h - Innermost iterations of a loop nest ---------*- C++ -*-===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// The work of a loop nest, shared by tide-parallelize-loops (static sizes) and
// tide-omp-team-size (sizes computed at run time before an omp.parallel): the
// number of innermost iterations (a loop-free body that stores vectors counts
// their elements), where a loop multiplies the work of its body
// by its trip count and sibling loops add up.
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_LIB_LOWERING_LOOPWORK_H
#define TIDE_LIB_LOWERING_LOOPWORK_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"
#include <optional>

namespace mlir::tide {

class LoopWork {
public:
  /// Counts the loops inside `root`. With a builder, dynamic trip counts are
  /// computed by index arithmetic at its insertion point (before `root`), and
  /// a loop whose bounds are defined inside `root` counts once; without one,
  /// any dynamic trip count makes the work unknown.
  LoopWork(Operation *root, OpBuilder *builder = nullptr)
      : root(root), builder(builder) {}

  /// The work of `root`: its own trip counts (when it is a loop) times the
  /// work of its regions, or std::nullopt when not static and there is no
  /// builder.
  std::optional<OpFoldResult> ofRoot();

  /// Trip count of one loop dimension (0 for an empty range).
  std::optional<OpFoldResult> tripCount(OpFoldResult lb, OpFoldResult ub,
                                        OpFoldResult step);

  /// The static value of `work`, if it is one.
  static std::optional<int64_t> getStatic(std::optional<OpFoldResult> work);

private:
  std::optional<OpFoldResult> ofRegion(Region &region);
  /// Elements written by the vector stores directly in `region`.
  static int64_t storedElements(Region &region);
  std::optional<OpFoldResult> ofOp(Operation *op);
  std::optional<OpFoldResult> mul(OpFoldResult a, OpFoldResult b);
  std::optional<OpFoldResult> add(OpFoldResult a, OpFoldResult b);
  bool definedOutside(Value value) const;

  Operation *root;
  OpBuilder *builder;
};

} // namespace mlir::tide

#endif // TIDE_LIB_LOWERING_LOOPWORK_H
