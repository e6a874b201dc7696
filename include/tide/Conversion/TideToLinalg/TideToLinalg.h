//===- TideToLinalg.h - tide ops to linalg ----------------------*- C++ -*-===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_CONVERSION_TIDETOLINALG_TIDETOLINALG_H
#define TIDE_CONVERSION_TIDETOLINALG_TIDETOLINALG_H

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace mlir::tide {

/// The patterns of convert-tide-to-linalg (including the softmax
/// decompositions), for embedders that drive their own conversion.
void populateTideToLinalgPatterns(RewritePatternSet &patterns);

} // namespace mlir::tide

#endif // TIDE_CONVERSION_TIDETOLINALG_TIDETOLINALG_H
