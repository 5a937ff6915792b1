// The evaluator backends' table (net/backends.h), in a program without
// LibTorch: what `auto` picks, the old spellings, the errors that name a
// backend, device or precision, and the option choices drawn from the rows.

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <set>

#include "core/error.h"
#include "mcts/batch_server.h"
#include "net/backends.h"
#include "net/cpu_evaluator.h"
#include "net/net_evaluator.h"
#include "tests/net/random_net.h"

namespace loa {
namespace {

bool Contains(const std::vector<std::string>& items, const std::string& item) {
  return std::find(items.begin(), items.end(), item) != items.end();
}

// Returns the message of the Error that f throws ("" for none).
std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::string ErrorOf(const NetEvaluatorOptions& options) {
  return ErrorOf([&] { ChooseBackend(options); });
}

TEST(BackendsTest, TheRowsAreWhatTheOptionsAccept) {
  const std::vector<BackendInfo> rows = DescribeBackends();
  ASSERT_GE(rows.size(), 2u);
  std::set<std::string> names;
  for (const BackendInfo& row : rows) {
    EXPECT_TRUE(names.insert(row.name).second) << "two rows named " << row.name;
    EXPECT_FALSE(row.usage.empty()) << row.name;
    ASSERT_FALSE(row.devices.empty()) << row.name;
    EXPECT_TRUE(Contains(BackendChoices(), row.name)) << row.name;
    for (const std::string& old : row.old_names) EXPECT_TRUE(Contains(BackendChoices(), old)) << old;
    for (const BackendDevice& on : row.devices) {
      EXPECT_TRUE(on.device == "cpu" || on.device == "cuda") << row.name << " on " << on.device;
      ASSERT_FALSE(on.precisions.empty()) << row.name << " on " << on.device;
      for (const std::string& p : on.precisions) EXPECT_TRUE(Contains(PrecisionChoices(), p)) << p;
    }
  }
  EXPECT_EQ(BackendChoices().front(), "auto");
  EXPECT_EQ(PrecisionChoices().front(), "auto");
  // This program has no LibTorch: the torch row says so, the cpu row runs.
  for (const BackendInfo& row : rows)
    EXPECT_EQ(row.missing.empty(), row.name != "torch") << row.name << ": " << row.missing;
}

TEST(BackendsTest, AutoPicksTheHighestPriorityThatRunsHere) {
  NetEvaluatorOptions options;  // backend auto, device cpu
  const std::vector<BackendInfo> rows = DescribeBackends();
  const BackendInfo* best = nullptr;
  for (const BackendInfo& row : rows) {
    const bool on_cpu =
        std::any_of(row.devices.begin(), row.devices.end(), [](const BackendDevice& d) { return d.device == "cpu"; });
    if (on_cpu && row.missing.empty() && (!best || row.priority > best->priority)) best = &row;
  }
  ASSERT_NE(best, nullptr);
  EXPECT_EQ(ChooseBackend(options).name, best->name);
  EXPECT_EQ(ChooseBackend(options).name, "cpu");
  EXPECT_EQ(ChooseBackend(options).device, "cpu");
  options.device = "auto";  // no LibTorch: the cpu
  EXPECT_EQ(ChooseBackend(options).device, "cpu");
  options.backend = "eigen";  // the old name of cpu
  EXPECT_EQ(ChooseBackend(options).name, "cpu");
}

TEST(BackendsTest, ErrorsNameTheBackendDeviceOrPrecision) {
  NetEvaluatorOptions options;
  options.precision = "bf16";
  EXPECT_EQ(ErrorOf(options), "precision bf16 runs on cuda; backend cpu on cpu takes int8, fp32 or auto");
  options.precision = "fp32";
  options.backend = "torch";
  EXPECT_NE(ErrorOf(options).find("backend torch needs LibTorch"), std::string::npos) << ErrorOf(options);
  options.backend = "cpu";
  options.device = "cuda";
  EXPECT_NE(ErrorOf(options).find("device cuda needs LibTorch"), std::string::npos) << ErrorOf(options);
  // Through MakeNetEvaluator, the option's check first: an unknown backend
  // lists the table's names, before any net is read.
  options.device = "cpu";
  options.backend = "tensorflow";
  const std::string unknown = ErrorOf([&] { MakeNetEvaluator("no_such_net.safetensors", options); });
  EXPECT_NE(unknown.find("is not one of auto|cpu|torch|eigen"), std::string::npos) << unknown;
}

TEST(BackendsTest, TheCpuRowMakesTheCpuEvaluatorInEachPrecisionBehindABatchServer) {
  const ExportedNet net = testing::RandomExport(testing::SmallConfig(1, 8, 1, true), 3);
  NetEvaluatorOptions options;
  options.batches_in_flight = 3;
  for (const char* precision : {"fp32", "int8"}) {
    options.precision = precision;
    std::unique_ptr<Evaluator> evaluator = MakeBackendEvaluator(ChooseBackend(options), net, options);
    auto* served = dynamic_cast<ServedEvaluator*>(evaluator.get());
    ASSERT_NE(served, nullptr) << precision;
    EXPECT_EQ(served->server().slots(), 3);
    EXPECT_EQ(served->server().max_batch(), options.max_batch);
    auto* cpu = dynamic_cast<const CpuEvaluator*>(&served->inner());
    ASSERT_NE(cpu, nullptr) << precision;
    EXPECT_EQ(cpu->precision(), ResolvePrecision(precision)) << precision;
  }
}

}  // namespace
}  // namespace loa
