//===- Npy.h - NumPy .npy arrays (no LLVM or MLIR) --------------*- C++ -*-===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_RUNNER_NPY_H
#define TIDE_RUNNER_NPY_H

#include <cstdint>
#include <string>
#include <vector>

namespace tide::runner {

/// Element types, named as in Tide ("f32", "i1", ...).
struct DTypeInfo {
  const char *name;  ///< Tide name: "f32"
  const char *descr; ///< NumPy descr: "<f4"
  unsigned bytes;
};
/// The type named `name` (Tide name), or null.
const DTypeInfo *findDType(const std::string &name);

/// A dense row-major array.
struct Array {
  const DTypeInfo *dtype = nullptr;
  std::vector<int64_t> shape;
  std::vector<unsigned char> data;

  int64_t numElements() const;
  /// Element `i` converted to double (bf16/f16 decoded).
  double get(int64_t i) const;
  /// Stores `value` converted to the dtype at element `i`.
  void set(int64_t i, double value);
};

/// Reads a .npy file (format 1.0-3.0, little-endian, C order). bf16 is read
/// from NumPy's raw 2-byte types ('<u2' or '|V2') holding the bits. Returns
/// false and sets `error` on any problem.
bool readNpy(const std::string &path, Array &array, std::string &error);

/// Writes a .npy file (bf16 as '<u2' bits).
bool writeNpy(const std::string &path, const Array &array, std::string &error);

} // namespace tide::runner

#endif // TIDE_RUNNER_NPY_H
