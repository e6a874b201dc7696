//===- TideDialect.h - Tide dialect and attributes --------------*- C++ -*-===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_IR_TIDEDIALECT_H
#define TIDE_IR_TIDEDIALECT_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"

#include "tide/IR/TideEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tide/IR/TideAttrs.h.inc"

#include "tide/IR/TideDialect.h.inc"

namespace mlir::tide {

//===----------------------------------------------------------------------===//
// The one place that reads and writes placement state on an op.
//===----------------------------------------------------------------------===//

/// The device an op is placed on (`tide.device`), or null when unplaced.
DeviceAttr getDevice(Operation *op);
/// Places `op` on `device` (null removes the placement).
void setDevice(Operation *op, DeviceAttr device);
/// The default device of the closest enclosing function or module
/// (`tide.default_device`), or null.
DeviceAttr getDefaultDevice(Operation *op);
/// The recorded placement reason of `op`, or "".
llvm::StringRef getPlacementReason(Operation *op);
/// Records why `op` was placed where it is.
void setPlacementReason(Operation *op, llvm::StringRef reason);
/// The colocation group of `op` (`tide.colocate`), or "".
llvm::StringRef getColocationGroup(Operation *op);
/// The device where argument `index` of function-like `funcOp` lives at the
/// call boundary (`tide.resident`); the host CPU when unmarked.
DeviceAttr getArgumentResidence(Operation *funcOp, unsigned index);
/// Same for result `index`.
DeviceAttr getResultResidence(Operation *funcOp, unsigned index);

/// The memref memory space that holds values on `device` (not null) after
/// bufferization: for a GPU, its global memory, spelled as the device itself
/// (`#tide.device<cuda:N>`); for the host, the default space written out
/// (`0 : i64`, so that a copy into it does not take its source's space).
Attribute getMemorySpace(DeviceAttr device);
/// The GPU whose global memory the memref memory space `memorySpace` is;
/// null for the default space and any other.
DeviceAttr getMemorySpaceDevice(Attribute memorySpace);

/// Parses "cpu" or "cuda:N" (N < 64). Returns null and sets `error` on bad
/// input.
DeviceAttr parseDeviceString(MLIRContext *ctx, llvm::StringRef text,
                             std::string &error);

//===----------------------------------------------------------------------===//
// Element types (DType is generated from TideBase.td: stringifyDType,
// symbolizeDType)
//===----------------------------------------------------------------------===//

/// Number of DType cases.
constexpr unsigned kNumDTypes = 13;
/// The DType of a builtin element type, if Tide supports it.
std::optional<DType> getDType(Type type);
/// The builtin element type of `dtype`.
Type getElementType(MLIRContext *ctx, DType dtype);
/// Size of one element in bytes (i1 is stored as a byte).
unsigned getDTypeBytes(DType dtype);
/// True for f16, bf16, f32 and f64.
bool isFloatDType(DType dtype);
/// True for ui8, ui16, ui32 and ui64.
bool isUnsignedDType(DType dtype);
/// True for an unsigned integer type (ui8..ui64); the one test every pass
/// uses to pick unsigned semantics.
bool isUnsignedElement(Type type);
/// True when `dtype` belongs to `kind`.
bool isDTypeOfKind(DType dtype, ElementKind kind);

} // namespace mlir::tide

#endif // TIDE_IR_TIDEDIALECT_H
