/* What corrupt and lost rules do to the bytes of a call the shim lets through (spw_call's
 * damage, shim_core.h), for the wrappers of shim_io.c. No allocation: a read's bytes are
 * altered in the caller's buffer, a damaged write is made in pieces (its flipped byte
 * from the stack), a damaged copy goes through a bounded stack buffer. Each reports the
 * call with spw_end_damaged, or returns -1 with errno for a real error (the caller then
 * ends the call with spw_end). */
#ifndef SPILLWAY_INJECT_SHIM_DAMAGE_H_
#define SPILLWAY_INJECT_SHIM_DAMAGE_H_

#include <stdio.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "shim_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A one-element vector of `n` bytes at `buf`. */
#define SPW_ONE_IOV(buf, n) (&(const struct iovec){(void*)(buf), (n)})

/* The file offset the next write or read at fd's position goes to (the end for
 * O_APPEND); -1 when it has none (a pipe). */
SPW_HIDDEN off_t spw_fd_position(int fd);
/* A read that returned `got` bytes into `iov` from file offset `at` (-1: unknown): flips
 * one bit of them (none when got is 0). */
SPW_HIDDEN void spw_damage_read(struct spw_call* c, off_t at, const struct iovec* iov, int cnt,
                                size_t got);
/* Writes the `total` bytes of `iov` to fd at `offset` (-1: at its position) damaged: one
 * bit flipped, or (lost) nothing, the file extended with zeros past its old end and the
 * position moved as the write would have. Returns total. */
SPW_HIDDEN ssize_t spw_damage_write(struct spw_call* c, int fd, off_t offset,
                                    const struct iovec* iov, int cnt, size_t total);
/* The same for a stdio stream's write of `len` bytes; returns len (fewer on an error). */
SPW_HIDDEN size_t spw_damage_stream_write(struct spw_call* c, FILE* f, const void* p, size_t len);
/* copy_file_range and sendfile damaged: copies at most a stack buffer's worth (a short
 * copy, as the calls may make) through memory, flipping a bit of what it read from an
 * in-scope source (`into_scope` 0) or writing damaged into an in-scope destination. */
SPW_HIDDEN ssize_t spw_damage_copy(struct spw_call* c, int in_fd, off_t* in_off, int out_fd,
                                   off_t* out_off, size_t len, int into_scope);

#ifdef __cplusplus
}
#endif

#endif /* SPILLWAY_INJECT_SHIM_DAMAGE_H_ */
