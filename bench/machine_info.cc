#include "spillway/bench/machine_info.h"

#include <fmt/format.h>
#include <sys/statfs.h>
#include <sys/utsname.h>

#include <fstream>
#include <map>
#include <string>

namespace spillway::bench {

double LoadAverage() {
  std::ifstream in("/proc/loadavg");
  double load = -1;
  if (!(in >> load)) return -1;
  return load;
}

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      size_t colon = line.find(':');
      if (colon != std::string::npos) {
        size_t start = line.find_first_not_of(' ', colon + 1);
        return start == std::string::npos ? "unknown" : line.substr(start);
      }
    }
  }
  return "unknown";
}

std::string Kernel() {
  struct utsname u {};
  if (uname(&u) != 0) return "unknown";
  return std::string(u.sysname) + " " + u.release;
}

std::string FsTypeOf(const std::string& path) {
  struct statfs s {};
  if (statfs(path.c_str(), &s) != 0) return "unknown";
  static const std::map<unsigned long, std::string> kNames = {
      {0xEF53, "ext2/3/4"},  {0x58465342, "xfs"},       {0x9123683E, "btrfs"},
      {0x01021994, "tmpfs"}, {0x794C7630, "overlayfs"}, {0x6969, "nfs"},
      {0x65735546, "fuse"},  {0x2FC12FC1, "zfs"},       {0xF2F52010, "f2fs"},
      {0x5346544E, "ntfs"},  {0x4D44, "vfat"},          {0x01021997, "9p"},
      {0x3153464A, "jfs"},   {0x52654973, "reiserfs"},  {0x73717368, "squashfs"},
  };
  auto it = kNames.find(static_cast<unsigned long>(s.f_type));
  return it != kNames.end() ? it->second
                            : fmt::format("0x{:x}", static_cast<unsigned long>(s.f_type));
}

}  // namespace spillway::bench
