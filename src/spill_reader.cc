// SpillReader: a framed file's batches, each checked (spill_frame.h), or a plain file
// whole.
#include "spillway/spill/spill_reader.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "spill_frame.h"
#include "spill_internal.h"

namespace spillway {
namespace {

// A framed file gives one batch per frame, each checked, the first bad frame an error
// from then on; a plain file (upstream's) gives its bytes, unchecked, as one batch, and an
// empty one none.
class SpillReaderImpl final : public SpillReader {
 public:
  SpillReaderImpl(std::string path, std::string bytes, bool framed)
      : path_(std::move(path)), bytes_(std::move(bytes)), framed_(framed) {}

  StatusOr<std::optional<std::string_view>> Next() override {
    if (!error_.ok()) return error_;
    if (offset_ == bytes_.size()) return std::optional<std::string_view>();
    if (!framed_) {
      offset_ = bytes_.size();
      return std::optional<std::string_view>(bytes_);
    }
    std::string_view batch;
    uint64_t next = 0;
    error_ = internal::DecodeSpillFrame(bytes_, offset_, path_, &batch, &next);
    if (!error_.ok()) return error_;
    offset_ = next;
    return std::optional<std::string_view>(batch);
  }

  uint64_t offset() const override { return offset_; }
  const std::string& path() const override { return path_; }

 private:
  const std::string path_;
  const std::string bytes_;
  const bool framed_;
  uint64_t offset_ = 0;
  Status error_;  // Sticky: the first frame that did not check out.
};

}  // namespace

StatusOr<std::unique_ptr<SpillReader>> NewSpillReader(FileSystem& fs, const std::string& path,
                                                      bool framed) {
  StatusOr<std::string> bytes = fs.ReadFile(path);
  if (!bytes.ok()) return bytes.status();
  return std::unique_ptr<SpillReader>(
      std::make_unique<SpillReaderImpl>(path, std::move(*bytes), framed));
}

StatusOr<std::unique_ptr<SpillReader>> NewSpillReader(const SpillFile& file) {
  internal::SpillFileState& state = SpillFile::Access::StateOf(file);
  return NewSpillReader(*state.fs, state.path, state.accounting->frame_spill_files());
}

}  // namespace spillway
