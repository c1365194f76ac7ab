// Spill errors: canonical codes without an errno (spill_status.h states the rule).
#include "spillway/spill/spill_status.h"

namespace spillway {

Status LimitExceededError(std::string_view message) {
  return Status(StatusCode::kResourceExhausted, message);
}

Status DisabledError(std::string_view message) {
  return Status(StatusCode::kFailedPrecondition, message);
}

bool IsLimitExceeded(const Status& status) {
  return status.code() == StatusCode::kResourceExhausted && status.error_number() == 0;
}

bool IsDisabled(const Status& status) {
  return status.code() == StatusCode::kFailedPrecondition && status.error_number() == 0;
}

}  // namespace spillway
