//===- ExportABI.cpp - Self-describing compiled modules ------------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Lowering/Passes.h"

#include "tide/IR/TideDialect.h"
#include "tide/Target/Target.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::tide {
#define GEN_PASS_DEF_EXPORTABIPASS
#include "tide/Lowering/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;
using namespace mlir::tide;

namespace {

/// "f32 2x?x3 cpu", or an error.
FailureOr<std::string> describe(Operation *func, Type type, DeviceAttr device,
                                StringRef what, unsigned index) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  std::optional<DType> dtype =
      tensor ? getDType(tensor.getElementType()) : std::nullopt;
  if (!dtype) {
    func->emitError() << what << " " << index << " has type " << type
                      << "; exported functions take and return ranked "
                         "tensors of Tide's element types";
    return failure();
  }
  // Static sizes of more than 2^63 - 1 bytes describe no buffer (the count
  // wrapped, and the code wrote past the buffer the runner made).
  int64_t bytes = std::max<int64_t>(1, tensor.getElementTypeBitWidth() / 8);
  for (int64_t d : tensor.getShape())
    if (!ShapedType::isDynamic(d) && llvm::MulOverflow(bytes, d, bytes)) {
      func->emitError() << what << " " << index << " has type " << type
                        << ", of more than 2^63 - 1 bytes";
      return failure();
    }
  std::string s = stringifyDType(*dtype).str() + " ";
  if (tensor.getRank() == 0)
    s += "scalar";
  for (auto [i, d] : llvm::enumerate(tensor.getShape())) {
    if (i)
      s += "x";
    s += ShapedType::isDynamic(d) ? "?" : std::to_string(d);
  }
  return s + " " + device.str();
}

struct ExportABIPass : public tide::impl::ExportABIPassBase<ExportABIPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::string text = "tide-module 1\n";
    bool ok = true;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal() || func.isPrivate())
        continue;
      func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                    UnitAttr::get(&getContext()));
      // Callers keep their inputs: bufferization must not write into them.
      for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
        if (!func.getArgAttr(i, "tide.donate"))
          func.setArgAttr(i, "bufferization.writable",
                          BoolAttr::get(&getContext(), false));
      // The metadata is lines of space-separated words: a name with a
      // space, a control character or a non-ASCII byte would break it (a
      // newline in a name could even rewrite another function's signature).
      StringRef name = func.getName();
      if (name.empty() ||
          llvm::any_of(name, [](char c) { return c <= ' ' || c > '~'; })) {
        func.emitError("exported function name '")
            << name
            << "' has a space, a control character or a non-ASCII byte; "
               "Tide's module metadata cannot hold it";
        ok = false;
        continue;
      }
      FunctionType type = func.getFunctionType();
      text += "func " + func.getName().str() + " " +
              std::to_string(type.getNumInputs()) + " " +
              std::to_string(type.getNumResults()) + "\n";
      for (auto [i, t] : llvm::enumerate(type.getInputs())) {
        auto line =
            describe(func, t, getArgumentResidence(func, i), "argument", i);
        ok &= succeeded(line);
        // A donated argument's buffer may be overwritten by the call: the
        // metadata says so, for callers to pass only buffers they own.
        if (succeeded(line))
          text += "arg " + std::to_string(i) + " " + *line +
                  (func.getArgAttr(i, "tide.donate") ? " donated" : "") + "\n";
      }
      for (auto [i, t] : llvm::enumerate(type.getResults())) {
        auto line = describe(func, t, getResultResidence(func, i), "result", i);
        ok &= succeeded(line);
        if (succeeded(line))
          text += "result " + std::to_string(i) + " " + *line + "\n";
      }
    }
    if (!ok)
      return signalPassFailure();
    text.push_back('\0');
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    auto arrayType = LLVM::LLVMArrayType::get(b.getI8Type(), text.size());
    LLVM::GlobalOp::create(b, module.getLoc(), arrayType, /*isConstant=*/true,
                           LLVM::Linkage::External, "tide_module_metadata",
                           b.getStringAttr(text));
  }
};

} // namespace
