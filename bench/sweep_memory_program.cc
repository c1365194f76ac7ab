// The program spillway_sweep_memory_bench sweeps, as cheap as a sweep's run can be: it
// writes one byte WRITES times to DIR/f, every write from one call site, and removes the
// file; after a failed call it removes what it made and exits 1.
// Usage: spillway_sweep_memory_program DIR WRITES
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  const std::string path = std::string(argv[1]) + "/f";
  const long writes = std::atol(argv[2]);
  const int fd = open(path.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0600);
  if (fd < 0) return 1;
  int status = 0;
  for (long i = 0; i < writes && status == 0; ++i) {
    if (write(fd, "x", 1) != 1) status = 1;
  }
  if (close(fd) != 0) status = 1;
  if (unlink(path.c_str()) != 0) status = 1;
  return status;
}
