// Whole-file reads and writes with one-line error messages that name the file.
#ifndef OFLOW_CLI_FILE_UTIL_HPP
#define OFLOW_CLI_FILE_UTIL_HPP

#include <cstddef>
#include <string>
#include <vector>

namespace cli {

/// Reads all of path into *out. On failure returns false and sets *err to "PATH: why".
bool read_file(const std::string& path, std::vector<unsigned char>* out, std::string* err);

/// Creates or truncates path and writes size bytes. Checks the close, so a full disk is an
/// error. On failure returns false and sets *err to "PATH: why".
bool write_file(const std::string& path, const void* data, std::size_t size, std::string* err);

/// "PATH: " + errno's text.
std::string errno_message(const std::string& path, const char* what);

} // namespace cli

#endif
