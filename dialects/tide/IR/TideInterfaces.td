//===- TideInterfaces.td - Per-op facts of the tide dialect --*- tablegen -*-===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// Every fact about an op that code outside its verifier and its lowering
// pattern needs (which element types it takes, its kernel group, its cost per
// element, what it decomposes into, how it lowers) is declared once, with the
// op, through `Tide_Facts`. Passes read the facts of an Operation through
// `OpFactsInterface`; code without an op at hand (the kernel registry, target
// files, `tide-list-kernels`) reads the table `getAllOpFacts()` built from the
// same declarations.
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_IR_TIDEINTERFACES_TD
#define TIDE_IR_TIDEINTERFACES_TD

include "mlir/IR/OpBase.td"

def Tide_OpFactsInterface : OpInterface<"OpFactsInterface"> {
  let cppNamespace = "::mlir::tide";
  let description = [{
    Static facts of a tide op, declared in ODS with `Tide_Facts<...>`: the
    element types it accepts, its kernel group (target files enable kernels
    by group), its lowering family, its arithmetic per element for the cost
    model, and the primitives `tide-decompose` rewrites it into (empty when
    it is not composite).
  }];
  let methods = [
    StaticInterfaceMethod<"The class of element types the op accepts.",
      "::mlir::tide::ElementKind", "getElementKind", (ins),
      [{ return ConcreteOp::kElementKind; }]>,
    StaticInterfaceMethod<"The kernel group (`@<group>` in target files).",
      "::mlir::tide::KernelGroup", "getKernelGroup", (ins),
      [{ return ConcreteOp::kKernelGroup; }]>,
    StaticInterfaceMethod<"How the op lowers and how tests write it.",
      "::mlir::tide::LoweringFamily", "getLoweringFamily", (ins),
      [{ return ConcreteOp::kLoweringFamily; }]>,
    StaticInterfaceMethod<[{Arithmetic operations per output element, for
      the cost model (contractions are costed from their shapes).}],
      "double", "getFlopsPerElement", (ins),
      [{ return ConcreteOp::kFlopsPerElement; }]>,
    StaticInterfaceMethod<[{The ops (mnemonics without the dialect prefix)
      `tide-decompose` rewrites this op into; empty when it is primitive.}],
      "::llvm::ArrayRef<::llvm::StringLiteral>", "getDecomposition", (ins),
      [{ return ConcreteOp::getDecompositionFact(); }]>,
    InterfaceMethod<[{How the op reads operand `index` (`Tide_OperandRoles`;
      `data` unless declared otherwise).}],
      "::mlir::tide::OperandRole", "getOperandRole", (ins "unsigned":$index),
      [{ return ::mlir::tide::detail::getOperandRoleFact<ConcreteOp>(index); }]>,
  ];
  let extraClassDeclaration = [{
    /// True when `tide-decompose` can rewrite the op into primitives.
    bool isComposite() { return !getDecomposition().empty(); }
  }];
}

// The facts of one op. `family` names a LoweringFamily case, `group` a
// KernelGroup case, `kind` an ElementKind case; `decomposition` lists the
// primitives a composite op becomes.
class Tide_Facts<string family, string group, string kind, int flops = 1,
                 list<string> decomposition = []>
    : NativeOpTrait<"OpFactsTrait", [], [{
    static constexpr ::mlir::tide::LoweringFamily kLoweringFamily =
        ::mlir::tide::LoweringFamily::}] # family # [{;
    static constexpr ::mlir::tide::KernelGroup kKernelGroup =
        ::mlir::tide::KernelGroup::}] # group # [{;
    static constexpr ::mlir::tide::ElementKind kElementKind =
        ::mlir::tide::ElementKind::}] # kind # [{;
    static constexpr double kFlopsPerElement = }] # flops # [{;
    static ::llvm::ArrayRef<::llvm::StringLiteral> getDecompositionFact() {
      }] # !if(!empty(decomposition), "return {};", [{
      static constexpr ::llvm::StringLiteral parts[] = {}] #
        !interleave(!foreach(p, decomposition, "\"" # p # "\""), ", ") # [{};
      return parts;}]) # [{
    }
  }]> {
  let cppNamespace = "::mlir::tide";
}

// How an op reads its operands, in operand order (`data`, `host` or
// `shape_only`; see OperandRole in TideBase.td). Operands past the list are
// `data`. An op without this trait reads every operand as `data`.
class Tide_OperandRoles<list<string> roles>
    : NativeOpTrait<"OperandRolesTrait", [], [{
    static constexpr ::mlir::tide::OperandRole kOperandRoles[] = {}] #
      !interleave(!foreach(r, roles, "::mlir::tide::OperandRole::" #
        !cond(!eq(r, "data"): "Data", !eq(r, "host"): "Host",
              !eq(r, "shape_only"): "ShapeOnly")), ", ") # [{};
  }]> {
  let cppNamespace = "::mlir::tide";
}

#endif // TIDE_IR_TIDEINTERFACES_TD
