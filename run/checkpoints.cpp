#include "run/checkpoints.h"

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/file_util.h"

namespace loa::run {

double CheckpointHeader::Hours() const {
  const auto it = counters.find(kElapsedMsCounter);
  return it == counters.end() ? 0.0 : double(it->second) / 3.6e6;
}

void WriteCheckpointHeader(const RunDir& dir, const CheckpointHeader& header) {
  nlohmann::json json = {{"step", header.step},
                         {"counters", header.counters},
                         {"hours", header.Hours()},
                         {"architecture", header.architecture}};
  if (!header.config.empty()) json["config"] = header.config;
  WriteFileAtomic(dir.CheckpointHeaderPath(header.step), json.dump(2) + "\n");
}

std::optional<CheckpointHeader> ReadCheckpointHeader(const RunDir& dir, int64_t step) {
  const std::optional<std::string> text = ReadFileIfAny(dir.CheckpointHeaderPath(step), kMaxTextBytes);
  return text ? ParseCheckpointHeader(*text, step) : std::nullopt;
}

std::optional<CheckpointHeader> ParseCheckpointHeader(const std::string& text, int64_t step) {
  const nlohmann::json json = nlohmann::json::parse(text, nullptr, false);
  if (!json.is_object() || !json.contains("step") || !json["step"].is_number_integer() ||
      json["step"].get<int64_t>() != step)
    return std::nullopt;
  CheckpointHeader header;
  header.step = step;
  if (json.contains("counters") && json["counters"].is_object())
    for (auto it = json["counters"].begin(); it != json["counters"].end(); ++it)
      if (it.value().is_number_integer()) header.counters[it.key()] = it.value().get<int64_t>();
  if (json.contains("architecture") && json["architecture"].is_string())
    header.architecture = json["architecture"].get<std::string>();
  if (json.contains("config") && json["config"].is_string()) header.config = json["config"].get<std::string>();
  return header;
}

double CheckpointHours(const RunDir& dir, int64_t step) {
  const std::optional<CheckpointHeader> header = ReadCheckpointHeader(dir, step);
  return header ? header->Hours() : 0.0;
}

std::string ResolveRunCheckpoint(const RunDir& dir, int64_t step) {
  if (step < 0) {
    const std::vector<int64_t> steps = dir.ListCheckpoints();
    if (steps.empty()) throw Error(dir.root() + ": the run has no checkpoint");
    return dir.CheckpointPath(steps.back());
  }
  const std::string path = dir.CheckpointPath(step);
  if (!std::filesystem::exists(path))
    throw Error(dir.root() + ": the run has no checkpoint of step " + std::to_string(step));
  return path;
}

std::vector<int64_t> CheckpointsUpTo(const RunDir& dir, int64_t step, int count, int64_t min_step) {
  ResolveRunCheckpoint(dir, step);  // throws when there is none
  const std::vector<int64_t> steps = dir.ListCheckpoints();
  if (step < 0) step = steps.back();
  std::vector<int64_t> chosen;
  for (auto it = steps.rbegin(); it != steps.rend() && int(chosen.size()) < count; ++it)
    if (*it <= step && *it >= min_step) chosen.push_back(*it);
  std::reverse(chosen.begin(), chosen.end());
  return chosen;
}

std::vector<int64_t> FinalExportSteps(const RunDir& dir, int64_t last, int average) {
  return CheckpointsUpTo(dir, last, average, last / 2);
}

std::string CheckpointName(int64_t step) { return "step " + std::to_string(step); }

std::optional<int64_t> CheckpointStep(const std::string& name) {
  constexpr char kPrefix[] = "step ";
  if (name.rfind(kPrefix, 0) != 0 || name.size() == sizeof kPrefix - 1 || name.size() > sizeof kPrefix + 17)
    return std::nullopt;
  int64_t step = 0;
  for (size_t i = sizeof kPrefix - 1; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return std::nullopt;
    step = step * 10 + (name[i] - '0');
  }
  if (CheckpointName(step) != name) return std::nullopt;  // leading zeros
  return step;
}

std::string RunCheckpointName(const RunCheckpoint& checkpoint) {
  return checkpoint.run + " " + CheckpointName(checkpoint.step);
}

std::optional<RunCheckpoint> ParseRunCheckpointName(const std::string& name) {
  const size_t space = name.rfind(" step ");
  if (space == std::string::npos || space == 0) return std::nullopt;
  const std::optional<int64_t> step = CheckpointStep(name.substr(space + 1));
  if (!step) return std::nullopt;
  return RunCheckpoint{name.substr(0, space), *step};
}

}  // namespace loa::run
