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
// huge message.
inline std::string Excerpt(std::string_view text, std::size_t max = 100) {
  if (text.size() <= max) return std::string(text);
  return std::string(text.substr(0, max)) + "...";
}

}  // namespace loa
