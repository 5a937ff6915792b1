#include "alphabeta/weights_file.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "alphabeta/tuning.h"
#include "core/error.h"
#include "core/file_util.h"

namespace loa::ab {
namespace {

constexpr const char* kFormat = "loaz-ab-weights";
constexpr int kFormatVersion = 1;

}  // namespace

Weights ReadWeightsFile(const std::string& path) {
  const std::string text = ReadFile(path);
  Weights w;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw ParseError(path + ": not JSON (" + e.what() + ")");
  }
  const auto fail = [&](const std::string& key, const std::string& why) -> void {
    throw ParseError(path + ": key '" + key + "': " + why);
  };
  if (!j.is_object() || j.value("format", "") != kFormat) fail("format", std::string("expected \"") + kFormat + "\"");
  if (j.value("format_version", 0) != kFormatVersion)
    fail("format_version", "expected " + std::to_string(kFormatVersion));
  if (j.contains("eval")) {
    const nlohmann::json& e = j["eval"];
    if (!e.is_object()) fail("eval", "expected an object");
    // The file holds the whole evaluation: a term it lacks weighs 0 (a file
    // written before a term existed plays as it did), the scale is 1.
    for (const EvalTerm& t : kEvalTerms) w.eval.*t.weight = 0;
    w.eval.late.fill(0);
    w.eval.tapered = false;
    w.eval.scale = 1;
    for (const EvalTerm& t : kEvalTerms) {
      if (!e.contains(t.name)) continue;
      if (!e[t.name].is_number_integer() || std::abs(e[t.name].get<int64_t>()) > 100000)
        fail(std::string("eval.") + t.name, "expected an integer within +-100000");
      w.eval.*t.weight = e[t.name].get<int>();
    }
    if (e.contains("tapered")) {
      if (!e["tapered"].is_boolean()) fail("eval.tapered", "expected true or false");
      w.eval.tapered = e["tapered"].get<bool>();
    }
    if (e.contains("late")) {
      const nlohmann::json& late = e["late"];
      if (!late.is_object()) fail("eval.late", "expected an object");
      int k = 0;
      for (const EvalTerm& t : kEvalTerms) {
        const int index = k++;
        if (!late.contains(t.name)) continue;
        if (!late[t.name].is_number_integer() || std::abs(late[t.name].get<int64_t>()) > 100000)
          fail(std::string("eval.late.") + t.name, "expected an integer within +-100000");
        w.eval.late[index] = late[t.name].get<int>();
      }
    }
    if (e.contains("scale")) {
      if (!e["scale"].is_number_integer() || e["scale"].get<int64_t>() < 1 || e["scale"].get<int64_t>() > 1000000)
        fail("eval.scale", "expected an integer in [1, 1000000]");
      w.eval.scale = e["scale"].get<int>();
    }
  }
  if (j.contains("categories")) {
    const nlohmann::json& c = j["categories"];
    if (!c.is_object()) fail("categories", "expected an object");
    if (c.contains("reference")) {
      if (!c["reference"].is_number() || !(c["reference"].get<double>() > 0 && c["reference"].get<double>() < 1))
        fail("categories.reference", "expected a number in (0, 1)");
      w.categories.reference = c["reference"].get<float>();
    }
    if (c.contains("probability")) {
      const nlohmann::json& p = c["probability"];
      if (!p.is_array() || p.size() != size_t(kNumMoveCategories))
        fail("categories.probability", "expected " + std::to_string(kNumMoveCategories) + " numbers");
      for (int i = 0; i < kNumMoveCategories; ++i) {
        if (!p[i].is_number() || !(p[i].get<double>() > 0 && p[i].get<double>() <= 1))
          fail("categories.probability[" + std::to_string(i) + "]", "expected a number in (0, 1]");
        w.categories.probability[i] = p[i].get<float>();
      }
    }
  }
  return w;
}

std::string WeightsFileText(const Weights& weights, const std::string& fit_json) {
  nlohmann::ordered_json j;
  j["format"] = kFormat;
  j["format_version"] = kFormatVersion;
  for (const EvalTerm& t : kEvalTerms) j["eval"][t.name] = weights.eval.*t.weight;
  j["eval"]["scale"] = weights.eval.scale;
  j["eval"]["tapered"] = weights.eval.tapered;
  if (weights.eval.tapered) {
    int k = 0;
    for (const EvalTerm& t : kEvalTerms) j["eval"]["late"][t.name] = weights.eval.late[k++];
  }
  j["categories"]["reference"] = weights.categories.reference;
  j["categories"]["probability"] = weights.categories.probability;
  j["fit"] = nlohmann::ordered_json::parse(fit_json.empty() ? "{}" : fit_json);
  return j.dump(1) + "\n";
}

std::string WeightsAsCode(const Weights& weights, bool eval) {
  std::string code = "// Written by `loaz tune-eval` (docs/BASELINE.md).\n";
  char line[96];
  if (eval) {
    code += "EvalWeights w;\n";
    for (const EvalTerm& t : kEvalTerms) {
      std::snprintf(line, sizeof(line), "w.%s = %d;\n", t.name, weights.eval.*t.weight);
      code += line;
    }
    std::snprintf(line, sizeof(line), "w.scale = %d;\nw.tapered = %s;\nw.late = {", weights.eval.scale,
                  weights.eval.tapered ? "true" : "false");
    code += line;
    for (int k = 0; k < kNumEvalTerms; ++k) code += (k ? ", " : "") + std::to_string(weights.eval.late[k]);
    return code + "};\nreturn w;\n";
  }
  std::snprintf(line, sizeof(line), "CategoryModel m;\nm.reference = %.6gf;\nm.probability = {",
                weights.categories.reference);
  code += line;
  for (int i = 0; i < kNumMoveCategories; ++i) {
    std::snprintf(line, sizeof(line), "%s%.6gf",
                  i == 0  ? "\n    "
                  : i % 8 ? ", "
                          : ",\n    ",
                  weights.categories.probability[i]);
    code += line;
  }
  return code + "};\nreturn m;\n";
}

}  // namespace loa::ab
