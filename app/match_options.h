#pragma once
// The options that `loaz match` and `loaz tournament` share (cmd_match.cpp).

#include <CLI/CLI.hpp>

#include <string>

#include "play/match.h"

namespace loa::app {

// Adds --openings --threads --seed --max-plies --rules --out to cli, and
// --sprt when sprt is given.
void AddMatchOptions(CLI::App& cli, MatchConfig& config, std::string& rules, std::string* sprt);

// Applies the --rules text over config.rules, keeping its move cap unless the text sets one.
void ApplyRules(MatchConfig& config, const std::string& rules);

// Prints progress on standard error: one line rewritten in place on a
// terminal, a line per game otherwise.
void ReportProgress(const std::string& prefix, const MatchProgress& progress);

}  // namespace loa::app
