//===- target.cpp - libFuzzer target: target JSON files -------------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// Any text given as a target file (`target=file.json`) must be read into a
// target or refused with a message: never a crash, a hang or a sanitizer
// report. A `base` naming another file or built-in target is followed as
// the tools do.
//
//===----------------------------------------------------------------------===//

#include "tide/Target/Target.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef json(reinterpret_cast<const char *>(data), size);
  llvm::Expected<mlir::tide::Target> target =
      mlir::tide::parseTarget(json, "fuzz.json");
  if (!target) {
    std::string message = llvm::toString(target.takeError());
    if (message.empty())
      __builtin_trap(); // a refusal must say why
  }
  return 0;
}
