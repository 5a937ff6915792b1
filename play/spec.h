#pragma once
// Player specs: "KIND" or "KIND:key=value,key=value".

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace loa {

class ParamVisitor;

// A parsed spec. Read and the getters parse with the one parameter reader
// (core/param_visitor.h), range-check and throw ParseError naming the spec and the
// key; CheckKeys rejects keys that neither they nor its list declared.
class PlayerSpec {
 public:
  // Parses "kind:key=value,..."; throws ParseError on a malformed pair.
  static PlayerSpec Parse(const std::string& text);

  const std::string& kind() const { return kind_; }
  const std::string& text() const { return text_; }
  bool Has(const std::string& key) const { return options_.count(key) != 0; }

  // Reads the fields a Visit-style function declares (core/param_visitor.h) from
  // the spec's keys of the same names.
  void Read(const std::function<void(ParamVisitor&)>& visit) const;

  // Throws ParseError naming the first key that no getter or Read declared
  // and that is not in `known`.
  void CheckKeys(std::initializer_list<const char*> known = {}) const;

  // Read, then CheckKeys: the spec holds exactly the keys `visit` declares
  // (what every player kind's factory does with its key struct).
  void ReadExactly(const std::function<void(ParamVisitor&)>& visit) const {
    Read(visit);
    CheckKeys();
  }

  // Returns the spec's text without the pairs of `keys`, and with `add` (a
  // "key=value" pair, or "" for none) after the others but before a `cmd`
  // pair, whose value runs to the end: "mcts:net=x,time=1" without {time}
  // plus "playouts=9" is "mcts:net=x,playouts=9".
  std::string TextWith(const std::set<std::string>& without, const std::string& add = "") const;

  // Returns the spec without the pairs of `without`, and with key=value
  // (key "" for none) after the others but before a `cmd` pair: the
  // parsed spec TextWith's text would parse to, built without parsing.
  PlayerSpec With(const std::set<std::string>& without, const std::string& key = "",
                  const std::string& value = "") const;

  // Returns the spec's text with each value replaced by map(key, value), in
  // the text's order, a `cmd` pair last and whole.
  std::string TextMapped(const std::function<std::string(const std::string&, const std::string&)>& map) const;

  std::string GetString(const std::string& key, const std::string& fallback) const;
  int64_t GetInt(const std::string& key, int64_t fallback, int64_t min, int64_t max) const;

 private:
  [[noreturn]] void Fail(const std::string& why) const;
  // The text of the pairs not in `without`, each value mapped, `add` after
  // them and `cmd` last.
  std::string Compose(const std::set<std::string>& without, const std::string& add,
                      const std::function<std::string(const std::string&, const std::string&)>& map) const;

  std::string text_, kind_;
  std::map<std::string, std::string> options_;
  std::vector<std::string> order_;  // the keys as the text gives them
  mutable std::set<std::string> declared_;
};

}  // namespace loa
