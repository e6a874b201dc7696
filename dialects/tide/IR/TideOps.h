//===- TideOps.h - Tide operations ------------------------------*- C++ -*-===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_IR_TIDEOPS_H
#define TIDE_IR_TIDEOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "tide/IR/TideDialect.h"

#include <iterator>
#include <type_traits>

namespace mlir::tide {

/// Human-readable list of the element types in `kind`.
llvm::StringRef describeElementKind(ElementKind kind);
/// True when `type` belongs to `kind`.
bool isElementKind(Type type, ElementKind kind);
/// Checks that `tensorType`'s element type belongs to `kind`; otherwise emits
/// an error on `op` that says how to fix it.
LogicalResult verifyElementKind(Operation *op, Type tensorType,
                                ElementKind kind);
/// Result type of a broadcasting elementwise op named `name`. Reports mixed
/// element types, wrong element kinds and incompatible shapes at `loc`.
LogicalResult inferBroadcastResult(MLIRContext *ctx,
                                   std::optional<Location> loc,
                                   llvm::StringRef name, ValueRange operands,
                                   ElementKind kind, bool boolResult,
                                   llvm::SmallVectorImpl<Type> &types);
/// Result type of a reduction named `name`.
LogicalResult inferReductionResult(MLIRContext *ctx,
                                   std::optional<Location> loc,
                                   llvm::StringRef name, Value input,
                                   llvm::ArrayRef<int64_t> axes, bool keepdims,
                                   ElementKind kind, bool indexResult,
                                   llvm::SmallVectorImpl<Type> &types);
/// Size of a sliding-window result along a dimension of `size` elements
/// (ShapedType::kDynamic when `size` is): windows of `kernel` elements spaced
/// by `dilation`, moved by `stride`, over the input padded with `padBegin`
/// and `padEnd` elements. `ceilMode` keeps a last partial window unless it
/// would start in the end padding. Assumes the window fits the padded input
/// (conv and pool verify it).
int64_t getWindowOutputSize(int64_t size, int64_t kernel, int64_t stride,
                            int64_t dilation, int64_t padBegin, int64_t padEnd,
                            bool ceilMode);
/// `axes` made non-negative and sorted (assumes they verified).
llvm::SmallVector<int64_t> normalizeAxes(llvm::ArrayRef<int64_t> axes,
                                         int64_t rank);

/// Custom assembly directive: "T" when both operand types are T, "T1, T2"
/// otherwise.
ParseResult parseOperandTypes(OpAsmParser &parser, Type &lhs, Type &rhs);
void printOperandTypes(OpAsmPrinter &printer, Operation *op, Type lhs,
                       Type rhs);

/// Custom assembly directive: a full `#tide.device<...>` attribute not followed
/// by a type.
ParseResult parseDeviceRef(OpAsmParser &parser, DeviceAttr &device);
void printDeviceRef(OpAsmPrinter &printer, Operation *op, DeviceAttr device);

//===----------------------------------------------------------------------===//
// Per-op facts (declared in ODS with Tide_Facts, see TideInterfaces.td)
//===----------------------------------------------------------------------===//

/// The trait `Tide_Facts` attaches; the facts themselves are static members
/// of the op class (kElementKind, kKernelGroup, ...).
template <typename ConcreteType>
class OpFactsTrait : public OpTrait::TraitBase<ConcreteType, OpFactsTrait> {};

/// Runs an op's type inference with the other (non-region) traits, so that
/// an op whose result types cannot be inferred fails verification with the
/// inference's own message only: InferTypeOpInterface's verifier, which runs
/// later and adds "failed to infer returned types", is then not reached.
template <typename ConcreteType>
class InferTypeFirstTrait
    : public OpTrait::TraitBase<ConcreteType, InferTypeFirstTrait> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    llvm::SmallVector<Type, 1> inferred;
    if (failed(ConcreteType::inferReturnTypes(
            op->getContext(), op->getLoc(), op->getOperands(),
            op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
            op->getRegions(), inferred)))
      return failure();
    llvm::SmallVector<Type, 1> declared(op->getResultTypes());
    if (!ConcreteType::isCompatibleReturnTypes(inferred, declared))
      return emitError(op->getLoc())
             << "'" << op->getName() << "' op inferred type(s) " << inferred
             << " are incompatible with return type(s) of operation "
             << declared;
    return success();
  }
};

/// The trait `Tide_OperandRoles` attaches; the roles are the static member
/// `kOperandRoles` of the op class.
template <typename ConcreteType>
class OperandRolesTrait
    : public OpTrait::TraitBase<ConcreteType, OperandRolesTrait> {};

namespace detail {
template <typename OpT, typename = void>
struct HasOperandRoles : std::false_type {};
template <typename OpT>
struct HasOperandRoles<OpT, std::void_t<decltype(OpT::kOperandRoles)>>
    : std::true_type {};
/// The role `Tide_OperandRoles` declares for operand `index` of `OpT`
/// (`Data` when it declares none).
template <typename OpT>
OperandRole getOperandRoleFact(unsigned index) {
  if constexpr (HasOperandRoles<OpT>::value) {
    if (index < std::size(OpT::kOperandRoles))
      return OpT::kOperandRoles[index];
  }
  return OperandRole::Data;
}
} // namespace detail

/// How `op` reads operand `index`: its declared role for a tide op, `Data`
/// for any other op.
OperandRole getOperandRole(Operation *op, unsigned index);

/// The facts of one op, for code that has no op at hand.
struct OpFacts {
  llvm::StringRef name; ///< mnemonic without the dialect prefix ("exp")
  ElementKind elementKind;
  KernelGroup kernelGroup;
  LoweringFamily loweringFamily;
  double flopsPerElement;
  llvm::ArrayRef<llvm::StringLiteral> decomposition;

  bool isComposite() const { return !decomposition.empty(); }
  /// False for ops placement never sees as kernels (transfers).
  bool isPlaceable() const { return kernelGroup != KernelGroup::Transfer; }
};

/// Facts of every tide op, sorted by name.
llvm::ArrayRef<OpFacts> getAllOpFacts();
/// Facts of the op named `name` (without the dialect prefix), or null.
const OpFacts *lookupOpFacts(llvm::StringRef name);

} // namespace mlir::tide

#include "tide/IR/TideInterfaces.h.inc"

#define GET_OP_CLASSES
#include "tide/IR/TideOps.h.inc"

#endif // TIDE_IR_TIDEOPS_H
