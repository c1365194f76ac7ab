// OpKind, derived from the rule engine's one table of operations (fault_ops.h), and the
// errnos each kind may fail with.
#include <algorithm>
#include <array>
#include <iterator>
#include <optional>
#include <string>

#include "op_kind_internal.h"
#include "spillway/vfs/fault_injecting_file_system.h"
#include "spillway/vfs/fault_rules.h"

namespace spillway {
namespace {

// FaultRule::path_glob's REQUIRES (fault_injecting_file_system.h) states this capacity.
static_assert(kFaultGlobCapacity == 512);

// The kinds, derived here, in one place, from the one table of operations (fault_ops.h).
// OpKind is public, so the installed header spells it out (it cannot include the private
// table), and it differs from the engine's operations: a FileSystem has no rename, and
// counts two calls the shim never fails on their own, size (a stat of an open file:
// fstat(2), so the stat row's errnos) and chmod (the table's row of FileSystem-only
// operations). Its order is its own, kept because it is printed (a sweep's counts by
// kind). Each kind's name is also the op of a Status for a failed call of that kind, as
// the real filesystems report it ("list", not "opendir").
struct OpKindInfo {
  OpKind kind;
  std::string_view name;
  // The engine operation whose row of errnos the kind may fail with; nullopt: chmod's.
  std::optional<FaultOp> errno_op;
  // True when the kind is that engine operation (a rule text's OP names it).
  bool is_engine_op = false;
};

constexpr OpKindInfo Engine(OpKind kind, FaultOp op) {
  return OpKindInfo{kind, FaultOpName(op), op, true};
}

#define SPILLWAY_FS_ONLY_ROW(ID, Name, name, errnos) \
  constexpr std::string_view k##Name##OpName = name; \
  constexpr int k##Name##Errnos[] = {SPILLWAY_FAULT_OP_ERRNOS errnos};
SPILLWAY_FAULT_FS_ONLY_OPS(SPILLWAY_FS_ONLY_ROW)
#undef SPILLWAY_FS_ONLY_ROW

constexpr std::array<OpKindInfo, kOpKindCount> kOpKinds = {{
    Engine(OpKind::kMkdir, FaultOp::kMkdir),
    Engine(OpKind::kCreate, FaultOp::kCreate),
    Engine(OpKind::kOpen, FaultOp::kOpen),
    Engine(OpKind::kWrite, FaultOp::kWrite),
    Engine(OpKind::kSync, FaultOp::kSync),
    {OpKind::kSize, "size", FaultOp::kStat},
    Engine(OpKind::kClose, FaultOp::kClose),
    Engine(OpKind::kRead, FaultOp::kRead),
    Engine(OpKind::kList, FaultOp::kList),
    Engine(OpKind::kStat, FaultOp::kStat),
    Engine(OpKind::kRemove, FaultOp::kRemove),
    Engine(OpKind::kRmdir, FaultOp::kRmdir),
    {OpKind::kChmod, kChmodOpName, std::nullopt},
}};
// The engine's operations a FileSystem has no call for.
constexpr FaultOp kNotFileSystemOps[] = {FaultOp::kRename};

// The table is indexed by OpKind, so every entry must sit at its enumerator's value.
constexpr bool OpKindTableIsInOrder() {
  for (size_t i = 0; i < kOpKinds.size(); ++i) {
    if (static_cast<size_t>(kOpKinds[i].kind) != i) return false;
  }
  return true;
}
static_assert(OpKindTableIsInOrder(),
              "OpKind (fault_injecting_file_system.h) and kOpKinds are in different orders");

// Every engine operation is exactly one kind, or a FileSystem has no call for it; no two
// kinds share a name.
constexpr bool OpKindTableCoversTheEngine() {
  for (int op = 0; op < kFaultOpCount; ++op) {
    int kinds = 0;
    for (const OpKindInfo& info : kOpKinds) {
      if (info.is_engine_op && info.errno_op == static_cast<FaultOp>(op)) ++kinds;
    }
    for (const FaultOp other : kNotFileSystemOps) {
      if (other == static_cast<FaultOp>(op)) ++kinds;
    }
    if (kinds != 1) return false;
  }
  for (size_t i = 0; i < kOpKinds.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (kOpKinds[i].name == kOpKinds[j].name) return false;
    }
  }
  return true;
}
static_assert(OpKindTableCoversTheEngine(),
              "an operation of SPILLWAY_FAULT_OPS (fault_ops.h) is no OpKind, or two");

}  // namespace

std::optional<OpKind> OpKindOfFaultOp(FaultOp op) {
  for (const OpKindInfo& info : kOpKinds) {
    if (info.is_engine_op && info.errno_op == op) return info.kind;
  }
  return std::nullopt;
}

std::optional<FaultOp> FaultOpOfOpKind(OpKind kind) {
  const OpKindInfo& info = kOpKinds[OpKindIndex(kind)];
  return info.is_engine_op ? info.errno_op : std::nullopt;
}

std::string_view OpKindName(OpKind kind) { return kOpKinds[OpKindIndex(kind)].name; }

bool OpKindCanReturn(std::optional<OpKind> kind, int error_number) {
  if (!kind.has_value()) {
    for (const OpKindInfo& info : kOpKinds) {
      if (OpKindCanReturn(info.kind, error_number)) return true;
    }
    return false;
  }
  const OpKindInfo& info = kOpKinds[OpKindIndex(*kind)];
  if (info.errno_op.has_value()) {
    return FaultOpCanReturn(static_cast<uint8_t>(*info.errno_op), error_number);
  }
  return std::find(std::begin(kChmodErrnos), std::end(kChmodErrnos), error_number) !=
         std::end(kChmodErrnos);
}

Status CheckFaultRule(const FaultRule& rule) {
  const std::string op(rule.op.has_value() ? OpKindName(*rule.op) : kFaultAnyName);
  const std::string action(FaultActionName(rule.action));
  if (rule.delay_ms > kFaultMaxDelayMs) {
    return Status::InvalidArgument("delay=" + std::to_string(rule.delay_ms) +
                                   ": not a count of milliseconds from 1 to 3600000");
  }
  if (rule.action != FaultAction::kFail && rule.error_number != 0) {
    return Status::InvalidArgument(action + " takes no errno: a rule does one thing to a call");
  }
  switch (rule.action) {
    case FaultAction::kFail:
      break;
    case FaultAction::kKill:
      if (rule.times != 1) {
        return Status::InvalidArgument(
            action + " takes no times other than 1: the process it kills makes no later call");
      }
      return OkStatus();
    case FaultAction::kCorrupt:
    case FaultAction::kLost: {
      const bool data_op = rule.op == OpKind::kWrite ||
                           (rule.action == FaultAction::kCorrupt && rule.op == OpKind::kRead);
      if (!data_op) return Status::InvalidArgument(action + " cannot be applied to " + op);
      return OkStatus();
    }
    case FaultAction::kOk:
      if (rule.delay_ms == 0) return Status::InvalidArgument("ok needs delay=MS");
      return OkStatus();
  }
  if (rule.error_number != 0 && OpKindCanReturn(rule.op, rule.error_number)) return OkStatus();
  const char* symbol = ErrnoSymbol(rule.error_number);
  std::string message = op + " cannot fail with ";
  message += symbol != nullptr ? std::string(symbol) : std::to_string(rule.error_number);
  message += "; it can fail with:";
  for (int e = 1; e < 4096; ++e) {
    if (OpKindCanReturn(rule.op, e)) message += std::string(" ") + ErrnoSymbol(e);
  }
  return Status::InvalidArgument(message);
}

std::optional<OpKind> OpKindFromName(std::string_view name) {
  for (const OpKindInfo& info : kOpKinds) {
    if (OpKindName(info.kind) == name) return info.kind;
  }
  return std::nullopt;
}

std::string DamageData(std::string_view data, FaultAction action, uint64_t draw, uint64_t offset,
                       InjectedFault* record) {
  record->action = action;
  if (action == FaultAction::kLost) {
    record->lost_bytes = data.size();
    return std::string(data.size(), '\0');
  }
  std::string damaged(data);
  record->offset = offset;
  if (!damaged.empty()) {
    uint64_t index = 0;
    FaultDamagePoint(draw, damaged.size(), &index, &record->bit);
    damaged[index] = static_cast<char>(damaged[index] ^ (1 << record->bit));
    record->offset += index;
  }
  return damaged;
}

}  // namespace spillway
