#include "run/open_run.h"

#include <cstdio>
#include <filesystem>
#include <optional>
#include <system_error>

#include "core/error.h"
#include "core/file_util.h"
#include "net/backends.h"
#include "net/torch_backend.h"
#include "run/checkpoints.h"

namespace loa::run {

ExportedNet ReadInitialNet(const Config& config) {
  const std::string& path = config.train.initial_net;
  const std::string where = "train.initial_net: " + path;
  ExportedNet net;
  try {
    net = ReadNetFile(path);
  } catch (const Error& e) {
    throw Error(std::string("train.initial_net: ") + e.what());  // the message names the file
  }
  // Compared as rules, not as text: a net written before an option existed
  // leaves it out (its default).
  if (!(Rules::FromString(net.rules) == config.rules))
    throw Error(where + ": trained for rules '" + net.rules + "', the run plays '" + config.rules.ToString() + "'");
  if (!CanGrowInto(net.config, config.net.Exported()))
    throw Error(where + ": a " + net.config.ShortName() + " net cannot start a run of " + config.net.ShortName() +
                " (only net.blocks and net.channels may differ, and only upwards; input_features, heads and the rest"
                " must match)");
  return net;
}

namespace {

// A net that cannot start the run stops it before its folder exists: an
// export is read and checked (ReadInitialNet); so is a checkpoint where
// LibTorch is loaded, and elsewhere (`loaz launch` in the binary without
// it) only found to be a file, read when the trainer starts.
void CheckInitialNet(const Config& config) {
  const std::string& path = config.train.initial_net;
  if (LooksLikeSafeTensors(path) || GetTorchBackend()) {
    ReadInitialNet(config);
    return;
  }
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) throw Error("train.initial_net: " + path + ": no such file");
}

}  // namespace

OpenedRun OpenRunFromConfig(const std::string& config_path, const std::vector<std::string>& overrides,
                            const ConfigCheck& check) {
  OpenedRun run{LoadConfig(config_path, overrides), RunDir(""), false};
  if (check) check(run.config);
  run.dir = RunDir(run.config.RunDirectory());
  const std::string yaml = ConfigToYaml(run.config);
  if (std::filesystem::exists(run.dir.ConfigPath()) || std::filesystem::exists(run.dir.CheckpointDir())) {
    // (A run saved before configs had their last line is the same run.)
    const std::string saved = run.dir.Exists() ? ReadFile(run.dir.ConfigPath(), kMaxTextBytes) : "";
    if (!run.dir.Exists() || (saved != yaml && saved + kConfigEndLine != yaml))
      throw Error(run.dir.root() + " already holds a run with another config; resume it with `loaz train --run " +
                  run.dir.root() + "` (--set section.key=value to change a value), or choose another run.name");
    run.resumed = true;
    return run;
  }
  if (!run.config.train.initial_net.empty()) CheckInitialNet(run.config);
  run.dir.Create();
  WriteFileAtomic(run.dir.ConfigPath(), yaml);
  return run;
}

namespace {

// A copy of the run's config in a checkpoint header.
struct ConfigCopy {
  std::string path;  // the header's
  std::string text;
  Config config;
};

// Returns the copy in the newest checkpoint header that holds one that
// reads, or nothing.
std::optional<ConfigCopy> NewestConfigCopy(const RunDir& dir) {
  const std::vector<int64_t> steps = dir.ListCheckpoints();
  for (auto step = steps.rbegin(); step != steps.rend(); ++step) {
    const std::optional<CheckpointHeader> header = ReadCheckpointHeader(dir, *step);
    if (!header || header->config.empty()) continue;
    try {
      const std::string path = dir.CheckpointHeaderPath(*step);
      return ConfigCopy{path, header->config, ParseConfig(header->config, path)};
    } catch (const Error&) {
    }
  }
  return std::nullopt;
}

bool EndsWith(const std::string& text, const std::string& end) {
  return text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
}

// Returns the run's saved config. One that is damaged (does not read; is
// emptied, a folder, gone; or lacks its last line where its copies have
// it: cut short) is set aside, and the copy in the newest checkpoint
// header that holds one takes its place, with a warning naming both (the
// run goes on as it was at that checkpoint); without a copy, the config's
// own error is thrown.
Config LoadSavedConfig(const RunDir& dir) {
  const std::optional<ConfigCopy> copy = NewestConfigCopy(dir);
  std::string damage;
  try {
    Config saved = LoadConfig(dir.ConfigPath());
    if (!copy || !EndsWith(copy->text, kConfigEndLine) ||
        EndsWith(ReadFile(dir.ConfigPath(), kMaxTextBytes), kConfigEndLine))
      return saved;
    damage = dir.ConfigPath() + ": cut short (its last line is missing)";
  } catch (const Error& e) {
    if (!copy) throw;
    damage = e.what();
  }
  std::string aside;
  std::error_code error;
  if (std::filesystem::exists(std::filesystem::symlink_status(dir.ConfigPath(), error)))
    aside = ", set aside as " + SetAsideDamaged(dir.ConfigPath());
  WriteFileAtomic(dir.ConfigPath(), copy->text);
  std::fprintf(stderr, "warning: %s%s; restored from the copy in %s\n", damage.c_str(), aside.c_str(),
               copy->path.c_str());
  return copy->config;
}

}  // namespace

OpenedRun OpenRunDirectory(const std::string& dir, const std::vector<std::string>& overrides, bool persist,
                           const ConfigCheck& check) {
  OpenedRun run{Config(), RunDir(dir), true};
  run.dir.CheckHoldsRun();
  // The saved config owns the run: an override may not change what its
  // checkpoints are (the net, the encoder's rules) or where it lives.
  const Config saved = LoadSavedConfig(run.dir);
  run.config = LoadConfig(run.dir.ConfigPath(), overrides);
  const std::string conflict = ResumeConflict(saved, run.config);
  if (!conflict.empty())
    throw Error(dir + ": a resumed run cannot change " + conflict +
                " (its checkpoints hold one architecture under one set of rules; start a new run for another)");
  if (check) check(run.config);
  run.dir.Create();
  if (persist && !overrides.empty()) WriteFileAtomic(run.dir.ConfigPath(), ConfigToYaml(run.config));
  return run;
}

}  // namespace loa::run
