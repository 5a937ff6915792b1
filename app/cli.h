#pragma once
// Command-line parsing for every subcommand, with one behaviour: --help
// prints the help and exits 0; a usage error prints one line
// `loaz CMD: error: ...` and exits 2 (docs/RUNS.md, "Exit codes and errors").
// With LOAZ_PARSE_ONLY=1 in the environment a command that parses exits 0
// there, doing nothing: how tests/app/doc_commands_test.sh checks that
// every command the docs show is one that loaz takes.

#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/error.h"

namespace loa::app {

// Parses argv into cli; returns -1 to go on, else the exit code to return.
inline int ParseCommandLine(CLI::App& cli, int argc, char** argv) {
  try {
    cli.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::fputs(cli.help().c_str(), stdout);
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    std::fputs(cli.help("", CLI::AppFormatMode::All).c_str(), stdout);
    return 0;
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "%s: error: %s (see --help)\n", argv[0], Excerpt(e.what(), 200).c_str());
    return 2;
  }
  const char* parse_only = std::getenv("LOAZ_PARSE_ONLY");
  return parse_only && std::strcmp(parse_only, "1") == 0 ? 0 : -1;
}

}  // namespace loa::app

// Parses the command line of a subcommand, returning from it on --help or a
// usage error.
#define LOAZ_PARSE(cli, argc, argv) \
  if (const int loaz_exit = ::loa::app::ParseCommandLine(cli, argc, argv); loaz_exit >= 0) return loaz_exit
