// Loads the tide dialect from a project that added Tide with add_subdirectory.
#include "tide/IR/TideDialect.h"
#include "mlir/IR/MLIRContext.h"
#include <cstdio>

int main() {
  mlir::MLIRContext context;
  context.loadDialect<mlir::tide::TideDialect>();
  auto device = mlir::tide::DeviceAttr::cuda(&context, 1);
  std::printf("tide dialect loaded; device %s\n", device.str().c_str());
  return 0;
}
