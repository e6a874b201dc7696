//===- Tide.cpp - C API for embedding Tide -------------------------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide-c/Tide.h"

#include "tide/Frontend/ONNX/ImportONNX.h"
#include "tide/IR/TideDialect.h"
#include "tide/InitAll.h"
#include "tide/Pipelines/Pipelines.h"
#include "tide/Support/Diagnostics.h"
#include "tide/Support/EnumOptionParser.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Tide, tide, tide::TideDialect)

void tideRegisterAllDialects(MlirDialectRegistry registry) {
  tide::registerAllDialects(*unwrap(registry));
  tide::registerAllExtensions(*unwrap(registry));
}

void tideRegisterAllPasses(void) { tide::registerTidePasses(); }

MlirLogicalResult tideRunPlacementPipeline(MlirModule cModule,
                                           MlirStringRef cOptions,
                                           MlirStringCallback onDiagnostic,
                                           void *userData) {
  ModuleOp module = unwrap(cModule);
  MLIRContext *ctx = module.getContext();
  auto report = [&](StringRef line) {
    if (onDiagnostic)
      onDiagnostic(wrap(line), userData);
  };
  // Diagnostics go to the caller, never to stderr or an abort.
  ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &diag) {
    std::string line;
    llvm::raw_string_ostream os(line);
    switch (diag.getSeverity()) {
    case DiagnosticSeverity::Error:
      os << "error: ";
      break;
    case DiagnosticSeverity::Warning:
      os << "warning: ";
      break;
    case DiagnosticSeverity::Remark:
      os << "remark: ";
      break;
    case DiagnosticSeverity::Note:
      os << "note: ";
      break;
    }
    os << diag.getLocation() << ": " << diag.str();
    report(line);
    return success();
  });
  if (!ctx->getLoadedDialect<tide::TideDialect>() &&
      !ctx->getDialectRegistry().getDialectAllocator("tide")) {
    report("error: the tide dialect is not registered in this context; call "
           "tideRegisterAllDialects or mlirDialectHandleRegisterDialect("
           "mlirGetDialectHandle__tide__(), ...) first");
    return wrap(failure());
  }
  ctx->getOrLoadDialect<tide::TideDialect>();

  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  tide::PlacementPipelineOptions options;
  tide::OptionErrorCapture badValues;
  if (failed(options.parseFromString(unwrap(cOptions), errorStream))) {
    std::string why = errors + badValues.str();
    report("error: invalid placement pipeline options '" +
           unwrap(cOptions).str() + "': " + StringRef(why).trim().str());
    return wrap(failure());
  }
  std::string invalid;
  if (failed(tide::validatePlacementPipelineOptions(options, invalid))) {
    report("error: " + invalid);
    return wrap(failure());
  }
  PassManager pm(ctx, ModuleOp::getOperationName());
  tide::buildPlacementPipeline(pm, options);
  return wrap(pm.run(module));
}

static MlirStringRef stringAttrOf(MlirOperation cOp, StringRef name) {
  Operation *op = unwrap(cOp);
  if (name == tide::TideDialect::getDeviceAttrName()) {
    tide::DeviceAttr device = tide::getDevice(op);
    if (!device)
      return mlirStringRefCreate(nullptr, 0);
    // Intern the string in the context so it outlives this call.
    StringAttr interned = StringAttr::get(op->getContext(), device.str());
    return wrap(interned.getValue());
  }
  return wrap(tide::getPlacementReason(op));
}

MlirStringRef tideGetOpDevice(MlirOperation op) {
  return stringAttrOf(op, tide::TideDialect::getDeviceAttrName());
}

MlirStringRef tideGetOpReason(MlirOperation op) {
  return stringAttrOf(op, tide::TideDialect::getReasonAttrName());
}

MlirModule tideImportONNXFile(MlirContext cContext, MlirStringRef cPath,
                              MlirStringRef cOptions,
                              MlirStringCallback onDiagnostic, void *userData) {
  MLIRContext *ctx = unwrap(cContext);
  auto report = [&](StringRef line) {
    if (onDiagnostic)
      onDiagnostic(wrap(line), userData);
  };
  ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &diag) {
    std::string line;
    llvm::raw_string_ostream os(line);
    switch (diag.getSeverity()) {
    case DiagnosticSeverity::Error:
      os << "error: ";
      break;
    case DiagnosticSeverity::Warning:
      os << "warning: ";
      break;
    case DiagnosticSeverity::Remark:
      os << "remark: ";
      break;
    case DiagnosticSeverity::Note:
      os << "note: ";
      break;
    }
    if (auto where = tide::describeNamedLocation(diag.getLocation()))
      os << *where;
    else
      os << diag.getLocation();
    os << ": " << diag.str();
    report(line);
    return success();
  });
  tide::ONNXImportOptions options;
  SmallVector<StringRef> tokens;
  unwrap(cOptions).split(tokens, ' ', -1, /*KeepEmpty=*/false);
  for (StringRef token : tokens) {
    auto [key, value] = token.split('=');
    std::string error;
    if (key == "bind-shape")
      error = tide::parseBindShape(value, options);
    else if (key == "bind-input")
      error = tide::parseBindInput(value, options);
    else if (key == "function-name" && !value.empty())
      options.functionName = value.str();
    else
      error = "unknown ONNX import option '" + token.str() +
              "'; expected bind-shape=NAME=DIMS, bind-input=NAME=FILE or "
              "function-name=NAME";
    if (!error.empty()) {
      report("error: " + error);
      return MlirModule{nullptr};
    }
  }
  OwningOpRef<ModuleOp> module =
      tide::importONNXFile(unwrap(cPath), ctx, options);
  if (!module)
    return MlirModule{nullptr};
  return wrap(module.release());
}
