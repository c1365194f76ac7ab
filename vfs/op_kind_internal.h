// Between op_kind.cc, which derives OpKind from the rule engine's table, and
// fault_injecting_file_system.cc. Private to the vfs library.
#ifndef SPILLWAY_VFS_OP_KIND_INTERNAL_H_
#define SPILLWAY_VFS_OP_KIND_INTERNAL_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "spillway/vfs/fault_injecting_file_system.h"
#include "spillway/vfs/fault_rules.h"

namespace spillway {

// The kind's place in OpKind's order (a table index).
inline size_t OpKindIndex(OpKind kind) { return static_cast<size_t>(kind); }

// The kind that is engine operation `op`; nullopt for one a FileSystem has no call for
// (rename).
std::optional<OpKind> OpKindOfFaultOp(FaultOp op);
// The engine operation a kind is (OpKindOfFaultOp's inverse); nullopt for size and chmod,
// which no rule text names.
std::optional<FaultOp> FaultOpOfOpKind(OpKind kind);

// `data` as a kCorrupt or kLost rule leaves it, for the bytes at file offset `offset`:
// one bit flipped (at FaultDamagePoint of `draw`; none for no data), or all zeros (lost:
// an append's range is past the old end). Sets record->offset and bit, or lost_bytes.
std::string DamageData(std::string_view data, FaultAction action, uint64_t draw, uint64_t offset,
                       InjectedFault* record);

}  // namespace spillway

#endif  // SPILLWAY_VFS_OP_KIND_INTERNAL_H_
