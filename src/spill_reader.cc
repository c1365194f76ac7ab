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

// A framed file: one batch per frame, the first bad frame an error from then on.
class FramedSpillReader final : public SpillReader {
 public:
  FramedSpillReader(std::string path, std::string bytes)
      : path_(std::move(path)), bytes_(std::move(bytes)) {}

  StatusOr<std::optional<std::string_view>> Next() override {
    if (!error_.ok()) return error_;
    if (offset_ == bytes_.size()) return std::optional<std::string_view>();
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
  uint64_t offset_ = 0;
  Status error_;  // Sticky: the first frame that did not check out.
};

// A plain file (upstream's): its bytes, unchecked, as one batch; an empty file has none.
class PlainSpillReader final : public SpillReader {
 public:
  PlainSpillReader(std::string path, std::string bytes)
      : path_(std::move(path)), bytes_(std::move(bytes)) {}

  StatusOr<std::optional<std::string_view>> Next() override {
    if (offset_ == bytes_.size()) return std::optional<std::string_view>();
    offset_ = bytes_.size();
    return std::optional<std::string_view>(bytes_);
  }

  uint64_t offset() const override { return offset_; }
  const std::string& path() const override { return path_; }

 private:
  const std::string path_;
  const std::string bytes_;
  uint64_t offset_ = 0;
};

}  // namespace

StatusOr<std::unique_ptr<SpillReader>> NewSpillReader(FileSystem& fs, const std::string& path,
                                                      bool framed) {
  StatusOr<std::string> bytes = fs.ReadFile(path);
  if (!bytes.ok()) return bytes.status();
  if (framed) {
    return std::unique_ptr<SpillReader>(
        std::make_unique<FramedSpillReader>(path, std::move(*bytes)));
  }
  return std::unique_ptr<SpillReader>(std::make_unique<PlainSpillReader>(path, std::move(*bytes)));
}

StatusOr<std::unique_ptr<SpillReader>> NewSpillReader(const SpillFile& file) {
  internal::SpillFileState& state = SpillFile::Access::StateOf(file);
  return NewSpillReader(*state.fs, state.path, state.accounting->frame_spill_files());
}

}  // namespace spillway
