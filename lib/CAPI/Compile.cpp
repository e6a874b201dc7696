//===- Compile.cpp - C API for compiling Tide programs -------------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide-c/Compile.h"

#include "tide/Compiler/Compile.h"
#include "tide/Frontend/ONNX/ImportONNX.h"
#include "tide/InitAll.h"
#include "tide/Placement/Placement.h"
#include "tide/Support/Diagnostics.h"
#include "tide/Target/Target.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include <dlfcn.h>

using namespace mlir;

namespace {
/// Hands every diagnostic (and its notes) to the caller's callback.
struct DiagnosticForwarder {
  TideDiagnosticCallback callback;
  void *userData;
  unsigned errors = 0;

  void emit(llvm::StringRef severity, Location loc, llvm::StringRef message) {
    if (severity == "error")
      ++errors;
    if (!callback)
      return;
    std::string file, location;
    unsigned line = 0, column = 0;
    if (std::optional<std::string> named = tide::describeNamedLocation(loc)) {
      location = *named;
      loc->walk([&](Location l) {
        if (auto flc = dyn_cast<FileLineColLoc>(l)) {
          file = flc.getFilename().str();
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      });
    } else {
      // The first file position inside the location (fused, named, call
      // site locations hold one).
      loc->walk([&](Location l) {
        if (auto flc = dyn_cast<FileLineColLoc>(l)) {
          file = flc.getFilename().str();
          line = flc.getLine();
          column = flc.getColumn();
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      });
      if (!file.empty())
        location =
            file + ":" + std::to_string(line) + ":" + std::to_string(column);
      else {
        llvm::raw_string_ostream os(location);
        os << loc;
      }
    }
    std::string severityText = severity.str(), text = message.str();
    TideDiagnostic d{severityText.c_str(), file.c_str(), line, column,
                     location.c_str(),     text.c_str()};
    callback(&d, userData);
  }

  void emit(Diagnostic &diag) {
    llvm::StringRef severity = "error";
    switch (diag.getSeverity()) {
    case DiagnosticSeverity::Warning:
      severity = "warning";
      break;
    case DiagnosticSeverity::Remark:
      severity = "remark";
      break;
    case DiagnosticSeverity::Note:
      severity = "note";
      break;
    default:
      break;
    }
    emit(severity, diag.getLocation(), diag.str());
    for (Diagnostic &note : diag.getNotes())
      emit(note);
  }
};

/// The folder of this library, where the runtimes are installed beside it.
std::string libraryDirectory() {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(&tideCompileToLibrary), &info) ||
      !info.dli_fname)
    return "";
  llvm::SmallString<256> dir(info.dli_fname);
  llvm::sys::fs::make_absolute(dir);
  llvm::sys::path::remove_filename(dir);
  return dir.str().str();
}

std::optional<bool> parseBool(llvm::StringRef value) {
  if (value == "true" || value == "1" || value == "on")
    return true;
  if (value == "false" || value == "0" || value == "off")
    return false;
  return std::nullopt;
}
} // namespace

int tideCompileToLibrary(const char *source, size_t sourceLength,
                         int sourceIsPath, const char *sourceName,
                         const char *const *optionNames,
                         const char *const *optionValues, size_t numOptions,
                         const char *outputPath,
                         TideDiagnosticCallback onDiagnostic,
                         TideReportCallback onReport, void *userData) {
  DiagnosticForwarder forward{onDiagnostic, userData};
  auto fail = [&](const std::string &message) {
    // No context yet: report without a location.
    if (onDiagnostic) {
      TideDiagnostic d{"error", "", 0, 0, "", message.c_str()};
      onDiagnostic(&d, userData);
    }
    return 0;
  };
  if (!source || !outputPath)
    return fail("no source or no output path given");
  if (numOptions > 0 && (!optionNames || !optionValues))
    return fail(std::to_string(numOptions) +
                " options given but no option names or values (null)");

  tide::CompileOptions options;
  tide::ONNXImportOptions importOptions;
  bool anyBinding = false;
  std::string runtimeDir = libraryDirectory();
  for (size_t i = 0; i < numOptions; ++i) {
    llvm::StringRef name = optionNames[i] ? optionNames[i] : "";
    llvm::StringRef value = optionValues[i] ? optionValues[i] : "";
    if (name == "target") {
      options.target = value.str();
    } else if (name == "policy") {
      std::optional<tide::PlacementPolicy> policy =
          tide::symbolizePlacementPolicy(value);
      if (!policy)
        return fail("invalid 'policy' option '" + value.str() +
                    "'; expected soft, strict, require-gpu or cost");
      options.policy = *policy;
    } else if (name == "reduce-precision") {
      if (value == "none")
        options.reducePrecision = tide::ReducedPrecision::None;
      else if (value == "bf16")
        options.reducePrecision = tide::ReducedPrecision::BF16;
      else if (value == "f16")
        options.reducePrecision = tide::ReducedPrecision::F16;
      else
        return fail("invalid 'reduce-precision' option '" + value.str() +
                    "'; expected none, bf16 or f16");
    } else if (name == "cpu") {
      std::string why;
      if (failed(tide::checkCompileCpu(value, why)))
        return fail("invalid 'cpu' option: " + why);
      options.cpu = value.str();
    } else if (name == "opt-level") {
      unsigned level = 0;
      if (value.getAsInteger(10, level) || level > 3)
        return fail("invalid 'opt-level' option '" + value.str() +
                    "'; expected 0, 1, 2 or 3");
      options.optLevel = level;
    } else if (name == "cpu-fallback" || name == "remarks") {
      std::optional<bool> flag = parseBool(value);
      if (!flag)
        return fail("invalid '" + name.str() + "' option '" + value.str() +
                    "'; expected true or false");
      (name == "remarks" ? options.remarks : options.cpuFallback) = *flag;
    } else if (name == "cuda-toolkit") {
      options.cudaToolkit = value.str();
    } else if (name == "gpu-chip") {
      options.gpuChip = value.str();
    } else if (name == "runtime-dir") {
      runtimeDir = value.str();
    } else if (name == "bind-shape" || name == "bind-input") {
      std::string error = name == "bind-shape"
                              ? tide::parseBindShape(value, importOptions)
                              : tide::parseBindInput(value, importOptions);
      if (!error.empty())
        return fail(error);
      anyBinding = true;
    } else {
      return fail("unknown compile option '" + name.str() +
                  "'; expected target, policy, reduce-precision, cpu, "
                  "opt-level, cpu-fallback, remarks, cuda-toolkit, gpu-chip, "
                  "runtime-dir, bind-shape or bind-input");
    }
  }
  if (!runtimeDir.empty()) {
    llvm::SmallString<256> cpuRuntime(runtimeDir), gpuRuntime(runtimeDir);
    llvm::sys::path::append(cpuRuntime, "libTideCpuRuntime.a");
    llvm::sys::path::append(gpuRuntime, "libTideCudaRuntime.so");
    options.runtimeLibrary = cpuRuntime.str().str();
    options.gpuRuntimeLibrary = gpuRuntime.str().str();
  }

  DialectRegistry registry;
  tide::registerAllDialects(registry);
  tide::registerAllExtensions(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);
  context.printStackTraceOnDiagnostic(false);
  // Every diagnostic goes to the caller, none to stderr.
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    forward.emit(diag);
    return success();
  });
  auto error = [&](const std::string &message) {
    forward.emit("error", UnknownLoc::get(&context), message);
    return 0;
  };

  llvm::StringRef text(source, sourceLength);
  std::string name = sourceName && *sourceName ? sourceName : "<source>";
  std::unique_ptr<llvm::MemoryBuffer> buffer;
  bool isONNX = false;
  if (sourceIsPath) {
    name = text.str();
    std::string why;
    buffer = openInputFile(name, &why);
    if (!buffer)
      return error(why);
    isONNX = tide::looksLikeONNX(name, buffer->getBuffer());
  } else {
    buffer = llvm::MemoryBuffer::getMemBufferCopy(text, name);
  }
  if (!isONNX && anyBinding)
    return error("bind-shape and bind-input apply to ONNX models only");

  OwningOpRef<ModuleOp> module;
  llvm::SourceMgr sourceMgr;
  if (isONNX) {
    buffer.reset();
    module = tide::importONNXFile(name, &context, importOptions);
  } else {
    sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
    module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  }
  if (!module || forward.errors)
    return forward.errors ? 0 : error("cannot read " + name);

  options.afterPlacement = [&](ModuleOp placed) {
    if (!onReport)
      return;
    FailureOr<const tide::Target *> target =
        tide::resolveTarget(placed, options.target);
    if (failed(target))
      return;
    tide::PlacementSummary summary = tide::collectPlacement(placed, *target);
    for (const char *format : {"text", "json", "dot"}) {
      std::string report;
      llvm::raw_string_ostream os(report);
      if (llvm::StringRef(format) == "text")
        tide::printPlacementText(summary, os);
      else if (llvm::StringRef(format) == "json")
        tide::printPlacementJSON(summary, os);
      else
        tide::printPlacementDot(summary, os);
      onReport(format, report.data(), report.size(), userData);
    }
  };
  OwningOpRef<ModuleOp> fallback;
  if (failed(tide::lowerToLLVMDialect(*module, options, &fallback)) ||
      forward.errors)
    return forward.errors ? 0 : error("compilation failed");
  std::string why;
  if (failed(tide::emitSharedLibrary(*module, options, outputPath, why,
                                     fallback ? *fallback : ModuleOp())))
    return error(why);
  return 1;
}
