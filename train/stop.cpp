#include "train/stop.h"

#include <csignal>
#include <cstdlib>

#include <unistd.h>

namespace loa::train {
namespace {

std::atomic<bool> stop_requested{false};

void OnSignal(int signal) {
  if (stop_requested.load() && signal == SIGINT) {
    static const char kMessage[] = "\nsecond interrupt: stopping at once\n";
    (void)!::write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
    std::_Exit(130);
  }
  stop_requested.store(true);
  static const char kMessage[] = "\nstopping cleanly (interrupt again to stop at once)\n";
  (void)!::write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
}

}  // namespace

bool StopRequested() { return stop_requested.load(std::memory_order_relaxed); }
void RequestStop() { stop_requested.store(true); }

void InstallStopHandlers() {
  struct sigaction action {};
  action.sa_handler = OnSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

}  // namespace loa::train
