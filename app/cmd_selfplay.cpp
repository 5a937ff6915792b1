// loaz selfplay: self-play workers alone, feeding a run directory that a
// `loaz trainer` (here or on another machine) trains from.

#include "app/cli.h"

#include <string>
#include <vector>

#include <unistd.h>

#include "app/command.h"
#include "core/error.h"
#include "train/run.h"
#include "train/stop.h"

namespace loa::app {
namespace {

// Returns HOSTNAME-PID: a writer name no other process of the run shares.
std::string DefaultWriterName() {
  char host[256] = "host";
  ::gethostname(host, sizeof host - 1);
  std::string name = std::string(host) + "-" + std::to_string(::getpid());
  for (char& c : name)
    if (c == '_' || c == '/') c = '-';
  return name;
}

}  // namespace

int RunSelfplay(int argc, char** argv) {
  CLI::App cli{
      "Run self-play workers for a run directory: they play with its newest checkpoint\n"
      "(waiting for one if there is none), pick up each new one, and write replay shards\n"
      "and game records into it. Start any number, on any machines sharing the directory,\n"
      "beside one `loaz trainer --run DIR`. Ctrl-C stops cleanly.",
      argv[0]};
  std::string run_dir, name;
  std::vector<std::string> overrides;
  cli.add_option("--run", run_dir, "the run directory")->required();
  cli.add_option("--name", name, "this process's writer name in shard names (default HOSTNAME-PID)");
  cli.add_option("--set", overrides,
                 "override a config value for this process only, e.g. selfplay.workers=8 (repeatable)")
      ->allow_extra_args(false);
  LOAZ_PARSE(cli, argc, argv);
  if (name.empty()) name = DefaultWriterName();
  if (name.find('_') != std::string::npos || name.find('/') != std::string::npos)
    throw Error("--name '" + name + "': must not contain '_' or '/'");

  const run::OpenedRun run = run::OpenRunDirectory(run_dir, overrides, false);
  train::InstallStopHandlers();
  train::RunParts parts;
  parts.trainer = false;
  parts.selfplay_name = name;
  return train::RunTraining(run, parts);
}

}  // namespace loa::app
