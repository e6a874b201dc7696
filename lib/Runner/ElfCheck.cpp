//===- ElfCheck.cpp - Check a shared library before dlopen ---------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Runner/ElfCheck.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace tide::runner;

namespace {

/// Reads `size` bytes at `offset`; false on a short read.
bool readAt(int fd, uint64_t offset, void *buffer, size_t size) {
  auto *out = static_cast<char *>(buffer);
  while (size > 0) {
    ssize_t n = pread(fd, out, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    out += n;
    offset += static_cast<uint64_t>(n);
    size -= static_cast<size_t>(n);
  }
  return true;
}

/// `offset + count * entrySize`, or UINT64_MAX on overflow.
uint64_t tableEnd(uint64_t offset, uint64_t count, uint64_t entrySize) {
  if (entrySize && count > (UINT64_MAX - offset) / entrySize)
    return UINT64_MAX;
  return offset + count * entrySize;
}

std::string truncated(uint64_t fileSize, const std::string &what,
                      uint64_t end) {
  return "the file is truncated or corrupt: it has " +
         std::to_string(fileSize) + " bytes but its " + what +
         (end == UINT64_MAX ? std::string(" lies beyond any file size")
                            : " ends at byte " + std::to_string(end));
}

/// The checks for one ELF class (Elf32_* or Elf64_* types).
template <typename Ehdr, typename Phdr>
bool checkClass(int fd, uint64_t fileSize, std::string &error) {
  Ehdr header;
  if (fileSize < sizeof(Ehdr) || !readAt(fd, 0, &header, sizeof(header))) {
    error = truncated(fileSize, "ELF header", sizeof(Ehdr));
    return false;
  }
  if (header.e_type != ET_DYN) {
    error =
        "not a shared library (ELF type " + std::to_string(header.e_type) + ")";
    return false;
  }
  if (header.e_phnum == 0 || header.e_phentsize != sizeof(Phdr)) {
    error = "the ELF header describes no usable program headers";
    return false;
  }
  uint64_t end = tableEnd(header.e_phoff, header.e_phnum, sizeof(Phdr));
  if (end > fileSize) {
    error = truncated(fileSize, "program header table", end);
    return false;
  }
  // Section headers are not read by the loader, but a file cut short loses
  // them first (they come last): a clear sign of truncation.
  if (header.e_shoff != 0) {
    end = tableEnd(header.e_shoff, header.e_shnum, header.e_shentsize);
    if (end > fileSize) {
      error = truncated(fileSize, "section header table", end);
      return false;
    }
  }
  std::vector<Phdr> segments(header.e_phnum);
  if (!readAt(fd, header.e_phoff, segments.data(),
              segments.size() * sizeof(Phdr))) {
    error = "cannot read the program headers";
    return false;
  }
  for (size_t i = 0; i < segments.size(); ++i) {
    const Phdr &p = segments[i];
    if (p.p_type != PT_LOAD && p.p_type != PT_DYNAMIC)
      continue;
    end = p.p_filesz > UINT64_MAX - p.p_offset ? UINT64_MAX
                                               : p.p_offset + p.p_filesz;
    if (end > fileSize) {
      error = truncated(fileSize, "segment " + std::to_string(i), end);
      return false;
    }
  }
  return true;
}

} // namespace

bool tide::runner::checkElfFile(const std::string &path, std::string &error) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = std::strerror(errno);
    return false;
  }
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{fd};
  struct stat st;
  if (fstat(fd, &st) != 0) {
    error = std::strerror(errno);
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    error = "not a regular file";
    return false;
  }
  auto fileSize = static_cast<uint64_t>(st.st_size);
  unsigned char ident[EI_NIDENT] = {};
  if (fileSize < EI_NIDENT || !readAt(fd, 0, ident, sizeof(ident)) ||
      std::memcmp(ident, ELFMAG, SELFMAG) != 0) {
    error = "not a shared library (no ELF header)";
    return false;
  }
  // Another byte order: the loader refuses it before mapping anything.
  const bool little = [] {
    uint16_t one = 1;
    unsigned char first;
    std::memcpy(&first, &one, 1);
    return first == 1;
  }();
  if (ident[EI_DATA] != (little ? ELFDATA2LSB : ELFDATA2MSB))
    return true;
  if (ident[EI_CLASS] == ELFCLASS64)
    return checkClass<Elf64_Ehdr, Elf64_Phdr>(fd, fileSize, error);
  if (ident[EI_CLASS] == ELFCLASS32)
    return checkClass<Elf32_Ehdr, Elf32_Phdr>(fd, fileSize, error);
  return true;
}

bool tide::runner::importsSymbol(const std::string &path,
                                 const std::string &symbol) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  bool found = false;
  Elf64_Ehdr header;
  struct stat st;
  if (fstat(fd, &st) == 0 && readAt(fd, 0, &header, sizeof(header)) &&
      header.e_ident[EI_CLASS] == ELFCLASS64 &&
      header.e_shentsize == sizeof(Elf64_Shdr)) {
    uint64_t fileSize = static_cast<uint64_t>(st.st_size);
    std::vector<Elf64_Shdr> sections(header.e_shnum);
    if (tableEnd(header.e_shoff, header.e_shnum, sizeof(Elf64_Shdr)) <=
            fileSize &&
        readAt(fd, header.e_shoff, sections.data(),
               sections.size() * sizeof(Elf64_Shdr))) {
      for (const Elf64_Shdr &dynsym : sections) {
        if (dynsym.sh_type != SHT_DYNSYM || dynsym.sh_link >= sections.size())
          continue;
        const Elf64_Shdr &strtab = sections[dynsym.sh_link];
        if (dynsym.sh_offset + dynsym.sh_size > fileSize ||
            strtab.sh_offset + strtab.sh_size > fileSize)
          break;
        std::vector<Elf64_Sym> symbols(dynsym.sh_size / sizeof(Elf64_Sym));
        std::vector<char> names(strtab.sh_size + 1, 0);
        if (!readAt(fd, dynsym.sh_offset, symbols.data(),
                    symbols.size() * sizeof(Elf64_Sym)) ||
            !readAt(fd, strtab.sh_offset, names.data(), strtab.sh_size))
          break;
        for (const Elf64_Sym &s : symbols)
          if (s.st_shndx == SHN_UNDEF && s.st_name < strtab.sh_size &&
              symbol == names.data() + s.st_name) {
            found = true;
            break;
          }
        break;
      }
    }
  }
  close(fd);
  return found;
}
