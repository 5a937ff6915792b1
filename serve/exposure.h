#pragma once
// Who may talk to `loaz serve` (docs/SERVE.md, Exposure): the names a
// request's Host may carry, so that a page of another site cannot reach the
// server through DNS rebinding, and the token that a server reachable from
// other machines asks of every request, as Jupyter does.

#include <string>
#include <vector>

#include "serve/serve_options.h"

namespace httplib {
struct Request;
}

namespace loa::serve {

// Returns whether an address to listen on reaches this machine alone:
// localhost, ::1 or any address of 127.0.0.0/8.
bool IsLoopbackAddress(const std::string& host);

class Exposure {
 public:
  // The Host names of the address the options bind (on a loopback address
  // the loopback's names; on another the machine's name, each of its
  // interfaces' addresses and the address itself) and those the options
  // allow; the options' token, or on a non-loopback address one generated.
  explicit Exposure(const ServeOptions& options);

  // Returns "" for a request that may be answered, else why it is refused:
  // a Host that names none of the allowed names at this port, or, with a
  // token, a request that carries it in none of ?token=, the header
  // `Authorization: token T` (or Bearer) and the cookie loaz_token.
  std::string Refusal(const httplib::Request& request, int port) const;

  // Returns whether the request carries the token in its query (the URL the
  // server printed), so that the reply sets the cookie for the page's own
  // requests after it.
  bool TokenInQuery(const httplib::Request& request) const;

  const std::string& token() const { return token_; }  // "": none asked
  bool loopback() const { return loopback_; }
  const std::vector<std::string>& names() const { return names_; }

 private:
  bool HostAllowed(const std::string& host, int port) const;
  bool CarriesToken(const httplib::Request& request) const;

  bool loopback_ = true;
  std::string token_;
  std::vector<std::string> names_;
};

}  // namespace loa::serve
