//===- ImportONNX.h - ONNX models to the tide dialect -----------*- C++ -*-===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// Reads an ONNX `ModelProto` (protobuf classes generated at build time from
// the system's onnx.proto) and converts its main graph, node by node, into one
// `func.func` of `tide` ops. Intermediate types come from Tide's own type
// inference; shape subgraphs (Shape, Gather on shapes, Concat, ...) fold to
// constants while importing. Initializers become `dense_resource` blobs, so
// weights stay binary.
//
// Every op carries the location `NameLoc("<node name> (<OpType>)",
// FileLineColLoc(<model file>, 0, 0))`: diagnostics, remarks and placement
// reports name the node the user knows. Errors (a corrupt file, an unknown op,
// an unsupported attribute, types that do not fit) are reported through the
// context's diagnostic handlers at that location; import never aborts.
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_FRONTEND_ONNX_IMPORTONNX_H
#define TIDE_FRONTEND_ONNX_IMPORTONNX_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <string>
#include <vector>

namespace mlir::tide {

struct ONNXImportOptions {
  /// Name of the imported function.
  std::string functionName = "main";
  /// `--bind-shape`: a graph input's whole shape (input name -> dims), or the
  /// size of a symbolic dimension (dim_param name -> a one-element list).
  llvm::StringMap<llvm::SmallVector<int64_t>> boundShapes;
  /// `--bind-input`: graph inputs replaced by constants read from a `.npy`
  /// or a `.pb` (serialized TensorProto) file. They leave the signature.
  llvm::StringMap<std::string> boundInputs;
  /// Initializers with at most this many elements become `dense<...>`
  /// constants (readable, foldable); larger ones `dense_resource` blobs.
  int64_t inlineConstantLimit = 64;
};

/// Imports the model in `bytes`; `path` names it in messages and locates
/// external data files (relative to its folder). Returns null after
/// reporting an error.
OwningOpRef<ModuleOp> importONNXModel(llvm::StringRef bytes,
                                      llvm::StringRef path,
                                      MLIRContext *context,
                                      const ONNXImportOptions &options);

/// Reads `path` and imports it.
OwningOpRef<ModuleOp> importONNXFile(llvm::StringRef path, MLIRContext *context,
                                     const ONNXImportOptions &options);

/// Parses a `--bind-shape` value, `NAME=D0xD1x...` (a scalar: `NAME=`), into
/// `options`. Returns an error message, or "" on success.
std::string parseBindShape(llvm::StringRef spec, ONNXImportOptions &options);

/// Parses a `--bind-input` value, `NAME=FILE`.
std::string parseBindInput(llvm::StringRef spec, ONNXImportOptions &options);

/// The ONNX op types (default domain) the importer converts, sorted.
std::vector<std::string> getSupportedONNXOps();

/// True if `bytes` look like an ONNX model rather than MLIR text (a protobuf
/// message starts with a field tag, never with text MLIR begins with).
bool looksLikeONNX(llvm::StringRef path, llvm::StringRef bytes);

} // namespace mlir::tide

#endif // TIDE_FRONTEND_ONNX_IMPORTONNX_H
