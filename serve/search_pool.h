#pragma once
// The searches that `loaz serve` runs for its requests (docs/SERVE.md): at
// most a few at once and a bounded queue behind them, each stoppable by the
// tab that asked, by a newer request of that tab, by a watchdog and by a
// shutdown; and the players that persist between requests, so that a tab's
// next search reuses the tree its last one grew.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "core/error.h"
#include "play/player.h"

namespace loa::serve {

// A search the pool does not run: the HTTP status that says why (503: the
// queue is full or the server stops; 409: stopped before it began).
class Refused : public Error {
 public:
  Refused(const std::string& message, int status) : Error(message), status(status) {}
  int status;
};

class SearchPool {
 public:
  // The pool's state, for /api/info.
  struct Load {
    int running = 0, waiting = 0, max_running = 0, max_waiting = 0;
    int tabs = 0;  // tabs whose player is kept
  };

  // What a player is made from, compared as text, never parsed again: its
  // spec's text, and the same without the keys of its limit
  // (SpecWithoutLimit).
  struct PlayerKey {
    std::string spec, unlimited;
  };

  // A running search's slot and player. While it lives the player is this
  // search's alone; when it goes, the slot is free and the player is its
  // tab's again (for the tab's next request), or gone when it had no tab.
  class Lease {
   public:
    ~Lease();
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Player& player() { return *player_; }
    // Seconds since the search took its slot.
    double seconds() const;
    // Whether the search was asked to stop (its tab's /api/stop or newer
    // request, or the server going).
    bool stopped() const;

   private:
    friend class SearchPool;
    struct Entry;
    Lease() = default;
    SearchPool* pool_ = nullptr;
    std::string id_, client_;
    PlayerKey key_;  // what its player was made from
    std::shared_ptr<Entry> entry_;
    std::unique_ptr<Player> player_;
  };

  // Runs at most max_running searches at once, keeps twice as many
  // waiting, and keeps the players of at most max_tabs tabs between their
  // requests (the least recently used goes first).
  SearchPool(int max_running, int max_tabs);
  ~SearchPool();
  SearchPool(const SearchPool&) = delete;
  SearchPool& operator=(const SearchPool&) = delete;

  // Waits for a slot (and for the tab's earlier search to return, which a
  // newer request stops) and returns it with the player to search with: the
  // tab's own (its tree and tables kept) when it was made from the same
  // spec, or with `any_limit` (a request that sets its own bounds: an
  // analysis, a move with seconds or playouts) from one of any limit, else
  // make()'s, which is then made from `key`. `client` names the tab; "" for
  // a request of none (its player is made for it and then dropped). Throws
  // Refused, and what make() throws.
  std::unique_ptr<Lease> Acquire(const std::string& client, const PlayerKey& key, bool any_limit,
                                 const std::function<std::unique_ptr<Player>()>& make);

  // Asks the client's search to stop, waiting or running; returns whether
  // it had one.
  bool Stop(const std::string& client);

  // Stops every search now and refuses every later one.
  void Shutdown();

  Load load();

  // A search still running this long after it began is stopped.
  static constexpr auto kMaxSearchTime = std::chrono::seconds(70);

 private:
  struct Tab {
    PlayerKey key;                   // what its player was made from
    std::unique_ptr<Player> player;  // null while a search of the tab runs
    bool busy = false;
    uint64_t used = 0;  // when it last searched, on the pool's counter
  };

  void Watch();
  void StopLocked(Lease::Entry& entry);
  void Release(Lease& lease);

  const int max_running_, max_waiting_, max_tabs_;
  std::mutex mutex_;
  std::condition_variable changed_;  // a slot or a tab freed, a stop, a shutdown
  // The searches by the tab that asked (or "#N" for none): its newest.
  std::map<std::string, std::shared_ptr<Lease::Entry>> by_client_;
  // Every search until it returns, a tab's older one too after a newer
  // request took its place above: what the watchdog and a shutdown stop.
  std::set<std::shared_ptr<Lease::Entry>> active_;
  std::map<std::string, Tab> tabs_;
  int running_ = 0, waiting_ = 0;
  uint64_t next_id_ = 0, clock_ = 0;
  bool shutting_down_ = false, watchdog_ends_ = false;
  // Repeats the stops asked for until each search returns (a stop that
  // comes as a search begins is not lost), and stops the searches past
  // kMaxSearchTime and all of them at shutdown.
  std::thread watchdog_;
};

}  // namespace loa::serve
