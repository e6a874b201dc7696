//===- EnumOptionParser.h - Enum options that list their choices -*- C++
//-*-===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// Tide's enum-like options (pass options, pipeline options, tool flags) are
// typed: `llvm::cl::values(...)` lists the choices and the option holds the
// enum. LLVM's default parser answers a bad value with "Cannot find option
// named 'x'!"; this one says which option, the bad value and every choice, in
// one line, before any IR is read:
//
//   error: invalid 'policy' option 'fast'; expected soft, strict, require-gpu
//   or cost
//
// `TIDE_ENUM_OPTION_PARSER(T)` makes it the parser of every option of enum
// type T (an explicit specialization of llvm::cl::parser<T>, so MLIR's pass
// options, which pick llvm::cl::parser<T>, use it too).
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_SUPPORT_ENUMOPTIONPARSER_H
#define TIDE_SUPPORT_ENUMOPTIONPARSER_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/WithColor.h"

#include <string>

namespace mlir::tide {

/// While one exists on a thread, bad enum option values on that thread are
/// reported into it instead of to stderr (for the C API, which hands errors
/// to its caller).
class OptionErrorCapture {
public:
  OptionErrorCapture() : previous(current()) { current() = &text; }
  ~OptionErrorCapture() { current() = previous; }
  OptionErrorCapture(const OptionErrorCapture &) = delete;
  OptionErrorCapture &operator=(const OptionErrorCapture &) = delete;

  /// What was reported, one message per line.
  const std::string &str() const { return text; }

  /// The capture active on this thread, or null.
  static std::string *&current() {
    static thread_local std::string *active = nullptr;
    return active;
  }

private:
  std::string text;
  std::string *previous;
};

/// llvm::cl::parser<DataType>'s interface for an enum, with a bad-value
/// message that lists the choices.
template <typename DataType>
class EnumOptionParser : public llvm::cl::generic_parser_base {
protected:
  class OptionInfo : public GenericOptionInfo {
  public:
    OptionInfo(llvm::StringRef name, DataType v, llvm::StringRef helpStr)
        : GenericOptionInfo(name, helpStr), V(v) {}
    llvm::cl::OptionValue<DataType> V;
  };
  llvm::SmallVector<OptionInfo, 8> Values;

public:
  EnumOptionParser(llvm::cl::Option &option) : generic_parser_base(option) {}

  using parser_data_type = DataType;

  unsigned getNumOptions() const override { return unsigned(Values.size()); }
  llvm::StringRef getOption(unsigned n) const override {
    return Values[n].Name;
  }
  llvm::StringRef getDescription(unsigned n) const override {
    return Values[n].HelpStr;
  }
  const llvm::cl::GenericOptionValue &
  getOptionValue(unsigned n) const override {
    return Values[n].V;
  }

  /// Returns true on error (after reporting it through `option.error`).
  bool parse(llvm::cl::Option &option, llvm::StringRef argName,
             llvm::StringRef arg, DataType &value) {
    llvm::StringRef argValue = Owner.hasArgStr() ? arg : argName;
    for (const OptionInfo &info : Values)
      if (info.Name == argValue) {
        value = info.V.getValue();
        return false;
      }
    std::string choices;
    for (size_t i = 0, e = Values.size(); i != e; ++i) {
      if (i)
        choices += i + 1 == e ? " or " : ", ";
      choices += Values[i].Name.str();
    }
    std::string message = ("invalid '" + option.ArgStr + "' option '" +
                           argValue + "'; expected " + choices)
                              .str();
    if (std::string *capture = OptionErrorCapture::current())
      *capture += message + "\n";
    else
      llvm::WithColor::error() << message << "\n";
    return true;
  }

  template <class DT>
  void addLiteralOption(llvm::StringRef name, const DT &value,
                        llvm::StringRef helpStr) {
    Values.push_back(OptionInfo(name, static_cast<DataType>(value), helpStr));
    llvm::cl::AddLiteralOption(Owner, name);
  }

  void removeLiteralOption(llvm::StringRef name) {
    unsigned n = findOption(name);
    Values.erase(Values.begin() + n);
  }
};

} // namespace mlir::tide

/// Makes EnumOptionParser the parser of every option of enum type `T` (a
/// fully qualified name). Use at global scope, in the header that declares T.
#define TIDE_ENUM_OPTION_PARSER(T)                                             \
  namespace llvm::cl {                                                         \
  template <>                                                                  \
  class parser<T> : public ::mlir::tide::EnumOptionParser<T> {                 \
  public:                                                                      \
    using ::mlir::tide::EnumOptionParser<T>::EnumOptionParser;                 \
  };                                                                           \
  }

#endif // TIDE_SUPPORT_ENUMOPTIONPARSER_H
