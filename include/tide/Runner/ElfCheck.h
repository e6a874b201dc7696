//===- ElfCheck.h - Check a shared library before dlopen --------*- C++ -*-===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// dlopen maps a library's segments as its program headers describe them; a
// truncated file (an interrupted copy, `head -c`) maps pages past its end,
// and touching them raises SIGBUS inside the loader. These checks read the
// ELF headers first so that such a file is refused with a message.
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_RUNNER_ELFCHECK_H
#define TIDE_RUNNER_ELFCHECK_H

#include <string>

namespace tide::runner {

/// Checks that `path` is an ELF file whose header, program headers, section
/// headers and loadable segments lie within the file. Returns false with a
/// one-line reason in `error` (not naming the file) otherwise. Files of
/// another ELF class or byte order pass: dlopen refuses them with a message.
bool checkElfFile(const std::string &path, std::string &error);

/// Whether the 64-bit ELF file `path` (already checked) imports `symbol`: an
/// undefined entry of its dynamic symbol table. False for anything else.
bool importsSymbol(const std::string &path, const std::string &symbol);

} // namespace tide::runner

#endif // TIDE_RUNNER_ELFCHECK_H
