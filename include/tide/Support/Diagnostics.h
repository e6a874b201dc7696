//===- Diagnostics.h - Messages at named locations --------------*- C++ -*-===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// An imported model has no source lines: each op's location is
// `NameLoc("<node> (<OpType>)", FileLineColLoc(<model>, 0, 0))`. MLIR's
// SourceMgr handler would print such a message as "model.onnx:0:0: error:
// ...", dropping the node. NamedLocDiagnosticHandler prints it as
//
//   model.onnx: node 'fc1' (Gemm): error: ...
//
// and leaves every other location to the handlers registered before it.
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_SUPPORT_DIAGNOSTICS_H
#define TIDE_SUPPORT_DIAGNOSTICS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace mlir::tide {

/// "model.onnx: node 'fc1' (Gemm)" for a location that holds a NameLoc over a
/// FileLineColLoc of line 0 (an imported node), "model.onnx" for such a
/// FileLineColLoc alone (the model as a whole); std::nullopt otherwise.
inline std::optional<std::string> describeNamedLocation(Location loc) {
  std::optional<std::string> result;
  // A whole-file location (line 0): "model.onnx".
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    if (file.getLine() == 0)
      return file.getFilename().str();
  loc->walk([&](Location l) {
    auto named = dyn_cast<NameLoc>(l);
    if (!named)
      return WalkResult::advance();
    auto file = dyn_cast<FileLineColLoc>(named.getChildLoc());
    if (!file || file.getLine() != 0)
      return WalkResult::advance();
    std::string s = file.getFilename().str() + ": node ";
    llvm::StringRef name = named.getName().getValue();
    // "fc1 (Gemm)" -> "'fc1' (Gemm)".
    size_t paren = name.rfind(" (");
    llvm::StringRef node = name.substr(0, paren);
    // Unnamed nodes are numbered: "#3 (Relu)".
    s += node.starts_with("#") ? node.str() : "'" + node.str() + "'";
    if (paren != llvm::StringRef::npos)
      s += name.substr(paren).str();
    result = s;
    return WalkResult::interrupt();
  });
  return result;
}

/// Prints diagnostics at imported-node locations; passes others on.
class NamedLocDiagnosticHandler : public ScopedDiagnosticHandler {
public:
  NamedLocDiagnosticHandler(MLIRContext *ctx,
                            llvm::raw_ostream &os = llvm::errs())
      : ScopedDiagnosticHandler(ctx) {
    setHandler([&os](Diagnostic &diag) -> LogicalResult {
      auto where = describeNamedLocation(diag.getLocation());
      if (!where)
        return failure();
      auto print = [&](Diagnostic &d, const std::string &at) {
        const char *kind = "error";
        switch (d.getSeverity()) {
        case DiagnosticSeverity::Warning:
          kind = "warning";
          break;
        case DiagnosticSeverity::Remark:
          kind = "remark";
          break;
        case DiagnosticSeverity::Note:
          kind = "note";
          break;
        default:
          break;
        }
        os << at << ": " << kind << ": " << d.str() << "\n";
      };
      print(diag, *where);
      for (Diagnostic &note : diag.getNotes())
        print(note, describeNamedLocation(note.getLocation()).value_or(*where));
      os.flush();
      return success();
    });
  }
};

} // namespace mlir::tide

#endif // TIDE_SUPPORT_DIAGNOSTICS_H
