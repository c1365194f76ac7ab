// The fault rules the spill model (spill_model.h) follows: for each kind of call, the
// rules due for it, in the order the next calls of that kind meet them.
//
// A run can keep many rules due for long (a fault on a call that seldom happens, drawn
// more often than that call is made), and the model is copied at every step; so the
// copies of a ModelRules share each kind's rules and keep only their own place in them:
// copying one, taking a failure and asking what is due cost the same however many rules
// are due. Only Add makes a new list, of its own kind's rules.
//
// Thread safety: a value; distinct objects (copies of one another included) may be used
// from different threads, as the shared lists are never changed.
#ifndef SPILLWAY_MODEL_MODEL_RULES_H_
#define SPILLWAY_MODEL_MODEL_RULES_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "spillway/vfs/fault_injecting_file_system.h"

namespace spillway::model {

// What Take returns for the call a `kill` line's rule kills, and for every later call.
inline constexpr int kKilled = -2;

class ModelRules {
 public:
  // Adds a rule that fails the next `times` calls of kind `op` (nullopt: every call)
  // with `error_number` (0: lets them succeed, as a corrupt, lost or ok rule does, which
  // `action` names), once the rules already due for `op` have failed theirs. A rule
  // no call can reach (times=0, or behind a rule that fails every call) is not kept.
  void Add(OpKind op, int error_number, std::optional<uint64_t> times,
           FaultAction action = FaultAction::kFail);

  // The errno the next call of kind `op` fails with, 0 when no rule is due; consumes one
  // failure of a rule that fails a limited number of calls. Sets `*action`, when given,
  // to the rule's action (kFail when none is due or the process is killed).
  int Take(OpKind op, FaultAction* action = nullptr);

  // True when some rule is due for calls of kind `op`.
  bool Due(OpKind op) const { return At(op).rules != nullptr; }

  // True when the rule due next for `op` fails a limited number of calls.
  bool LimitedDue(OpKind op) const;

  // The process dies at the `call`-th next call of any kind (`kill N`): Take returns
  // kKilled for it and for every later call, before any rule sees them (a kill rule added
  // while no rule is due is the first every call meets). REQUIRES: call >= 1.
  void Kill(uint64_t call) { kill_in_ = call; }
  // A kill is set and has not fired yet.
  bool KillPending() const { return kill_in_ != 0; }
  // The kill has fired.
  bool killed() const { return killed_; }
  // True when some rule is due for calls of any kind.
  bool AnyDue() const;

 private:
  struct Rule {
    int error_number = 0;
    std::optional<uint64_t> times;  // Calls it fails; nullopt: every call.
    FaultAction action = FaultAction::kFail;
  };
  // The rules due for one kind: (*rules)[front...], of which the first has already failed
  // front_used calls. rules is null when none is due; the list is never changed once made.
  struct Queue {
    std::shared_ptr<const std::vector<Rule>> rules;
    size_t front = 0;
    uint64_t front_used = 0;
  };

  const Queue& At(OpKind op) const { return queues_[static_cast<size_t>(op)]; }
  Queue& At(OpKind op) { return queues_[static_cast<size_t>(op)]; }

  std::array<Queue, kOpKindCount> queues_;  // By OpKind.
  uint64_t kill_in_ = 0;  // Calls until the kill, counting the killed one; 0: none set.
  bool killed_ = false;
};

}  // namespace spillway::model

#endif  // SPILLWAY_MODEL_MODEL_RULES_H_
