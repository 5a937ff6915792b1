#pragma once
// The one exception hierarchy for bad input: caught in main, printed as one line.

#include <stdexcept>
#include <string>
#include <string_view>

namespace loa {

// Bad input from a user, a file or another program; what() is a complete,
// self-contained message naming the offending file, key, move or position.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Text that cannot be read: a position string, a move, a record, a config.
class ParseError : public Error {
 public:
  using Error::Error;
};

// A command line that asks for something impossible, e.g. two inputs where
// one is needed: exit code 2, as for any usage error.
class UsageError : public Error {
 public:
  using Error::Error;
};

// A file that cannot be opened, read or written.
class IoError : public Error {
 public:
  using Error::Error;
};

// Returns text for quoting in a message: whole up to `max` characters, else
// its first `max` characters and "...", so that a huge input never makes a
// huge message; control characters (a NUL would end the message) as \xNN.
inline std::string Excerpt(std::string_view text, std::size_t max = 100) {
  std::string out;
  for (std::size_t i = 0; i < text.size() && i < max; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c != 0x7f) {
      out += char(c);
      continue;
    }
    static constexpr char kHex[] = "0123456789abcdef";
    out += "\\x";
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  if (text.size() > max) out += "...";
  return out;
}

}  // namespace loa
