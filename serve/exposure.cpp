#include "serve/exposure.h"

#include <arpa/inet.h>
#include <httplib.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <random>

#include "core/error.h"

namespace loa::serve {
namespace {

// The names a Host header gives this machine's loopback.
const std::vector<std::string> kLoopbackNames = {"127.0.0.1", "localhost", "[::1]"};

// A fresh token: 48 hex digits from the system's random device.
std::string NewToken() {
  std::random_device device;
  std::string token;
  const char* digits = "0123456789abcdef";
  for (int i = 0; i < 48; ++i) token += digits[device() % 16];
  return token;
}

std::string Lower(std::string text) {
  for (char& ch : text) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return text;
}

// The addresses of this machine's interfaces, IPv6 in brackets as a Host writes it.
std::vector<std::string> InterfaceAddresses() {
  std::vector<std::string> addresses;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return addresses;
  for (ifaddrs* a = list; a; a = a->ifa_next) {
    if (!a->ifa_addr) continue;
    char text[INET6_ADDRSTRLEN] = {};
    if (a->ifa_addr->sa_family == AF_INET &&
        inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr, text, sizeof text))
      addresses.push_back(text);
    if (a->ifa_addr->sa_family == AF_INET6 &&
        inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(a->ifa_addr)->sin6_addr, text, sizeof text))
      addresses.push_back("[" + std::string(text) + "]");
  }
  freeifaddrs(list);
  return addresses;
}

// Compares two strings in a time that does not depend on where they differ.
bool SameSecret(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace

bool IsLoopbackAddress(const std::string& host) {
  if (Lower(host) == "localhost" || host == "::1" || host == "[::1]") return true;
  in_addr address{};
  return inet_pton(AF_INET, host.c_str(), &address) == 1 && (ntohl(address.s_addr) >> 24) == 127;
}

Exposure::Exposure(const ServeOptions& options) : loopback_(IsLoopbackAddress(options.host)), token_(options.token) {
  names_ = kLoopbackNames;
  if (loopback_) {
    names_.push_back(options.host);
  } else {
    if (token_.empty()) token_ = NewToken();
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) == 0 && name[0]) names_.push_back(name);
    for (const std::string& address : InterfaceAddresses()) names_.push_back(address);
    if (options.host != "0.0.0.0" && options.host != "::")
      names_.push_back(options.host.find(':') != std::string::npos && options.host[0] != '[' ? "[" + options.host + "]"
                                                                                             : options.host);
  }
  for (const std::string& allowed : options.allowed_hosts) {
    if (allowed.empty() || allowed.find_first_of(" /:\t") != std::string::npos)
      throw Error("--allow-host '" + Excerpt(allowed, 60) + "': expected a host name or an address, without a port");
    names_.push_back(allowed);
  }
  for (std::string& n : names_) n = Lower(n);
  std::sort(names_.begin(), names_.end());
  names_.erase(std::unique(names_.begin(), names_.end()), names_.end());
}

bool Exposure::HostAllowed(const std::string& host, int port) const {
  std::string name = Lower(host);
  const std::string suffix = ":" + std::to_string(port);
  if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
    name.resize(name.size() - suffix.size());
  else if (port != 80)  // a browser leaves the port out only where it is 80
    return false;
  return std::binary_search(names_.begin(), names_.end(), name);
}

bool Exposure::TokenInQuery(const httplib::Request& request) const {
  return !token_.empty() && request.has_param("token") && SameSecret(request.get_param_value("token"), token_);
}

bool Exposure::CarriesToken(const httplib::Request& request) const {
  if (TokenInQuery(request)) return true;
  const std::string authorization = request.get_header_value("Authorization");
  for (const char* scheme : {"token ", "Bearer "}) {
    const std::string prefix = scheme;
    if (authorization.rfind(prefix, 0) == 0 && SameSecret(authorization.substr(prefix.size()), token_)) return true;
  }
  const std::string cookies = "; " + request.get_header_value("Cookie");
  const size_t at = cookies.find("; loaz_token=");
  if (at == std::string::npos) return false;
  const size_t begin = at + 13, end = cookies.find(';', begin);
  return SameSecret(cookies.substr(begin, end == std::string::npos ? std::string::npos : end - begin), token_);
}

std::string Exposure::Refusal(const httplib::Request& request, int port) const {
  const std::string host = request.get_header_value("Host");
  if (!HostAllowed(host, port)) return "Host '" + Excerpt(host, 60) + "' is not this server's address";
  if (!token_.empty() && !CarriesToken(request))
    return "this server asks for its token: open the URL it printed (http://HOST:PORT/?token=...), or send "
           "'Authorization: token TOKEN'";
  const std::string origin = request.get_header_value("Origin");
  if (request.method == "POST" && !origin.empty() && Lower(origin) != "http://" + Lower(host))
    return "a request from the page of another origin ('" + Excerpt(origin, 60) + "') is refused";
  return "";
}

}  // namespace loa::serve
