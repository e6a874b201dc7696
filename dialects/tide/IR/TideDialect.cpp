//===- TideDialect.cpp - Tide dialect, device attribute and helpers ------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/IR/TideDialect.h"
#include "tide/IR/TideOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tide;

#include "tide/IR/TideDialect.cpp.inc"
#include "tide/IR/TideEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tide/IR/TideAttrs.cpp.inc"

/// Highest CUDA ordinal accepted (exclusive).
static constexpr unsigned kMaxCudaOrdinal = 64;

void TideDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tide/IR/TideOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tide/IR/TideAttrs.cpp.inc"
      >();
}

Operation *TideDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, type, elements);
}

//===----------------------------------------------------------------------===//
// DeviceAttr
//===----------------------------------------------------------------------===//

Attribute DeviceAttr::parse(AsmParser &parser, Type) {
  MLIRContext *ctx = parser.getContext();
  if (parser.parseLess())
    return {};
  llvm::SMLoc kindLoc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseOptionalKeyword(&keyword)) {
    parser.emitError(kindLoc, "expected a device: 'cpu' or 'cuda:N'");
    return {};
  }
  unsigned ordinal = 0;
  DeviceKind kind;
  if (keyword == "cpu") {
    kind = DeviceKind::CPU;
  } else if (keyword == "cuda") {
    kind = DeviceKind::CUDA;
    if (parser.parseOptionalColon()) {
      parser.emitError(kindLoc, "a CUDA device needs an ordinal: 'cuda:N'");
      return {};
    }
    llvm::SMLoc ordLoc = parser.getCurrentLocation();
    int64_t value;
    if (parser.parseInteger(value))
      return {};
    if (value < 0 || value >= kMaxCudaOrdinal) {
      parser.emitError(ordLoc, "CUDA device ordinal ")
          << value << " is out of range [0, " << kMaxCudaOrdinal << ")";
      return {};
    }
    ordinal = static_cast<unsigned>(value);
  } else {
    parser.emitError(kindLoc, "unknown device '")
        << keyword << "'; expected 'cpu' or 'cuda:N' (e.g. cuda:0)";
    return {};
  }
  if (parser.parseGreater())
    return {};
  return DeviceAttr::get(ctx, kind, ordinal);
}

void DeviceAttr::print(AsmPrinter &printer) const {
  printer << "<" << str() << ">";
}

LogicalResult
DeviceAttr::verify(llvm::function_ref<InFlightDiagnostic()> emitError,
                   DeviceKind kind, unsigned ordinal) {
  if (kind == DeviceKind::CPU && ordinal != 0)
    return emitError() << "the CPU device has no ordinal; write "
                          "#tide.device<cpu>";
  if (kind == DeviceKind::CUDA && ordinal >= kMaxCudaOrdinal)
    return emitError() << "CUDA device ordinal " << ordinal
                       << " is out of range [0, " << kMaxCudaOrdinal << ")";
  return success();
}

std::string DeviceAttr::str() const {
  if (isCPU())
    return "cpu";
  return "cuda:" + std::to_string(getOrdinal());
}

DeviceAttr mlir::tide::parseDeviceString(MLIRContext *ctx, StringRef text,
                                         std::string &error) {
  text = text.trim();
  StringRef original = text;
  if (text == "cpu")
    return DeviceAttr::cpu(ctx);
  if (text == "cuda")
    return DeviceAttr::cuda(ctx, 0);
  unsigned ordinal;
  if (text.consume_front("cuda:") && !text.getAsInteger(10, ordinal) &&
      ordinal < kMaxCudaOrdinal)
    return DeviceAttr::cuda(ctx, ordinal);
  error = "unknown device '" + original.str() +
          "'; expected 'cpu' or 'cuda:N' with 0 <= N < 64";
  return {};
}

//===----------------------------------------------------------------------===//
// Placement state helpers: the only code that knows the attribute names.
//===----------------------------------------------------------------------===//

Attribute mlir::tide::getMemorySpace(DeviceAttr device) {
  assert(device && "the host is #tide.device<cpu>");
  if (device.isGPU())
    return device;
  return IntegerAttr::get(IntegerType::get(device.getContext(), 64), 0);
}

DeviceAttr mlir::tide::getMemorySpaceDevice(Attribute memorySpace) {
  auto device = dyn_cast_or_null<DeviceAttr>(memorySpace);
  return device && device.isGPU() ? device : DeviceAttr();
}

DeviceAttr mlir::tide::getDevice(Operation *op) {
  return op->getAttrOfType<DeviceAttr>(TideDialect::getDeviceAttrName());
}

void mlir::tide::setDevice(Operation *op, DeviceAttr device) {
  if (device)
    op->setAttr(TideDialect::getDeviceAttrName(), device);
  else
    op->removeAttr(TideDialect::getDeviceAttrName());
}

DeviceAttr mlir::tide::getDefaultDevice(Operation *op) {
  for (Operation *cur = op; cur; cur = cur->getParentOp())
    if (auto device = cur->getAttrOfType<DeviceAttr>(
            TideDialect::getDefaultDeviceAttrName()))
      return device;
  return {};
}

StringRef mlir::tide::getPlacementReason(Operation *op) {
  if (auto reason =
          op->getAttrOfType<StringAttr>(TideDialect::getReasonAttrName()))
    return reason.getValue();
  return {};
}

void mlir::tide::setPlacementReason(Operation *op, StringRef reason) {
  op->setAttr(TideDialect::getReasonAttrName(),
              StringAttr::get(op->getContext(), reason));
}

StringRef mlir::tide::getColocationGroup(Operation *op) {
  if (auto group =
          op->getAttrOfType<StringAttr>(TideDialect::getColocateAttrName()))
    return group.getValue();
  return {};
}

static DeviceAttr residenceFrom(DictionaryAttr attrs, MLIRContext *ctx) {
  if (attrs)
    if (auto device = attrs.getAs<DeviceAttr>(
            TideDialect::getResidentAttrName()))
      return device;
  return DeviceAttr::cpu(ctx);
}

DeviceAttr mlir::tide::getArgumentResidence(Operation *funcOp,
                                            unsigned index) {
  auto func = dyn_cast<FunctionOpInterface>(funcOp);
  if (!func)
    return DeviceAttr::cpu(funcOp->getContext());
  return residenceFrom(func.getArgAttrDict(index), funcOp->getContext());
}

DeviceAttr mlir::tide::getResultResidence(Operation *funcOp, unsigned index) {
  auto func = dyn_cast<FunctionOpInterface>(funcOp);
  if (!func)
    return DeviceAttr::cpu(funcOp->getContext());
  return residenceFrom(func.getResultAttrDict(index), funcOp->getContext());
}

//===----------------------------------------------------------------------===//
// Attribute verification
//===----------------------------------------------------------------------===//

LogicalResult TideDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  Attribute value = attr.getValue();
  if (name == getDeviceAttrName() || name == getDefaultDeviceAttrName()) {
    if (!isa<DeviceAttr>(value))
      return op->emitError() << "'" << name
                             << "' must be a device attribute such as "
                                "#tide.device<cpu> or #tide.device<cuda:0>";
    return success();
  }
  if (name == getTargetAttrName()) {
    if (!isa<ModuleOp>(op))
      return op->emitError() << "'" << name << "' belongs on a module";
    if (!isa<TargetAttr>(value))
      return op->emitError()
             << "'" << name << "' must be a #tide.target<...> attribute";
    return success();
  }
  if (name == getReasonAttrName() || name == getColocateAttrName() ||
      name == "tide.decomposed") {
    if (!isa<StringAttr>(value))
      return op->emitError() << "'" << name << "' must be a string";
    return success();
  }
  if (name == getConvPadsAttrName()) {
    if (!isa<DenseI64ArrayAttr>(value))
      return op->emitError() << "'" << name << "' must be an array of i64";
    return success();
  }
  if (name == getDeviceCopySlotAttrName()) {
    if (!isa<UnitAttr>(value))
      return op->emitError() << "'" << name << "' must be a unit attribute";
    return success();
  }
  return op->emitError() << "unknown Tide attribute '" << name
                         << "'; known: tide.device, tide.default_device, "
                            "tide.colocate, tide.reason, tide.decomposed, "
                            "tide.target, tide.conv_pads, "
                            "tide.device_copy_slot";
}

static LogicalResult verifyBoundaryAttr(Operation *op, NamedAttribute attr,
                                        StringRef what) {
  StringRef name = attr.getName().getValue();
  if (name == TideDialect::getResidentAttrName()) {
    if (!isa<DeviceAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' on a " << what
                             << " must be a device attribute such as "
                                "#tide.device<cuda:0>";
    return success();
  }
  if (name == "tide.donate" && what == "function argument") {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'tide.donate' takes no value";
    return success();
  }
  return op->emitError() << "unknown Tide " << what << " attribute '" << name
                         << "'; known: tide.resident"
                         << (what == "function argument" ? ", tide.donate"
                                                         : "");
}

LogicalResult TideDialect::verifyRegionArgAttribute(Operation *op, unsigned,
                                                    unsigned,
                                                    NamedAttribute attr) {
  return verifyBoundaryAttr(op, attr, "function argument");
}

LogicalResult TideDialect::verifyRegionResultAttribute(Operation *op, unsigned,
                                                       unsigned,
                                                       NamedAttribute attr) {
  return verifyBoundaryAttr(op, attr, "function result");
}

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

std::optional<DType> mlir::tide::getDType(Type type) {
  if (auto integer = dyn_cast<IntegerType>(type)) {
    // Signed integer types (si8, ...) are not Tide types.
    if (integer.isSigned())
      return std::nullopt;
    bool u = integer.isUnsigned();
    switch (integer.getWidth()) {
    case 1:
      return u ? std::nullopt : std::optional<DType>(DType::I1);
    case 8:
      return u ? DType::UI8 : DType::I8;
    case 16:
      return u ? DType::UI16 : DType::I16;
    case 32:
      return u ? DType::UI32 : DType::I32;
    case 64:
      return u ? DType::UI64 : DType::I64;
    default:
      return std::nullopt;
    }
  }
  if (type.isF16())
    return DType::F16;
  if (type.isBF16())
    return DType::BF16;
  if (type.isF32())
    return DType::F32;
  if (type.isF64())
    return DType::F64;
  return std::nullopt;
}

Type mlir::tide::getElementType(MLIRContext *ctx, DType dtype) {
  Builder b(ctx);
  auto unsignedType = [&](unsigned width) -> Type {
    return IntegerType::get(ctx, width, IntegerType::Unsigned);
  };
  switch (dtype) {
  case DType::I1:
    return b.getI1Type();
  case DType::I8:
    return b.getI8Type();
  case DType::I16:
    return b.getI16Type();
  case DType::I32:
    return b.getI32Type();
  case DType::I64:
    return b.getI64Type();
  case DType::F16:
    return b.getF16Type();
  case DType::BF16:
    return b.getBF16Type();
  case DType::F32:
    return b.getF32Type();
  case DType::F64:
    return b.getF64Type();
  case DType::UI8:
    return unsignedType(8);
  case DType::UI16:
    return unsignedType(16);
  case DType::UI32:
    return unsignedType(32);
  case DType::UI64:
    return unsignedType(64);
  }
  llvm_unreachable("unknown dtype");
}

unsigned mlir::tide::getDTypeBytes(DType dtype) {
  static const unsigned bytes[kNumDTypes] = {1, 1, 2, 4, 8, 1, 2,
                                             4, 8, 2, 2, 4, 8};
  return bytes[static_cast<unsigned>(dtype)];
}

bool mlir::tide::isFloatDType(DType dtype) {
  return dtype == DType::F16 || dtype == DType::BF16 || dtype == DType::F32 ||
         dtype == DType::F64;
}

bool mlir::tide::isUnsignedDType(DType dtype) {
  return dtype == DType::UI8 || dtype == DType::UI16 || dtype == DType::UI32 ||
         dtype == DType::UI64;
}

bool mlir::tide::isUnsignedElement(Type type) {
  auto integer = dyn_cast<IntegerType>(type);
  return integer && integer.isUnsigned();
}

bool mlir::tide::isDTypeOfKind(DType dtype, ElementKind kind) {
  switch (kind) {
  case ElementKind::Float:
    return isFloatDType(dtype);
  case ElementKind::Integer:
    return !isFloatDType(dtype);
  case ElementKind::Numeric:
    return dtype != DType::I1;
  case ElementKind::Any:
    return true;
  }
  llvm_unreachable("unknown element kind");
}

StringRef TargetAttr::getChip(StringRef device) const {
  if (auto chip = getChips().getAs<StringAttr>(device))
    return chip.getValue();
  return "";
}
