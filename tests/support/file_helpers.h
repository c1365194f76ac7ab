// Small filesystem helpers the vfs tests share.
#ifndef SPILLWAY_TESTS_SUPPORT_FILE_HELPERS_H_
#define SPILLWAY_TESTS_SUPPORT_FILE_HELPERS_H_

#include <memory>
#include <string>
#include <string_view>

#include "spillway/vfs/file_system.h"
#include "spillway/vfs/status.h"

namespace spillway::test_support {

// Creates `path` through `fs`, writes `contents` and closes it; the first error, if any.
inline Status WriteNewFile(FileSystem& fs, const std::string& path, std::string_view contents) {
  StatusOr<std::unique_ptr<WritableFile>> file = fs.CreateFile(path);
  if (!file.ok()) return file.status();
  const AppendResult appended = (*file)->Append(contents);
  if (!appended.status.ok()) return appended.status;
  return (*file)->Close();
}

}  // namespace spillway::test_support

#endif  // SPILLWAY_TESTS_SUPPORT_FILE_HELPERS_H_
