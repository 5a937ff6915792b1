#include "serve/search_pool.h"

#include <vector>

#include "serve/memory.h"

namespace loa::serve {
namespace {

// How often the watchdog looks at the searches running.
constexpr auto kWatchdogPeriod = std::chrono::milliseconds(50);

}  // namespace

// A search, waiting or running. Guarded by the pool's mutex.
struct SearchPool::Lease::Entry {
  Player* player = nullptr;  // set once it runs
  bool stop = false;         // asked to stop: the watchdog repeats Player::Stop until it returns
  std::chrono::steady_clock::time_point started;
};

SearchPool::Lease::~Lease() {
  if (pool_) pool_->Release(*this);
}

bool SearchPool::Lease::stopped() const {
  std::lock_guard<std::mutex> lock(pool_->mutex_);
  return entry_->stop;
}

double SearchPool::Lease::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - entry_->started).count();
}

SearchPool::SearchPool(int max_running, int max_tabs)
    : max_running_(max_running), max_waiting_(2 * max_running), max_tabs_(max_tabs) {
  watchdog_ = std::thread([this] { Watch(); });
}

SearchPool::~SearchPool() {
  Shutdown();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    watchdog_ends_ = true;
  }
  changed_.notify_all();
  watchdog_.join();
}

void SearchPool::Watch() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!watchdog_ends_) {
    changed_.wait_for(lock, kWatchdogPeriod);
    const auto now = std::chrono::steady_clock::now();
    for (const auto& entry : active_)
      if (entry->player && (entry->stop || shutting_down_ || now - entry->started > kMaxSearchTime))
        entry->player->Stop();
  }
}

void SearchPool::StopLocked(Lease::Entry& entry) {
  entry.stop = true;
  if (entry.player) entry.player->Stop();
}

bool SearchPool::Stop(const std::string& client) {
  bool found = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = by_client_.find(client);
    found = it != by_client_.end();
    if (found) StopLocked(*it->second);
  }
  changed_.notify_all();
  return found;
}

void SearchPool::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    shutting_down_ = true;
    for (const auto& entry : active_) StopLocked(*entry);
  }
  changed_.notify_all();
}

SearchPool::Load SearchPool::load() {
  std::lock_guard<std::mutex> lock(mutex_);
  Load l{running_, waiting_, max_running_, max_waiting_, 0};
  for (const auto& [client, tab] : tabs_) l.tabs += tab.player != nullptr || tab.busy;
  return l;
}

std::unique_ptr<SearchPool::Lease> SearchPool::Acquire(const std::string& client, const PlayerKey& key, bool any_limit,
                                                       const std::function<std::unique_ptr<Player>()>& make) {
  std::unique_ptr<Lease> lease(new Lease);
  lease->client_ = client;
  lease->key_ = key;
  lease->entry_ = std::make_shared<Lease::Entry>();
  Lease::Entry& entry = *lease->entry_;
  std::unique_lock<std::mutex> lock(mutex_);
  if (shutting_down_) throw Refused("the server is stopping", 503);
  if (running_ >= max_running_ && waiting_ >= max_waiting_)
    throw Refused("busy: " + std::to_string(running_) + " searches running and " + std::to_string(waiting_) +
                      " waiting; ask again later",
                  503);
  lease->id_ = client.empty() ? "#" + std::to_string(next_id_++) : client;
  if (const auto it = by_client_.find(lease->id_); it != by_client_.end()) {
    // A tab asks for one search at a time: a new request ends the old one.
    StopLocked(*it->second);
    changed_.notify_all();
  }
  by_client_[lease->id_] = lease->entry_;
  active_.insert(lease->entry_);
  ++waiting_;
  auto tab_free = [&] {
    const auto it = client.empty() ? tabs_.end() : tabs_.find(client);
    return it == tabs_.end() || !it->second.busy;
  };
  changed_.wait(lock, [&] { return (running_ < max_running_ && tab_free()) || entry.stop || shutting_down_; });
  --waiting_;
  if (entry.stop || shutting_down_) {
    const bool stopping = shutting_down_;
    if (by_client_[lease->id_] == lease->entry_) by_client_.erase(lease->id_);
    active_.erase(lease->entry_);
    throw Refused(stopping ? "the server is stopping" : "stopped before the search began", stopping ? 503 : 409);
  }
  ++running_;
  lease->pool_ = this;  // from here on the lease gives its slot back
  entry.started = std::chrono::steady_clock::now();
  if (!client.empty()) {
    Tab& tab = tabs_[client];
    tab.busy = true;
    if (tab.player && (tab.key.spec == key.spec || (any_limit && tab.key.unlimited == key.unlimited))) {
      lease->player_ = std::move(tab.player);
      lease->key_ = tab.key;
    }
    tab.player.reset();
  }
  lock.unlock();
  if (!lease->player_) lease->player_ = make();  // on a throw, the lease's end frees the slot
  lock.lock();
  entry.player = lease->player_.get();
  if (entry.stop || shutting_down_) entry.player->Stop();
  return lease;
}

void SearchPool::Release(Lease& lease) {
  std::vector<std::unique_ptr<Player>> dropped;  // destroyed after the lock: a big tree takes a while
  {
    std::lock_guard<std::mutex> lock(mutex_);
    --running_;
    lease.entry_->player = nullptr;
    // Only this request's own entry: a newer request of the tab may have
    // replaced it, and a lookup must never insert.
    const auto it = by_client_.find(lease.id_);
    if (it != by_client_.end() && it->second == lease.entry_) by_client_.erase(it);
    active_.erase(lease.entry_);
    if (!lease.client_.empty()) {
      Tab& tab = tabs_[lease.client_];
      tab.busy = false;
      tab.key = lease.key_;
      tab.player = std::move(lease.player_);
      tab.used = ++clock_;
      if (!tab.player) tabs_.erase(lease.client_);  // make() failed: nothing to keep
      // Keep at most max_tabs_ players: the least recently used idle ones go.
      for (;;) {
        int kept = 0;
        auto oldest = tabs_.end();
        for (auto t = tabs_.begin(); t != tabs_.end(); ++t) {
          if (!t->second.player) continue;
          ++kept;
          if (!t->second.busy && (oldest == tabs_.end() || t->second.used < oldest->second.used)) oldest = t;
        }
        if (kept <= max_tabs_ || oldest == tabs_.end()) break;
        dropped.push_back(std::move(oldest->second.player));
        tabs_.erase(oldest);
      }
    }
    dropped.push_back(std::move(lease.player_));
  }
  changed_.notify_all();
  bool freed = false;
  for (const auto& player : dropped) freed = freed || player != nullptr;
  dropped.clear();
  if (freed) ReturnFreeMemory();  // a dropped tree's pages go back to the system
}

}  // namespace loa::serve
