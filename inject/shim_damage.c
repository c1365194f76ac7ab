/* Damage for corrupt and lost rules (shim_damage.h). The shim's own file operations are
 * raw system calls (SPW_SYS) or stdio calls made under the re-entrancy guard, so no
 * wrapper sees them. */
#define _GNU_SOURCE
#include "shim_damage.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SPW_COPY_CHUNK 16384

static off_t FdEnd(int fd) {
  struct stat st;
  return SPW_SYS(SYS_fstat, fd, &st, 0, 0) == 0 ? st.st_size : -1;
}

off_t spw_fd_position(int fd) {
  const long flags = SPW_SYS(SYS_fcntl, fd, F_GETFL, 0, 0);
  if (flags >= 0 && (flags & O_APPEND)) return FdEnd(fd);
  const long at = SPW_SYS(SYS_lseek, fd, 0, SEEK_CUR, 0);
  return at < 0 ? -1 : at;
}

void spw_damage_read(struct spw_call* c, off_t at, const struct iovec* iov, int cnt, size_t got) {
  if (got == 0) {
    spw_end_damaged(c, at, -1, 0);
    return;
  }
  uint64_t index = 0;
  int bit = 0;
  spw_damage_point(c, got, &index, &bit);
  uint64_t left = index;
  for (int i = 0; i < cnt; ++i) {
    if (left < iov[i].iov_len) {
      ((unsigned char*)iov[i].iov_base)[left] ^= (unsigned char)(1U << bit);
      break;
    }
    left -= iov[i].iov_len;
  }
  spw_end_damaged(c, at < 0 ? -1 : at + (off_t)index, bit, 0);
}

/* Writes all `len` bytes at *pos (advanced), or at fd's position when *pos < 0. Returns 0,
 * or -1 with errno. */
static int WriteAll(int fd, off_t* pos, const unsigned char* p, size_t len) {
  while (len > 0) {
    const long r =
        *pos < 0 ? SPW_SYS(SYS_write, fd, p, len, 0) : SPW_SYS(SYS_pwrite64, fd, p, len, *pos);
    if (r == -EINTR) continue;
    if (r <= 0) {
      errno = r == 0 ? EIO : (int)-r;
      return -1;
    }
    p += r;
    len -= (size_t)r;
    if (*pos >= 0) *pos += r;
  }
  return 0;
}

ssize_t spw_damage_write(struct spw_call* c, int fd, off_t offset, const struct iovec* iov, int cnt,
                         size_t total) {
  const off_t at = offset >= 0 ? offset : spw_fd_position(fd);
  if (c->damage == SPW_DAMAGE_LOST) {
    /* The range keeps what it had; past the old end the file grows with zeros. */
    const off_t end = FdEnd(fd);
    if (at >= 0 && end >= 0 && at + (off_t)total > end) {
      const long r = SPW_SYS(SYS_ftruncate, fd, at + (off_t)total, 0, 0);
      if (r < 0) {
        errno = (int)-r;
        return -1;
      }
    }
    if (offset < 0 && at >= 0) SPW_SYS(SYS_lseek, fd, at + (off_t)total, SEEK_SET, 0);
    spw_end_damaged(c, at, -1, total);
    return (ssize_t)total;
  }
  uint64_t index = 0;
  int bit = -1;
  if (total > 0) spw_damage_point(c, total, &index, &bit);
  off_t pos = offset;
  size_t done = 0;
  for (int i = 0; i < cnt && done < total; ++i) {
    const unsigned char* p = iov[i].iov_base;
    size_t n = iov[i].iov_len;
    if (n > total - done) n = total - done;
    if (bit >= 0 && index >= done && index < done + n) {
      const size_t k = index - done;
      const unsigned char flipped = (unsigned char)(p[k] ^ (1U << bit));
      if (WriteAll(fd, &pos, p, k) != 0 || WriteAll(fd, &pos, &flipped, 1) != 0 ||
          WriteAll(fd, &pos, p + k + 1, n - k - 1) != 0) {
        return -1;
      }
    } else if (WriteAll(fd, &pos, p, n) != 0) {
      return -1;
    }
    done += n;
  }
  spw_end_damaged(c, bit < 0 || at < 0 ? -1 : at + (off_t)index, bit, 0);
  return (ssize_t)total;
}

size_t spw_damage_stream_write(struct spw_call* c, FILE* f, const void* p, size_t len) {
  const unsigned char* bytes = p;
  spw_guard = 1; /* The stdio calls below go straight to the C library. */
  off_t at = ftello(f);
  size_t written = len;
  int bit = -1;
  uint64_t lost = 0;
  if (c->damage == SPW_DAMAGE_LOST) {
    /* What was buffered before is written; these bytes only move the position. */
    const int fd = fileno(f);
    if (fflush(f) == 0 && (at = ftello(f)) >= 0) {
      const off_t end = FdEnd(fd);
      if (end >= 0 && at + (off_t)len > end) SPW_SYS(SYS_ftruncate, fd, at + (off_t)len, 0, 0);
      fseeko(f, at + (off_t)len, SEEK_SET);
    }
    lost = len;
  } else if (len > 0) {
    uint64_t index = 0;
    spw_damage_point(c, len, &index, &bit);
    const unsigned char flipped = (unsigned char)(bytes[index] ^ (1U << bit));
    written = fwrite(bytes, 1, index, f);
    if (written == index) written += fwrite(&flipped, 1, 1, f);
    if (written == index + 1) written += fwrite(bytes + index + 1, 1, len - index - 1, f);
    if (at >= 0) at += (off_t)index;
  }
  spw_guard = 0;
  if (written < len) return written; /* A real error: the stream says which. */
  spw_end_damaged(c, bit < 0 && lost == 0 ? -1 : at, bit, lost);
  return len;
}

ssize_t spw_damage_copy(struct spw_call* c, int in_fd, off_t* in_off, int out_fd, off_t* out_off,
                        size_t len, int into_scope) {
  unsigned char buf[SPW_COPY_CHUNK];
  const size_t n = len < sizeof(buf) ? len : sizeof(buf);
  const off_t in_at = in_off != NULL ? *in_off : spw_fd_position(in_fd);
  long got;
  do {
    got = in_off != NULL ? SPW_SYS(SYS_pread64, in_fd, buf, n, *in_off)
                         : SPW_SYS(SYS_read, in_fd, buf, n, 0);
  } while (got == -EINTR);
  if (got < 0) {
    errno = (int)-got;
    return -1;
  }
  if (in_off != NULL) *in_off += got;
  const struct iovec iov = {buf, (size_t)got};
  if (into_scope) {
    const ssize_t w =
        spw_damage_write(c, out_fd, out_off != NULL ? *out_off : -1, &iov, 1, (size_t)got);
    if (w >= 0 && out_off != NULL) *out_off += w;
    return w;
  }
  off_t pos = out_off != NULL ? *out_off : -1;
  spw_damage_read(c, in_at, &iov, 1, (size_t)got);
  if (WriteAll(out_fd, &pos, buf, (size_t)got) != 0) return -1;
  if (out_off != NULL) *out_off = pos;
  return got;
}
