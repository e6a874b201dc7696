//===- npy.cpp - libFuzzer target: the .npy reader of tide-run -----------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// Any byte string given to tide-run as a .npy input must be read or refused
// with a message: never a crash, a hang or a sanitizer report. The reader
// takes a path, so each input is written to one file in /dev/shm (or /tmp).
//
//===----------------------------------------------------------------------===//

#include "tide/Runner/Npy.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <unistd.h>

static std::string scratchPath() {
  const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  return std::string(dir) + "/tide-fuzz-npy-" + std::to_string(getpid()) +
         ".npy";
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const std::string path = scratchPath();
  FILE *file = std::fopen(path.c_str(), "wb");
  if (!file)
    return 0;
  std::fwrite(data, 1, size, file);
  std::fclose(file);
  tide::runner::Array array;
  std::string error;
  if (!tide::runner::readNpy(path, array, error) && error.empty())
    __builtin_trap(); // a refusal must say why
  return 0;
}
