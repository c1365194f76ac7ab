// SpillReader: a framed file's batches, each checked (spill_frame.h) as it is read in, or
// a plain file whole.
#include "spillway/spill/spill_reader.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "spill_frame.h"
#include "spill_internal.h"
#include "spillway/vfs/read_file_in_chunks.h"

namespace spillway {
namespace {

// Checks a framed file's frames as its bytes come in (ReadFileInChunks), each
// as soon as it is whole, while it is still in the CPU's caches; stops at the first that
// does not check out, which the reader then reports when it reaches it.
class FrameChecker {
 public:
  FrameChecker(const std::string& path, internal::SpillFrameChecksum checksum)
      : path_(path), checksum_(checksum) {}

  // `so_far`: the file's bytes read so far.
  void Check(std::string_view so_far) {
    while (!stopped_ && so_far.size() - checked_ >= internal::kSpillFrameHeaderSize &&
           internal::SpillFrameEnd(so_far, checked_) <= so_far.size()) {
      std::string_view batch;
      uint64_t next = 0;
      stopped_ =
          !internal::DecodeSpillFrame(so_far, checked_, path_, &batch, &next, checksum_).ok();
      if (!stopped_) checked_ = next;
    }
  }

  // The frames before this offset checked out.
  uint64_t checked() const { return checked_; }

 private:
  const std::string& path_;
  const internal::SpillFrameChecksum checksum_;
  uint64_t checked_ = 0;
  bool stopped_ = false;
};

// A framed file gives one batch per frame, each checked, the first bad frame an error
// from then on; a plain file (upstream's) gives its bytes, unchecked, as one batch, and an
// empty one none.
class SpillReaderImpl final : public SpillReader {
 public:
  // `checksum`: the frames', or null for a plain file. The frames before `checked`
  // checked out as they were read.
  SpillReaderImpl(std::string path, std::string bytes, internal::SpillFrameChecksum checksum,
                  uint64_t checked)
      : path_(std::move(path)), bytes_(std::move(bytes)), checksum_(checksum), checked_(checked) {}

  StatusOr<std::optional<std::string_view>> Next() override {
    if (!error_.ok()) return error_;
    if (offset_ == bytes_.size()) return std::optional<std::string_view>();
    if (checksum_ == nullptr) {
      offset_ = bytes_.size();
      return std::optional<std::string_view>(bytes_);
    }
    std::string_view batch;
    uint64_t next = 0;
    if (offset_ < checked_) {  // Checked as it was read.
      next = internal::SpillFrameEnd(bytes_, offset_);
      batch = std::string_view(bytes_).substr(offset_ + internal::kSpillFrameHeaderSize,
                                              next - offset_ - internal::kSpillFrameHeaderSize);
      offset_ = next;
      return std::optional<std::string_view>(batch);
    }
    error_ = internal::DecodeSpillFrame(bytes_, offset_, path_, &batch, &next, checksum_);
    if (!error_.ok()) return error_;
    offset_ = next;
    return std::optional<std::string_view>(batch);
  }

  uint64_t offset() const override { return offset_; }
  const std::string& path() const override { return path_; }

 private:
  const std::string path_;
  const std::string bytes_;
  const internal::SpillFrameChecksum checksum_;
  const uint64_t checked_;
  uint64_t offset_ = 0;
  Status error_;  // Sticky: the first frame that did not check out.
};

StatusOr<std::unique_ptr<SpillReader>> Read(FileSystem& fs, const std::string& path,
                                            internal::SpillFrameChecksum checksum) {
  if (checksum == nullptr) {
    StatusOr<std::string> bytes = fs.ReadFile(path);
    if (!bytes.ok()) return bytes.status();
    return std::unique_ptr<SpillReader>(
        std::make_unique<SpillReaderImpl>(path, std::move(*bytes), nullptr, 0));
  }
  FrameChecker checker(path, checksum);
  StatusOr<std::string> bytes =
      ReadFileInChunks(fs, path, [&checker](std::string_view so_far) { checker.Check(so_far); });
  if (!bytes.ok()) return bytes.status();
  return std::unique_ptr<SpillReader>(
      std::make_unique<SpillReaderImpl>(path, std::move(*bytes), checksum, checker.checked()));
}

}  // namespace

StatusOr<std::unique_ptr<SpillReader>> NewSpillReader(FileSystem& fs, const std::string& path,
                                                      bool framed) {
  return Read(fs, path, framed ? internal::SpillFrameHash : nullptr);
}

StatusOr<std::unique_ptr<SpillReader>> NewSpillReader(const SpillFile& file) {
  return internal::NewSpillReader(file, internal::SpillFrameHash);
}

namespace internal {

StatusOr<std::unique_ptr<SpillReader>> NewSpillReader(const SpillFile& file,
                                                      SpillFrameChecksum checksum) {
  SpillFileState& state = SpillFile::Access::StateOf(file);
  return Read(*state.fs, state.path, state.accounting->frame_spill_files() ? checksum : nullptr);
}

}  // namespace internal

}  // namespace spillway
