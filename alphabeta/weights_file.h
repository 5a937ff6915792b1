#pragma once
// The baseline's weights file (docs/FORMATS.md, "Alpha-beta weights"): the
// evaluation's weights and the move categories' probabilities as JSON, as
// `loaz tune-eval` writes them and `ab:weights=FILE` reads them.

#include <string>

#include "alphabeta/move_category.h"
#include "alphabeta/static_eval.h"

namespace loa::ab {

struct Weights {
  EvalWeights eval = EvalWeights::Default();
  CategoryModel categories = CategoryModel::Default();
};

// Reads a weights file: its `eval`, if there, is the whole evaluation (a
// term it lacks weighs 0, scale 1); without `eval` or `categories` it keeps
// the shipped ones, a category key it lacks the shipped value. Throws
// loa::Error naming the file and the key when it cannot be read or a value
// is of the wrong type or out of range.
Weights ReadWeightsFile(const std::string& path);

// Returns the file's text for weights; `fit` (a JSON object, may be "{}")
// records how they were made.
std::string WeightsFileText(const Weights& weights, const std::string& fit_json);

// Returns C++ statements that return weights.eval (with eval true) or
// weights.categories: the bodies of alphabeta/default_*.inc.
std::string WeightsAsCode(const Weights& weights, bool eval);

}  // namespace loa::ab
