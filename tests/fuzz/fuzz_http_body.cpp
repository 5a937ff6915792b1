// libFuzzer target: the JSON body of a request to the page's API, read as
// /api/position, /api/record/read and /api/record/write read it
// (serve/request.h). The server answers BadRequest and loa::Error with 400;
// anything else escaping is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include <httplib.h>

#include "core/error.h"
#include "serve/request.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  httplib::Request request;
  request.body.assign(reinterpret_cast<const char*>(data), size);
  using namespace loa::serve;
  try {
    const json body = ParseBody(request);
    RulesOf(body);
    StringField(body, "client");
    JsonText(StatusOf(GameOf(body)));
  } catch (const BadRequest&) {
  } catch (const loa::Error&) {
  }
  return 0;
}
