#include "mcts/params.h"

#include <string>

#include "core/error.h"

namespace loa {

namespace {

// Throws loa::Error naming the field when value is outside [min, max].
template <typename T>
void CheckRange(const char* field, T value, T min, T max) {
  if (!(value >= min && value <= max))
    throw Error("search parameter " + std::string(field) + "=" + std::to_string(value) + " is out of range [" +
                std::to_string(min) + ", " + std::to_string(max) + "]");
}

}  // namespace

void SearchParams::Validate() const {
  CheckRange("playouts", playouts, 1, 1 << 30);
  CheckRange("threads", threads, 1, 1024);
  CheckRange("leaves_per_batch", leaves_per_batch, 1, 4096);
  CheckRange("max_tree_nodes", max_tree_nodes, int64_t{1} << 10, int64_t{1} << 31);
  CheckRange("cpuct_init", cpuct_init, 0.0f, 100.0f);
  CheckRange("cpuct_base", cpuct_base, 1.0f, 1e9f);
  CheckRange("cpuct_factor", cpuct_factor, 0.0f, 100.0f);
  CheckRange("fpu_reduction", fpu_reduction, -2.0f, 2.0f);
  CheckRange("fpu_reduction_root", fpu_reduction_root, -2.0f, 2.0f);
  CheckRange("virtual_loss", virtual_loss, 0.0f, 100.0f);
  CheckRange("dirichlet_alpha", dirichlet_alpha, 1e-4f, 100.0f);
  CheckRange("dirichlet_epsilon", dirichlet_epsilon, 0.0f, 1.0f);
  CheckRange("temperature_start", temperature_start, 0.0f, 100.0f);
  CheckRange("temperature_end", temperature_end, 0.0f, 100.0f);
  CheckRange("temperature_halflife_plies", temperature_halflife_plies, 0, 100000);
  CheckRange("temperature_cutoff_plies", temperature_cutoff_plies, 0, 100000);
  CheckRange("full_search_fraction", full_search_fraction, 0.0f, 1.0f);
  CheckRange("cheap_playouts", cheap_playouts, 1, 1 << 30);
  CheckRange("forced_playouts_k", forced_playouts_k, 0.0f, 100.0f);
  CheckRange("time_moves_to_go", time_moves_to_go, 1, 1000);
  CheckRange("move_overhead_seconds", move_overhead_seconds, 0.0, 60.0);
}

}  // namespace loa
