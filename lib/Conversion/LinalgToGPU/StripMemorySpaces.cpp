//===- StripMemorySpaces.cpp - GPU buffers as plain pointers on the host --===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// Once every op on GPU memory is a GPU op (convert-linalg-to-gpu), the GPU
// memory spaces (`#tide.device<cuda:N>`) have done their job. The host
// handles device pointers as opaque values, and the kernels address them
// generically, so the spaces are dropped from every type in the module (an
// AttrTypeReplacer): gpu-to-llvm and the memref lowering then see the same
// pointer type on both sides of a call or a launch.
//
//===----------------------------------------------------------------------===//

#include "tide/Conversion/Passes.h"

#include "tide/IR/TideDialect.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::tide {
#define GEN_PASS_DEF_STRIPMEMORYSPACESPASS
#include "tide/Conversion/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;
using namespace mlir::tide;

namespace {

bool isGpuSpace(Attribute space) {
  return static_cast<bool>(getMemorySpaceDevice(space));
}

struct StripMemorySpacesPass
    : public tide::impl::StripMemorySpacesPassBase<StripMemorySpacesPass> {
  using Base::Base;

  void runOnOperation() override {
    AttrTypeReplacer replacer;
    replacer.addReplacement([](MemRefType type) -> std::optional<Type> {
      if (!isGpuSpace(type.getMemorySpace()))
        return std::nullopt;
      return MemRefType::get(type.getShape(), type.getElementType(),
                             type.getLayout(), Attribute());
    });
    replacer.addReplacement([](UnrankedMemRefType type) -> std::optional<Type> {
      if (!isGpuSpace(type.getMemorySpace()))
        return std::nullopt;
      return UnrankedMemRefType::get(type.getElementType(), Attribute());
    });
    replacer.recursivelyReplaceElementsIn(getOperation(), /*replaceAttrs=*/true,
                                          /*replaceLocs=*/false,
                                          /*replaceTypes=*/true);
    // A cast between spaces is now a cast to the same type.
    getOperation()->walk([](memref::MemorySpaceCastOp cast) {
      if (cast.getSource().getType() == cast.getType()) {
        cast.replaceAllUsesWith(cast.getSource());
        cast.erase();
      }
    });
  }
};

} // namespace
