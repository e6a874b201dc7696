//===- metadata.cpp - libFuzzer target: the module metadata reader -------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// tide-run and the C header generator read `tide_module_metadata` from modules
// they did not build: any text must be read or refused with a message, never
// a crash or a sanitizer report.
//
//===----------------------------------------------------------------------===//

#include "tide/ABI/ModuleMetadata.h"

#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tide::abi::ModuleMetadata metadata;
  tide::abi::MetadataError error;
  (void)tide::abi::parseModuleMetadata(
      std::string_view(reinterpret_cast<const char *>(data), size), metadata,
      error);
  return 0;
}
