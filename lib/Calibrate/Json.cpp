//===- Json.cpp - A small JSON reader -------------------------------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "Json.h"

#include <cstdlib>
#include <cstring>

using namespace tide::calibrate::json;

const Value *Value::get(const std::string &key) const {
  if (kind != Object)
    return nullptr;
  for (const auto &[name, value] : object)
    if (name == key)
      return &value;
  return nullptr;
}

namespace {

/// A recursive-descent reader over the text; depth is bounded.
struct Reader {
  const std::string &text;
  size_t pos = 0;
  std::string error;

  bool fail(const std::string &what) {
    if (error.empty())
      error = what + " at byte " + std::to_string(pos);
    return false;
  }

  void skipSpace() {
    while (pos < text.size() && std::strchr(" \t\r\n", text[pos]))
      ++pos;
  }

  bool literal(const char *word) {
    size_t n = std::strlen(word);
    if (text.compare(pos, n, word) != 0)
      return fail("invalid value");
    pos += n;
    return true;
  }

  bool readString(std::string &out) {
    if (pos >= text.size() || text[pos] != '"')
      return fail("expected a string");
    ++pos;
    while (pos < text.size() && text[pos] != '"') {
      char c = text[pos++];
      if (static_cast<unsigned char>(c) < 0x20)
        return fail("control character in a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos >= text.size())
        break;
      char e = text[pos++];
      switch (e) {
      case '"':
      case '\\':
      case '/':
        out += e;
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        if (pos + 4 > text.size())
          return fail("short \\u escape");
        unsigned code = 0;
        for (int i = 0; i < 4; ++i) {
          char h = text[pos++];
          code = code * 16 + (h >= '0' && h <= '9'   ? h - '0'
                              : h >= 'a' && h <= 'f' ? h - 'a' + 10
                              : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                                     : 16);
          if (code >= 0x10000)
            return fail("bad \\u escape");
        }
        out += code < 0x80 ? static_cast<char>(code) : '?';
        break;
      }
      default:
        return fail("bad escape");
      }
    }
    if (pos >= text.size())
      return fail("unterminated string");
    ++pos;
    return true;
  }

  bool readValue(Value &value, int depth) {
    if (depth > 64)
      return fail("nesting too deep");
    skipSpace();
    if (pos >= text.size())
      return fail("expected a value");
    char c = text[pos];
    if (c == '{') {
      value.kind = Value::Object;
      ++pos;
      skipSpace();
      if (pos < text.size() && text[pos] == '}') {
        ++pos;
        return true;
      }
      for (;;) {
        skipSpace();
        std::string key;
        if (!readString(key))
          return false;
        skipSpace();
        if (pos >= text.size() || text[pos] != ':')
          return fail("expected ':'");
        ++pos;
        value.object.emplace_back(std::move(key), Value());
        if (!readValue(value.object.back().second, depth + 1))
          return false;
        skipSpace();
        if (pos < text.size() && text[pos] == ',') {
          ++pos;
          continue;
        }
        if (pos < text.size() && text[pos] == '}') {
          ++pos;
          return true;
        }
        return fail("expected ',' or '}'");
      }
    }
    if (c == '[') {
      value.kind = Value::Array;
      ++pos;
      skipSpace();
      if (pos < text.size() && text[pos] == ']') {
        ++pos;
        return true;
      }
      for (;;) {
        value.array.emplace_back();
        if (!readValue(value.array.back(), depth + 1))
          return false;
        skipSpace();
        if (pos < text.size() && text[pos] == ',') {
          ++pos;
          continue;
        }
        if (pos < text.size() && text[pos] == ']') {
          ++pos;
          return true;
        }
        return fail("expected ',' or ']'");
      }
    }
    if (c == '"') {
      value.kind = Value::String;
      return readString(value.string);
    }
    if (c == 't' || c == 'f') {
      value.kind = Value::Bool;
      value.boolean = c == 't';
      return literal(c == 't' ? "true" : "false");
    }
    if (c == 'n')
      return literal("null");
    if (c == '-' || (c >= '0' && c <= '9')) {
      const char *start = text.c_str() + pos;
      char *end = nullptr;
      value.kind = Value::Number;
      value.number = std::strtod(start, &end);
      if (end == start)
        return fail("invalid number");
      pos += static_cast<size_t>(end - start);
      return true;
    }
    return fail("invalid value");
  }
};

} // namespace

bool tide::calibrate::json::parse(const std::string &text, Value &value,
                                  std::string &error) {
  Reader reader{text, 0, ""};
  value = Value();
  if (!reader.readValue(value, 0)) {
    error = reader.error;
    return false;
  }
  reader.skipSpace();
  if (reader.pos != text.size()) {
    reader.fail("text after the value");
    error = reader.error;
    return false;
  }
  return true;
}
