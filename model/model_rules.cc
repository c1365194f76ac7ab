#include "spillway/model/model_rules.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace spillway::model {

void ModelRules::Add(OpKind op, int error_number, std::optional<uint64_t> times,
                     FaultAction action) {
  if (times.has_value() && *times == 0) return;  // Fails no call.
  Queue& q = At(op);
  std::vector<Rule> rules;
  if (q.rules != nullptr) {
    if (!q.rules->back().times.has_value()) return;  // Behind a rule that fails every call.
    // A list of its own, holding only what is still due: the other copies keep theirs.
    rules.assign(q.rules->begin() + static_cast<std::ptrdiff_t>(q.front), q.rules->end());
    *rules.front().times -= q.front_used;
  }
  // A limited rule right after another with the same errno fails calls as one rule of
  // their summed times.
  if (!rules.empty() && times.has_value() && rules.back().times.has_value() &&
      rules.back().error_number == error_number && rules.back().action == action &&
      *rules.back().times <= std::numeric_limits<uint64_t>::max() - *times) {
    *rules.back().times += *times;
  } else {
    rules.push_back(Rule{error_number, times, action});
  }
  q.rules = std::make_shared<const std::vector<Rule>>(std::move(rules));
  q.front = 0;
  q.front_used = 0;
}

int ModelRules::Take(OpKind op, FaultAction* action) {
  if (action != nullptr) *action = FaultAction::kFail;
  if (killed_) return kKilled;
  if (kill_in_ != 0 && --kill_in_ == 0) {
    killed_ = true;
    return kKilled;
  }
  Queue& q = At(op);
  if (q.rules == nullptr) return 0;
  const Rule& rule = (*q.rules)[q.front];
  const int error_number = rule.error_number;
  if (action != nullptr) *action = rule.action;
  if (!rule.times.has_value()) return error_number;
  if (++q.front_used < *rule.times) return error_number;
  q.front_used = 0;
  if (++q.front == q.rules->size()) {
    q.rules.reset();
    q.front = 0;
  }
  return error_number;
}

bool ModelRules::AnyDue() const {
  return std::any_of(queues_.begin(), queues_.end(),
                     [](const Queue& q) { return q.rules != nullptr; });
}

bool ModelRules::LimitedDue(OpKind op) const {
  const Queue& q = At(op);
  return q.rules != nullptr && (*q.rules)[q.front].times.has_value();
}

}  // namespace spillway::model
