//===- tide-import-onnx.cpp - ONNX model -> tide dialect ------------------===//
//
// Part of the Tide project.
//
//   tide-import-onnx MODEL.onnx [-o OUT.mlir] [--bind-shape NAME=1x3x224x224]
//                    [--bind-input NAME=FILE.{npy,pb}] [--emit-bytecode]
//
//===----------------------------------------------------------------------===//

#include "tide/Frontend/ONNX/ImportONNX.h"
#include "tide/InitAll.h"
#include "tide/Support/Diagnostics.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
namespace cl = llvm::cl;

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<model.onnx>"));
static cl::opt<bool> listOps("list-ops",
                             cl::desc("Print the ONNX ops Tide imports"));
static cl::opt<std::string> outputFile("o", cl::desc("Output file"),
                                       cl::value_desc("file.mlir"),
                                       cl::init("-"));
static cl::list<std::string> bindShape(
    "bind-shape",
    cl::desc("Fix a graph input's shape (NAME=1x3x224x224) or a symbolic "
             "dimension's size (batch=8)"),
    cl::value_desc("NAME=DIMS"));
static cl::list<std::string> bindInput(
    "bind-input",
    cl::desc("Replace a graph input by a constant read from a .npy or .pb "
             "(TensorProto) file"),
    cl::value_desc("NAME=FILE"));
static cl::opt<std::string> functionName("function-name",
                                         cl::desc("Name of the function"),
                                         cl::init("main"));
static cl::opt<bool> emitBytecode("emit-bytecode",
                                  cl::desc("Write MLIR bytecode, not text"));
static cl::opt<bool>
    noLocations("no-locations",
                cl::desc("Do not print the ONNX node locations"));

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(
      argc, argv,
      "tide-import-onnx: convert an ONNX model into the tide dialect\n");

  if (listOps) {
    for (const std::string &op : tide::getSupportedONNXOps())
      llvm::outs() << op << "\n";
    return 0;
  }
  if (inputFile.empty()) {
    llvm::errs() << "tide-import-onnx: error: no model given (usage: "
                    "tide-import-onnx MODEL.onnx [-o OUT.mlir])\n";
    return 1;
  }
  tide::ONNXImportOptions options;
  options.functionName = functionName;
  for (const std::string &spec : bindShape) {
    std::string error = tide::parseBindShape(spec, options);
    if (!error.empty()) {
      llvm::errs() << "tide-import-onnx: error: " << error << "\n";
      return 1;
    }
  }
  for (const std::string &spec : bindInput) {
    std::string error = tide::parseBindInput(spec, options);
    if (!error.empty()) {
      llvm::errs() << "tide-import-onnx: error: " << error << "\n";
      return 1;
    }
  }

  DialectRegistry registry;
  tide::registerAllDialects(registry);
  MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler fallback(sourceMgr, &context);
  tide::NamedLocDiagnosticHandler named(&context);

  OwningOpRef<ModuleOp> module =
      tide::importONNXFile(inputFile, &context, options);
  if (!module)
    return 1;

  std::error_code ec;
  llvm::ToolOutputFile out(outputFile, ec,
                           emitBytecode ? llvm::sys::fs::OF_None
                                        : llvm::sys::fs::OF_Text);
  if (ec) {
    llvm::errs() << "tide-import-onnx: error: cannot write " << outputFile
                 << ": " << ec.message() << "\n";
    return 1;
  }
  if (emitBytecode) {
    if (failed(writeBytecodeToFile(*module, out.os()))) {
      llvm::errs() << "tide-import-onnx: error: cannot write bytecode\n";
      return 1;
    }
  } else {
    OpPrintingFlags flags;
    if (!noLocations)
      flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
    module->print(out.os(), flags);
  }
  out.keep();
  return 0;
}
