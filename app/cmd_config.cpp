// loaz config: every key of a training config and every option of the
// player specs that take parameters, from their one declaration
// (core/param_visitor.h): type, range, default and help; for the config, whether a
// resumed run may change it.

#include "app/cli.h"

#include <cstdio>

#include "app/command.h"
#include "core/param_visitor.h"
#include "mcts/search_params.h"
#include "net/net_evaluator.h"
#include "play/mcts_player.h"
#include "play/players.h"
#include "run/config.h"

namespace loa::app {
namespace {

void PrintParam(const std::string& key, const ParamInfo& p, const char* note) {
  std::printf("  %-36s %-7s %-26s %-14s %s%s\n", key.c_str(), p.type.c_str(), p.range.c_str(), p.default_value.c_str(),
              p.help.c_str(), note);
}

void PrintConfig() {
  std::printf("Training config (YAML sections; --set section.key=value); * = fixed once a run exists\n");
  std::printf("  %-36s %-7s %-26s %-14s %s\n", "key", "type", "range", "default", "help");
  for (const run::ConfigSection& section : run::DescribeConfig()) {
    for (const ParamInfo& p : section.params)
      PrintParam(section.name + "." + p.key, p, run::ResumeMayChange(section.name, p.key) ? "" : " *");
  }
}

// Every player kind, each with exactly the keys its spec accepts.
void PrintPlayers() {
  for (const PlayerKind& kind : DescribePlayerKinds()) {
    std::printf("\nPlayer %s:KEY=VALUE,... : %s\n", kind.kind.c_str(), kind.usage.c_str());
    for (const ParamInfo& p : kind.keys) PrintParam(p.key, p, "");
  }
}

}  // namespace

int RunConfig(int argc, char** argv) {
  CLI::App cli{"List every training-config key and every player kind's options: type, range, default, help.", argv[0]};
  LOAZ_PARSE(cli, argc, argv);
  PrintConfig();
  PrintPlayers();
  return 0;
}

}  // namespace loa::app
