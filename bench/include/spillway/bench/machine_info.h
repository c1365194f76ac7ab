// What `spillway bench` reports about the machine it measured on. Each function reads the
// system afresh and may be called from any thread.
#ifndef SPILLWAY_BENCH_MACHINE_INFO_H_
#define SPILLWAY_BENCH_MACHINE_INFO_H_

#include <string>

namespace spillway::bench {

// The 1-minute load average, or -1 when /proc/loadavg cannot be read.
double LoadAverage();
// The first "model name" of /proc/cpuinfo, or "unknown".
std::string CpuModel();
// "SYSNAME RELEASE" from uname(2), or "unknown".
std::string Kernel();
// The type of the filesystem holding `path` ("ext2/3/4", "tmpfs", ...), from statfs(2)'s
// magic number; the number in hex when unnamed; "unknown" when statfs fails.
std::string FsTypeOf(const std::string& path);

}  // namespace spillway::bench

#endif  // SPILLWAY_BENCH_MACHINE_INFO_H_
