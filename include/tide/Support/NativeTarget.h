//===- NativeTarget.h - Where this machine's calibration lives --*- C++ -*-===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// The `native` target is the calibration of the machine Tide runs on, written
// by tide-calibrate into the user's cache directory:
//
//   $XDG_CACHE_HOME/tide/native-<host>.json   (XDG_CACHE_HOME absolute)
//   $HOME/.cache/tide/native-<host>.json      (otherwise)
//
// The host name is part of the file name because a home directory is often
// shared by several machines. Plain C++ and POSIX (no LLVM): the target
// loader, which reads the file, and tide-calibrate, which writes it, share
// this one definition.
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_SUPPORT_NATIVETARGET_H
#define TIDE_SUPPORT_NATIVETARGET_H

#include <cstdlib>
#include <string>
#include <unistd.h>

namespace tide {

/// The name `--target=native` goes by.
inline constexpr const char *kNativeTargetName = "native";

/// This machine's host name with every character but [A-Za-z0-9._-] made
/// '_', so that it can be part of a file name; "localhost" when unknown.
inline std::string getHostNameForFiles() {
  char buffer[256] = {0};
  if (gethostname(buffer, sizeof(buffer) - 1) != 0 || !buffer[0])
    return "localhost";
  std::string name(buffer);
  for (char &c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
      c = '_';
  return name;
}

/// Tide's cache directory ($XDG_CACHE_HOME/tide or $HOME/.cache/tide), or
/// empty with `error` set when neither variable gives an absolute path.
inline std::string getCacheDirectory(std::string &error) {
  const char *xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && xdg[0] == '/')
    return std::string(xdg) + "/tide";
  const char *home = std::getenv("HOME");
  if (home && home[0] == '/')
    return std::string(home) + "/.cache/tide";
  error = "no cache directory for the native target: neither XDG_CACHE_HOME "
          "nor HOME is an absolute path";
  return "";
}

/// The file of this machine's native target (which may not exist yet), or
/// empty with `error` set (see getCacheDirectory).
inline std::string getNativeTargetPath(std::string &error) {
  std::string dir = getCacheDirectory(error);
  if (dir.empty())
    return "";
  return dir + "/native-" + getHostNameForFiles() + ".json";
}

} // namespace tide

#endif // TIDE_SUPPORT_NATIVETARGET_H
