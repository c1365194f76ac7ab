// ReadSpillFile: SpillReader's batches joined, or, under kReaderSkipsCheck, the frames
// walked by their lengths alone.
#include "spillway/spill/read_spill_file.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "spill_frame.h"
#include "spill_internal.h"
#include "spillway/spill/spill_reader.h"

namespace spillway {
namespace {

static_assert(kSpillFrameHeaderBytes == internal::kSpillFrameHeaderSize);

StatusOr<std::string> JoinBatches(SpillReader& reader) {
  std::string joined;
  while (true) {
    StatusOr<std::optional<std::string_view>> batch = reader.Next();
    if (!batch.ok()) return batch.status();
    if (!batch->has_value()) return joined;
    joined.append(**batch);
  }
}

// kReaderSkipsCheck: each frame's length is trusted and no hash is looked at, so a flipped
// bit or a lost write's zeros pass as data (a header of zeros reads as an empty batch).
std::string SkipChecks(std::string_view bytes) {
  std::string joined;
  uint64_t offset = 0;
  while (offset + internal::kSpillFrameHeaderSize <= bytes.size()) {
    uint32_t length = 0;
    std::memcpy(&length, bytes.data() + offset + 4, sizeof(length));  // Little-endian.
    offset += internal::kSpillFrameHeaderSize;
    const uint64_t n = std::min<uint64_t>(length, bytes.size() - offset);
    joined.append(bytes.substr(offset, n));
    offset += n;
  }
  return joined;
}

}  // namespace

StatusOr<std::string> ReadSpillFile(const SpillFile& file) {
  internal::SpillFileState& state = SpillFile::Access::StateOf(file);
  const bool framed = state.accounting->frame_spill_files();
  const bool skip = framed && state.accounting->quirks().Has(Quirk::kReaderSkipsCheck);
  StatusOr<std::unique_ptr<SpillReader>> reader =
      skip ? NewSpillReader(*state.fs, state.path, /*framed=*/false) : NewSpillReader(file);
  if (!reader.ok()) return reader.status();
  StatusOr<std::string> joined = JoinBatches(**reader);
  if (!skip || !joined.ok()) return joined;
  return SkipChecks(*joined);
}

}  // namespace spillway
