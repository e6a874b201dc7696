//===- Npy.cpp - NumPy .npy arrays ---------------------------------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Runner/Npy.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

using namespace tide::runner;

// ui16 comes before bf16: a '<u2' file is read as ui16, and a bf16
// argument also takes it (bf16 travels as uint16 bits; see acceptsArray).
static const DTypeInfo kDTypes[] = {
    {"i1", "|b1", 1},   {"i8", "|i1", 1},   {"i16", "<i2", 2},
    {"i32", "<i4", 4},  {"i64", "<i8", 8},  {"ui8", "|u1", 1},
    {"ui16", "<u2", 2}, {"ui32", "<u4", 4}, {"ui64", "<u8", 8},
    {"f16", "<f2", 2},  {"bf16", "<u2", 2}, {"f32", "<f4", 4},
    {"f64", "<f8", 8},
};

bool tide::runner::isUnsignedDType(const DTypeInfo *dtype) {
  return dtype && dtype->name[0] == 'u';
}

bool tide::runner::acceptsArray(const DTypeInfo *expected,
                                const DTypeInfo *given) {
  return expected == given ||
         (expected == findDType("bf16") && given == findDType("ui16"));
}

const DTypeInfo *tide::runner::findDType(const std::string &name) {
  for (const DTypeInfo &d : kDTypes)
    if (name == d.name)
      return &d;
  return nullptr;
}

static const DTypeInfo *fromDescr(const std::string &descr) {
  std::string d = descr;
  if (d == "V2" || d == "|V2")
    return findDType("bf16");
  if (d == "<b1" || d == "b1" || d == "?")
    d = "|b1";
  if (d == "<i1" || d == "i1")
    d = "|i1";
  if (d == "<u1" || d == "u1")
    d = "|u1";
  for (const DTypeInfo &info : kDTypes)
    if (d == info.descr)
      return &info;
  return nullptr;
}

int64_t Array::numElements() const {
  // (Saturating: shapes whose count overflows are refused where they are
  // made; a count past int64 is never a buffer.)
  int64_t n = 1;
  for (int64_t d : shape)
    if (__builtin_mul_overflow(n, d, &n))
      return std::numeric_limits<int64_t>::max();
  return n;
}

static float halfToFloat(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f,
           mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else { // subnormal
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while (!(mant & 0x400));
      bits = sign | ((127 - 15 - e) << 23) | ((mant & 0x3ff) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

static uint16_t floatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  int32_t exp = ((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffffu;
  if (((x >> 23) & 0xff) == 0xff)
    return sign | 0x7c00u | (mant ? 0x200u : 0);
  if (exp >= 31)
    return sign | 0x7c00u;
  if (exp <= 0) {
    if (exp < -10)
      return sign;
    mant |= 0x800000u;
    uint32_t shift = 14 - exp;
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1)))
      ++half;
    return sign | half;
  }
  uint32_t half = sign | (exp << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (half & 1)))
    ++half;
  return half;
}

double Array::get(int64_t i) const {
  const unsigned char *p = data.data() + i * dtype->bytes;
  std::string n = dtype->name;
  if (n == "f32") {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  if (n == "f64") {
    double v;
    std::memcpy(&v, p, 8);
    return v;
  }
  if (n == "f16" || n == "bf16") {
    uint16_t h;
    std::memcpy(&h, p, 2);
    if (n == "f16")
      return halfToFloat(h);
    uint32_t bits = uint32_t(h) << 16;
    float v;
    std::memcpy(&v, &bits, 4);
    return v;
  }
  if (n == "i1")
    return *p ? 1 : 0;
  if (isUnsignedDType(dtype))
    return static_cast<double>(getUnsigned(i));
  if (n == "i8")
    return static_cast<int8_t>(*p);
  if (n == "i16") {
    int16_t v;
    std::memcpy(&v, p, 2);
    return v;
  }
  if (n == "i32") {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  int64_t v;
  std::memcpy(&v, p, 8);
  return static_cast<double>(v);
}

void Array::set(int64_t i, double value) {
  unsigned char *p = data.data() + i * dtype->bytes;
  std::string n = dtype->name;
  if (n == "f32") {
    float v = static_cast<float>(value);
    std::memcpy(p, &v, 4);
  } else if (n == "f64") {
    std::memcpy(p, &value, 8);
  } else if (n == "f16") {
    uint16_t h = floatToHalf(static_cast<float>(value));
    std::memcpy(p, &h, 2);
  } else if (n == "bf16") {
    float f = static_cast<float>(value);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    bits += 0x7fff + ((bits >> 16) & 1); // round to nearest even
    uint16_t h = bits >> 16;
    std::memcpy(p, &h, 2);
  } else if (n == "i1") {
    *p = value != 0;
  } else if (isUnsignedDType(dtype)) {
    // Through a 64-bit integer, wrapping like a C cast of a signed value.
    uint64_t v = value < 0 ? static_cast<uint64_t>(static_cast<int64_t>(value))
                           : static_cast<uint64_t>(value);
    std::memcpy(p, &v, dtype->bytes); // little-endian: the low bytes
  } else if (n == "i8") {
    *p = static_cast<unsigned char>(static_cast<int8_t>(value));
  } else if (n == "i16") {
    int16_t v = static_cast<int16_t>(value);
    std::memcpy(p, &v, 2);
  } else if (n == "i32") {
    int32_t v = static_cast<int32_t>(value);
    std::memcpy(p, &v, 4);
  } else {
    int64_t v = static_cast<int64_t>(value);
    std::memcpy(p, &v, 8);
  }
}

int64_t Array::getSigned(int64_t i) const {
  uint64_t v = getUnsigned(i);
  unsigned bits = 8 * dtype->bytes;
  if (bits < 64 && (v >> (bits - 1)) & 1)
    v |= ~uint64_t(0) << bits; // sign-extended
  return static_cast<int64_t>(v);
}

uint64_t Array::getUnsigned(int64_t i) const {
  uint64_t v = 0;
  std::memcpy(&v, data.data() + i * dtype->bytes, dtype->bytes);
  return v; // little-endian: the low bytes
}

/// Value of `key` in the header dict ("{'descr': '<f4', ...}").
static bool headerField(const std::string &header, const std::string &key,
                        std::string &value) {
  size_t k = header.find("'" + key + "'");
  if (k == std::string::npos)
    return false;
  size_t colon = header.find(':', k);
  if (colon == std::string::npos)
    return false;
  size_t start = header.find_first_not_of(' ', colon + 1);
  if (start == std::string::npos)
    return false;
  char open = header[start];
  size_t end;
  if (open == '\'')
    end = header.find('\'', start + 1) + 1;
  else if (open == '(')
    end = header.find(')', start) + 1;
  else
    end = header.find_first_of(",}", start);
  if (end == std::string::npos || end == 0)
    return false;
  value = header.substr(start, end - start);
  return true;
}

bool tide::runner::readNpy(const std::string &path, Array &array,
                           std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open '" + path + "'";
    return false;
  }
  char magic[8];
  if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0) {
    error = "'" + path + "' is not a .npy file (bad magic)";
    return false;
  }
  uint32_t headerLen = 0;
  unsigned char lenBytes[4] = {0, 0, 0, 0};
  if (magic[6] == 1) {
    if (!in.read(reinterpret_cast<char *>(lenBytes), 2)) {
      error = "'" + path + "' is truncated (header length)";
      return false;
    }
    headerLen = lenBytes[0] | (lenBytes[1] << 8);
  } else if (magic[6] == 2 || magic[6] == 3) {
    if (!in.read(reinterpret_cast<char *>(lenBytes), 4)) {
      error = "'" + path + "' is truncated (header length)";
      return false;
    }
    headerLen = lenBytes[0] | (lenBytes[1] << 8) | (lenBytes[2] << 16) |
                (uint32_t(lenBytes[3]) << 24);
  } else {
    error = "'" + path + "' has unsupported .npy version " +
            std::to_string(int(magic[6]));
    return false;
  }
  if (headerLen > (1u << 20)) {
    error = "'" + path + "' has an implausible header length";
    return false;
  }
  std::string header(headerLen, '\0');
  if (!in.read(&header[0], headerLen)) {
    error = "'" + path + "' is truncated (header)";
    return false;
  }
  std::string descr, order, shape;
  if (!headerField(header, "descr", descr) ||
      !headerField(header, "fortran_order", order) ||
      !headerField(header, "shape", shape)) {
    error = "'" + path + "' has a malformed header";
    return false;
  }
  auto quoted = [](const std::string &s) {
    return s.size() >= 2 && (s.front() == '\'' || s.front() == '"') &&
           s.back() == s.front();
  };
  if (!quoted(descr) || shape.size() < 2 || shape.front() != '(' ||
      shape.back() != ')') {
    error = "'" + path + "' has a malformed header";
    return false;
  }
  descr = descr.substr(1, descr.size() - 2);
  array.dtype = fromDescr(descr);
  if (!array.dtype) {
    error = "'" + path + "' has dtype '" + descr +
            "', which Tide does not support (bool, int8..int64, "
            "uint8..uint64, float16, float32, float64; bfloat16 as uint16 "
            "bits)";
    return false;
  }
  // Exactly True or False (anything else was read as C order before).
  std::string flag = order.substr(0, order.find_first_of(" ,}"));
  if (flag == "True") {
    error = "'" + path + "' is in Fortran order; save a C-ordered array "
                         "(np.ascontiguousarray)";
    return false;
  }
  if (flag != "False") {
    error = "'" + path + "' has a malformed fortran_order '" + flag + "'";
    return false;
  }
  array.shape.clear();
  std::string dims = shape.substr(1, shape.size() - 2);
  std::stringstream ss(dims);
  std::string item;
  while (std::getline(ss, item, ',')) {
    size_t a = item.find_first_not_of(' ');
    if (a == std::string::npos)
      continue;
    // Decimal digits only, then spaces ("(4 4)", "(4.9,)", "(0x4,)" were
    // read as 4, 4 and 0 before).
    char *end = nullptr;
    errno = 0;
    long long v = std::strtoll(item.c_str() + a, &end, 10);
    bool digitsOnly =
        std::isdigit(static_cast<unsigned char>(item[a])) &&
        item.find_first_not_of(' ', end - item.c_str()) == std::string::npos;
    if (v < 0 || end == item.c_str() + a || !digitsOnly || errno == ERANGE) {
      error = "'" + path + "' has a malformed shape " + shape;
      return false;
    }
    array.shape.push_back(v);
  }
  // The data must be in the file: check the size before allocating it (a
  // shape's product can overflow or ask for more memory than exists).
  std::streampos dataStart = in.tellg();
  in.seekg(0, std::ios::end);
  std::streampos fileEnd = in.tellg();
  in.seekg(dataStart);
  uint64_t available = static_cast<uint64_t>(fileEnd - dataStart);
  uint64_t count = 1;
  bool huge = false;
  bool empty =
      std::find(array.shape.begin(), array.shape.end(), 0) != array.shape.end();
  for (int64_t d : empty ? std::vector<int64_t>{0} : array.shape) {
    if (d != 0 && count > (uint64_t(1) << 62) / static_cast<uint64_t>(d))
      huge = true; // the product overflows
    else
      count *= static_cast<uint64_t>(d);
  }
  if (huge || count > available / array.dtype->bytes) {
    error =
        "'" + path + "' is truncated: expected " +
        (huge ? "more than 2^62" : std::to_string(count * array.dtype->bytes)) +
        " bytes of data";
    return false;
  }
  int64_t bytes = static_cast<int64_t>(count * array.dtype->bytes);
  array.data.assign(bytes, 0);
  if (bytes && !in.read(reinterpret_cast<char *>(array.data.data()), bytes)) {
    error = "'" + path + "' is truncated: expected " + std::to_string(bytes) +
            " bytes of data";
    return false;
  }
  return true;
}

bool tide::runner::writeNpy(const std::string &path, const Array &array,
                            std::string &error) {
  std::ofstream out(path, std::ios::binary);
  if (!out) {
    error = "cannot write '" + path + "'";
    return false;
  }
  std::string shape = "(";
  for (size_t i = 0; i < array.shape.size(); ++i)
    shape += std::to_string(array.shape[i]) + (array.shape.size() == 1 ? "," : (i + 1 < array.shape.size() ? ", " : ""));
  shape += ")";
  std::string header = "{'descr': '" + std::string(array.dtype->descr) +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  uint16_t len = static_cast<uint16_t>(header.size());
  out.write("\x93NUMPY\x01\x00", 8);
  char lenBytes[2] = {static_cast<char>(len & 0xff),
                      static_cast<char>(len >> 8)};
  out.write(lenBytes, 2);
  out.write(header.data(), header.size());
  out.write(reinterpret_cast<const char *>(array.data.data()),
            array.data.size());
  if (!out) {
    error = "failed writing '" + path + "'";
    return false;
  }
  return true;
}
