// ReadFileInChunks: FileSystem::ReadFile that shows the bytes read so far as they come
// in, so that a caller can check them while they are still in the CPU's caches
// (SpillReader hashes each spill frame as soon as it is whole).
#ifndef SPILLWAY_VFS_READ_FILE_IN_CHUNKS_H_
#define SPILLWAY_VFS_READ_FILE_IN_CHUNKS_H_

#include <functional>
#include <string>
#include <string_view>

#include "spillway/vfs/file_system.h"
#include "spillway/vfs/status.h"

namespace spillway {

// Reads the regular file `path` of `fs` whole, as fs.ReadFile, calling `on_read` with the
// bytes read so far each time more have come in (never for an empty file). A POSIX
// filesystem (NewPosixFileSystem) calls it after every 64 KiB read; any other filesystem,
// a wrapper included (so that a decorator's ReadFile, a fault injector's damage among
// them, applies), is read with its ReadFile and calls it once. Errors: as ReadFile.
// Thread safety: that of fs.ReadFile; `on_read` runs on the calling thread.
StatusOr<std::string> ReadFileInChunks(FileSystem& fs, const std::string& path,
                                       const std::function<void(std::string_view)>& on_read);

}  // namespace spillway

#endif  // SPILLWAY_VFS_READ_FILE_IN_CHUNKS_H_
