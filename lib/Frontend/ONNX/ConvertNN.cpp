//===- ConvertNN.cpp - ONNX convolution, pooling and resize ---------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// Converters of the neural-network ops of ONNX (Conv, ConvTranspose,
// MaxPool, AveragePool, ...), kept apart from the elementwise and shape ops
// of ConvertOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

using namespace mlir;
using namespace mlir::tide;
using namespace mlir::tide::onnx_import;

void onnx_import::addNNConverters(llvm::StringMap<Converter> &table) {
  (void)table;
}
