#include "run/workers.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "core/error.h"
#include "core/file_util.h"

namespace loa::run {

double UnixNow() { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }

WorkerLiveness LivenessAt(const WorkerBeat& beat, double now) {
  if (beat.ended) return WorkerLiveness::kEnded;
  return now - beat.time > kStaleSeconds ? WorkerLiveness::kStale : WorkerLiveness::kAlive;
}

const char* LivenessName(WorkerLiveness liveness) {
  static constexpr const char* kNames[] = {"alive", "stale", "ended"};  // WorkerLiveness's order
  return kNames[int(liveness)];
}

nlohmann::json ToJson(const WorkerBeat& b) {
  return {{"name", b.name},         {"host", b.host},           {"pid", b.pid},
          {"job", b.job},           {"started", b.started},     {"time", b.time},
          {"games", b.games},       {"positions", b.positions}, {"positions_per_hour", b.positions_per_hour},
          {"net_step", b.net_step}, {"ended", b.ended}};
}

void WriteWorkerBeat(const RunDir& dir, const WorkerBeat& beat) {
  WriteFileAtomic(dir.WorkerPath(beat.name), ToJson(beat).dump(2) + "\n");
}

namespace {

// Returns the heartbeat in text, or nothing when it is not one.
std::optional<WorkerBeat> ParseBeat(const std::string& text) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object() || !j.contains("name") || !j["name"].is_string() || !j.contains("time") || !j["time"].is_number())
    return std::nullopt;
  try {
    WorkerBeat b;
    b.name = j.at("name").get<std::string>();
    b.host = j.value("host", "");
    b.pid = j.value("pid", int64_t{0});
    b.job = j.value("job", "");
    b.started = j.value("started", 0.0);
    b.time = j.value("time", 0.0);
    b.games = j.value("games", int64_t{0});
    b.positions = j.value("positions", int64_t{0});
    b.positions_per_hour = j.value("positions_per_hour", 0.0);
    b.net_step = j.value("net_step", int64_t{-1});
    b.ended = j.value("ended", false);
    return b;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;  // a field of the wrong type: not a beat of ours
  }
}

// Reads the heartbeat at path: nothing, without a word, when there is no
// file (or it went meanwhile); nothing, and *damage set, when it does not
// read as one (a folder, garbage, a cut-short file).
std::optional<WorkerBeat> ReadBeatFile(const std::string& path, std::string* damage) {
  const std::optional<std::string> text = ReadFileUnlessDamaged(path, damage);
  if (!text) return std::nullopt;
  std::optional<WorkerBeat> beat = ParseBeat(*text);
  if (!beat && damage)
    *damage = path + ": not a heartbeat (" + std::to_string(text->size()) + " bytes of something else)";
  return beat;
}

nlohmann::json BeatJson(const WorkerBeat& beat, double now) {
  nlohmann::json w = ToJson(beat);
  w["liveness"] = LivenessName(LivenessAt(beat, now));
  w["seconds_since_beat"] = now - beat.time;
  return w;
}

}  // namespace

std::vector<WorkerBeat> ReadWorkerBeats(const RunDir& dir, std::vector<std::string>* damaged) {
  std::vector<WorkerBeat> beats;
  std::error_code error;
  for (std::filesystem::directory_iterator it(dir.WorkersDir(), error), end; !error && it != end; it.increment(error)) {
    const std::string file = it->path().filename().string();
    if (it->path().extension() != ".json" || file.find(".tmp.") != std::string::npos) continue;
    std::string damage;
    if (std::optional<WorkerBeat> beat = ReadBeatFile(it->path().string(), &damage))
      beats.push_back(*beat);
    else if (!damage.empty() && damaged)
      damaged->push_back(damage);
  }
  std::sort(beats.begin(), beats.end(), [](const WorkerBeat& a, const WorkerBeat& b) { return a.name < b.name; });
  return beats;
}

nlohmann::json WorkersJson(const RunDir& dir, double now, std::vector<std::string>* damaged) {
  nlohmann::json workers = nlohmann::json::array();
  for (const WorkerBeat& beat : ReadWorkerBeats(dir, damaged)) workers.push_back(BeatJson(beat, now));
  return workers;
}

void WriteTrainerBeat(const RunDir& dir, const WorkerBeat& beat) {
  WriteFileAtomic(dir.TrainerBeatPath(), ToJson(beat).dump(2) + "\n");
}

std::optional<WorkerBeat> ReadTrainerBeat(const RunDir& dir, std::string* damage) {
  return ReadBeatFile(dir.TrainerBeatPath(), damage);
}

nlohmann::json TrainerJson(const RunDir& dir, double now, std::string* damage) {
  const std::optional<WorkerBeat> beat = ReadTrainerBeat(dir, damage);
  return beat ? BeatJson(*beat, now) : nlohmann::json(nullptr);
}

std::string BatchJobName() {
  const char* array_job = std::getenv("SLURM_ARRAY_JOB_ID");
  const char* task = std::getenv("SLURM_ARRAY_TASK_ID");
  if (array_job && task && *array_job && *task) return std::string(array_job) + "_" + task;
  const char* job = std::getenv("SLURM_JOB_ID");
  return job ? job : "";
}

}  // namespace loa::run
