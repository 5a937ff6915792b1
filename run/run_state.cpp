#include "run/run_state.h"

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/file_util.h"
#include "run/workers.h"

namespace loa::run {
namespace {

constexpr RunState kStates[] = {RunState::kRunning, RunState::kFinished, RunState::kStopped};

}  // namespace

const char* RunStateName(RunState state) {
  static constexpr const char* kNames[] = {"running", "finished", "stopped"};  // RunState's order
  return kNames[int(state)];
}

void WriteRunState(const RunDir& dir, RunState state, const std::string& reason) {
  const nlohmann::json json = {{"state", RunStateName(state)}, {"reason", reason}, {"time", UnixNow()}};
  WriteFileAtomic(dir.StatePath(), json.dump() + "\n");
}

RunStatus ReadRunState(const RunDir& dir) {
  RunStatus status;
  const std::string path = dir.StatePath();
  const std::optional<std::string> read = ReadFileUnlessDamaged(path, &status.damage);
  if (!read) return status;
  const std::string& text = *read;
  const nlohmann::json json = nlohmann::json::parse(text, nullptr, false);
  bool known = false;
  if (json.is_object() && json.contains("state") && json["state"].is_string())
    for (RunState state : kStates)
      if (json["state"] == RunStateName(state)) {
        status.state = state;
        known = true;
      }
  if (!known) {
    status.damage =
        path + ": not a run state (" + std::to_string(text.size()) + " bytes of something else); read as running";
    return status;
  }
  status.reason = json.contains("reason") && json["reason"].is_string() ? json["reason"].get<std::string>() : "";
  status.time = json.contains("time") && json["time"].is_number() ? json["time"].get<double>() : 0.0;
  return status;
}

}  // namespace loa::run
