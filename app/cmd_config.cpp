// loaz config: every key of a training config and every option of the
// player specs that take parameters, from their one declaration
// (core/param_visitor.h): type, range, default and help; for the config, whether a
// resumed run may change it; and the evaluator backends' table.

#include "app/cli.h"

#include <cstdio>
#include <string>
#include <vector>

#include "app/command.h"
#include "core/error.h"
#include "core/param_visitor.h"
#include "mcts/search_params.h"
#include "net/backends.h"
#include "net/cpu_net.h"
#include "net/net_evaluator.h"
#include "play/mcts_player.h"
#include "play/player_kinds.h"
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

// Every evaluator backend: where it runs, in what precisions, and whether
// this program has it.
void PrintBackends() {
  std::printf("\nEvaluator backends (backend=NAME; auto: the highest priority that runs on the device)\n");
  for (const BackendInfo& backend : DescribeBackends()) {
    std::string where;
    for (const BackendDevice& d : backend.devices) {
      std::string precisions;
      for (const std::string& p : d.precisions) precisions += (precisions.empty() ? "" : "|") + p;
      where += (where.empty() ? "" : ", ") + d.device + " " + precisions;
    }
    std::string old;
    for (const std::string& name : backend.old_names) old += (old.empty() ? " (also read: " : ", ") + name;
    if (!old.empty()) old += ")";
    std::printf("  %-8s priority %d  %-34s %s%s%s\n", backend.name.c_str(), backend.priority, where.c_str(),
                backend.usage.c_str(), old.c_str(), backend.missing.empty() ? "" : "; not in this program");
  }
  std::printf("  cpu here: %s\n", CpuKernelsSummary().c_str());
}

}  // namespace

int RunConfig(int argc, char** argv) {
  CLI::App cli{
      "List every training-config key and every player kind's options (type, range, default, help), and the\n"
      "evaluator backends.\n"
      "With CONFIG, print instead the config a run of it would use, every field resolved (what the run\n"
      "writes as DIR/config.yaml).",
      argv[0]};
  std::string config_path;
  std::vector<std::string> overrides;
  cli.add_option("CONFIG", config_path, "a YAML config to resolve (base files, defaults, --set)");
  cli.add_option("--set", overrides, "with CONFIG: override a value, section.key=value (repeatable)")
      ->allow_extra_args(false);
  LOAZ_PARSE(cli, argc, argv);
  if (!config_path.empty()) {
    std::fputs(run::ConfigToYaml(run::LoadConfig(config_path, overrides)).c_str(), stdout);
    return 0;
  }
  if (!overrides.empty()) throw UsageError("--set needs CONFIG");
  PrintConfig();
  PrintPlayers();
  PrintBackends();
  return 0;
}

}  // namespace loa::app
