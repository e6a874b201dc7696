//===- InitAll.h - Register everything Tide provides ------------*- C++ -*-===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// Entry points for tools and embedders: one call each registers Tide's
// dialects (plus the upstream dialects its pipelines produce) and its passes
// and pipelines. Nothing here is inline, so an embedder links TideInitAll
// and calls these instead of copying registration code.
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_INITALL_H
#define TIDE_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::tide {

/// Registers the tide dialect and the upstream dialects Tide's passes create.
void registerAllDialects(DialectRegistry &registry);

/// Registers the dialect extensions and interfaces Tide's pipelines need.
void registerAllExtensions(DialectRegistry &registry);

/// Registers Tide's own passes and pipelines with the global pass registry.
/// Safe to call more than once.
void registerTidePasses();

/// Registers Tide's passes and pipelines plus the upstream passes Tide's
/// tools use (canonicalize, cse, inline, symbol-dce). Safe to call more than
/// once.
void registerAllPasses();

} // namespace mlir::tide

#endif // TIDE_INITALL_H
