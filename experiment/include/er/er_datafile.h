/* Block writer for the binary data files (profile, data.frameinfo, and the
 * tracing files of later data kinds).
 *
 * A data file is a sequence of 64 KiB blocks.  Each producer owns a cursor
 * and fills one block at a time in memory; blocks are reserved with one
 * atomic add on the file, so producers never take a lock.  A flush writes
 * the new packets followed by an EMPTY packet covering the rest of the
 * block, so whatever is on disk at any moment (after a crash or kill -9, or
 * while gprofng reads a live experiment) is a valid packet sequence.
 *
 * Disk space is reserved (fallocate, FALLOC_FL_KEEP_SIZE) before a flush
 * writes into it, so a full disk stops the data at the last good flush, with
 * its EMPTY trailer, every earlier block complete.  A flush that still fails puts the EMPTY
 * trailer back where the last good flush left it; its packets are counted
 * as not written.  The first failure stops all files sharing the budget.
 *
 * Thread and signal safety: er_cursor_append and er_cursor_flush use only
 * memcpy, pwrite, fallocate and atomics: they are async-signal-safe.  One cursor
 * must not be used by two threads (or a thread and its own signal handler)
 * at once; the file may be shared by any number of cursors.  */
#ifndef ER_DATAFILE_H
#define ER_DATAFILE_H

#include <stddef.h>
#include <stdint.h>

#include "er/er_format.h"

/* A cap on the bytes all data files of an experiment may take together
 * (`collector limit`).  Blocks are granted against it with atomic adds, so
 * the check costs no lock and stays async-signal-safe; a refused block
 * sets EXHAUSTED, after which nothing more is granted.  Sample points
 * (log.xml, overview) are not data files and never count. */
struct er_budget {
  uint64_t limit_bytes; /* 0: no limit */
  uint64_t used_bytes;  /* accessed atomically */
  int exhausted;        /* accessed atomically: no more blocks */
  int stop_errno;       /* why: ER_BUDGET_LIMIT, else the write error */
};

/* The stop reason of a budget its limit stopped (not an errno value). */
#define ER_BUDGET_LIMIT 0x10000

struct er_datafile {
  int fd;
  uint64_t next_block_offset; /* accessed atomically */
  uint64_t bytes_reserved;    /* accessed atomically: blocks handed out */
  struct er_budget *budget;   /* its own (unlimited) unless shared */
  struct er_budget own_budget;
};

struct er_cursor {
  struct er_datafile *file;
  uint64_t block_offset; /* file offset of the block in buf */
  uint32_t used;         /* bytes of packets in buf */
  uint32_t flushed;      /* bytes of buf already on disk */
  int has_block;
  uint32_t reserved;     /* bytes of the block with disk space reserved */
  uint64_t pending;      /* packets appended, not yet on disk */
  uint64_t written;      /* packets on disk */
  uint64_t lost;         /* packets appended whose flush failed */
  uint64_t marked_pending, marked_written; /* of pending and written: those er_cursor_mark_last marked */
  unsigned char buf[ER_BLOCK_SIZE];
};

/* Creates NAME in the directory DIRFD (never following a symlink, never
 * replacing a file).  Returns 0 or a negative errno. */
int er_datafile_create(struct er_datafile *file, int dirfd, const char *name);
void er_datafile_close(struct er_datafile *file);
/* Charges FILE's later blocks to BUDGET (shared by several files). */
void er_datafile_set_budget(struct er_datafile *file, struct er_budget *budget);

void er_budget_init(struct er_budget *budget, uint64_t limit_bytes);
int er_budget_exhausted(const struct er_budget *budget);
/* Stops BUDGET for good with ERR (the first reason is kept). */
void er_budget_stop(struct er_budget *budget, int err);
/* ER_BUDGET_LIMIT when the limit stopped it, the errno of a write error,
 * 0 while it goes on. */
int er_budget_stop_errno(const struct er_budget *budget);
uint64_t er_budget_used(const struct er_budget *budget);

void er_cursor_init(struct er_cursor *cursor, struct er_datafile *file);
/* Appends one packet (its tsize must equal LEN, a multiple of 8, at most
 * one block minus 8).  Returns 0 or a negative errno: -EFBIG once the
 * file's budget is spent, -ENOSPC (or the write error) once the disk
 * refused (the packet is dropped). */
int er_cursor_append(struct er_cursor *cursor, const void *packet, size_t len);
/* Marks the packet just appended as one of a second kind (off-CPU clock
 * packets among CPU samples): marked_written counts those on disk. */
void er_cursor_mark_last(struct er_cursor *cursor);
/* Nonzero when appending LEN bytes would finish the current block (writing
 * it out): a caller that orders two files flushes the other one first. */
int er_cursor_would_close_block(const struct er_cursor *cursor, size_t len);
/* Gives up what was appended since the last flush (counted in LOST) and
 * stops the file's budget with ERR: what depended on another file that
 * could not be written. */
void er_cursor_abandon(struct er_cursor *cursor, int err);
/* Makes everything appended so far durable in the file (then counted in
 * WRITTEN, else in LOST). */
int er_cursor_flush(struct er_cursor *cursor);

#endif
