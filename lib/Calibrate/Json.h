//===- Json.h - A small JSON reader -----------------------------*- C++ -*-===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// Enough JSON for what lib/Calibrate reads (the kernel table tide-opt prints,
// target files): lib/Calibrate links no LLVM, whose JSON parser the compiler
// uses. Strict RFC 8259 syntax; \u escapes outside ASCII become '?'.
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_LIB_CALIBRATE_JSON_H
#define TIDE_LIB_CALIBRATE_JSON_H

#include <string>
#include <utility>
#include <vector>

namespace tide::calibrate::json {

struct Value {
  enum Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Null;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Value> array;
  std::vector<std::pair<std::string, Value>> object;

  /// The member `key` of an object, or null.
  const Value *get(const std::string &key) const;
};

/// Parses `text` into `value`; false with `error` (naming the byte offset)
/// when it is not one JSON value.
bool parse(const std::string &text, Value &value, std::string &error);

} // namespace tide::calibrate::json

#endif // TIDE_LIB_CALIBRATE_JSON_H
