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
/// True for ui8, ui16, ui32 and ui64.
bool isUnsignedDType(const DTypeInfo *dtype);
/// Whether an argument of type `expected` takes an array of type `given`:
/// the same type, or uint16 bits for bf16.
bool acceptsArray(const DTypeInfo *expected, const DTypeInfo *given);

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
  /// Element `i` of an unsigned array, exactly (a double holds 53 bits).
  uint64_t getUnsigned(int64_t i) const;
  /// Element `i` of a signed integer array, exactly (get() goes through a
  /// double, which holds int64 values exactly only up to 2^53).
  int64_t getSigned(int64_t i) const;
};

/// Reads a .npy file (format 1.0-3.0, little-endian, C order). '<u2' is read
/// as ui16 (which a bf16 argument also accepts: NumPy has no bfloat16, so
/// bf16 travels as the bits in uint16), '|V2' as bf16. Returns
/// false and sets `error` on any problem.
bool readNpy(const std::string &path, Array &array, std::string &error);

/// Writes a .npy file (bf16 as '<u2' bits).
bool writeNpy(const std::string &path, const Array &array, std::string &error);

} // namespace tide::runner

#endif // TIDE_RUNNER_NPY_H
