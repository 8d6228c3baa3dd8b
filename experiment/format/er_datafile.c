/* Block writer for binary data files; see er/er_datafile.h. */
#define _GNU_SOURCE
#include "er/er_datafile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "er/er_fileutil.h"

/* Disk space is reserved for a block in steps of this much. */
#define ER_RESERVE_STEP (16 * 1024)

int er_datafile_create(struct er_datafile *file, int dirfd, const char *name)
{
  int fd = er_create_exclusive(dirfd, name, O_RDWR);
  if (fd < 0)
    return fd; /* FILE is left as it was */
  memset(file, 0, sizeof *file);
  file->fd = fd;
  er_budget_init(&file->own_budget, 0);
  file->budget = &file->own_budget;
  return 0;
}

void er_datafile_close(struct er_datafile *file)
{
  struct stat st;
  /* Space reserved past the last flush goes back to the file system. */
  if (file->fd >= 0 && fstat(file->fd, &st) == 0)
    while (ftruncate(file->fd, st.st_size) != 0 && errno == EINTR)
      ;
  if (file->fd >= 0)
    close(file->fd);
  file->fd = -1;
}

void er_datafile_set_budget(struct er_datafile *file, struct er_budget *budget)
{
  file->budget = budget != NULL ? budget : &file->own_budget;
}

void er_budget_init(struct er_budget *budget, uint64_t limit_bytes)
{
  budget->limit_bytes = limit_bytes;
  budget->used_bytes = 0;
  budget->exhausted = 0;
  budget->stop_errno = 0;
}

void er_budget_stop(struct er_budget *budget, int err)
{
  int none = 0;
  __atomic_compare_exchange_n(&budget->stop_errno, &none, err, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  __atomic_store_n(&budget->exhausted, 1, __ATOMIC_RELEASE);
}

int er_budget_stop_errno(const struct er_budget *budget)
{
  return __atomic_load_n(&budget->stop_errno, __ATOMIC_RELAXED);
}

int er_budget_exhausted(const struct er_budget *budget)
{
  return __atomic_load_n(&budget->exhausted, __ATOMIC_RELAXED);
}

uint64_t er_budget_used(const struct er_budget *budget)
{
  return __atomic_load_n(&budget->used_bytes, __ATOMIC_RELAXED);
}

/* One block from BUDGET: 0, or -EFBIG (and the budget is marked spent). */
static int charge_block(struct er_budget *budget)
{
  if (__atomic_load_n(&budget->exhausted, __ATOMIC_RELAXED)) {
    int err = er_budget_stop_errno(budget);
    return -(err && err != ER_BUDGET_LIMIT ? err : EFBIG);
  }
  uint64_t before = __atomic_fetch_add(&budget->used_bytes, ER_BLOCK_SIZE, __ATOMIC_RELAXED);
  if (budget->limit_bytes == 0 || before + ER_BLOCK_SIZE <= budget->limit_bytes)
    return 0;
  __atomic_fetch_sub(&budget->used_bytes, ER_BLOCK_SIZE, __ATOMIC_RELAXED);
  er_budget_stop(budget, ER_BUDGET_LIMIT);
  return -EFBIG;
}

void er_cursor_init(struct er_cursor *cursor, struct er_datafile *file)
{
  cursor->file = file;
  cursor->block_offset = 0;
  cursor->used = 0;
  cursor->flushed = 0;
  cursor->has_block = 0;
  cursor->pending = cursor->written = cursor->lost = 0;
  cursor->marked_pending = cursor->marked_written = 0;
}

static int write_fully_at(int fd, const unsigned char *bytes, size_t len, uint64_t offset)
{
  while (len > 0) {
    ssize_t n = pwrite(fd, bytes, len, (off_t)offset);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return -errno;
    }
    bytes += n;
    len -= (size_t)n;
    offset += (uint64_t)n;
  }
  return 0;
}

/* A flush failed part way: the EMPTY trailer goes back where the last good
 * flush ended (bytes already allocated, so this write needs no new space),
 * the packets are given up, and the data stops. */
static void abandon_unflushed(struct er_cursor *cursor, int err)
{
  struct er_packet_header trailer = {(uint16_t)(ER_BLOCK_SIZE - cursor->flushed), ER_PKT_EMPTY};
  if (cursor->flushed < ER_BLOCK_SIZE)
    write_fully_at(cursor->file->fd, (const unsigned char *)&trailer, sizeof trailer,
                   cursor->block_offset + cursor->flushed);
  cursor->lost += cursor->pending;
  cursor->used = cursor->flushed;
  cursor->has_block = 0;
  er_budget_stop(cursor->file->budget, err);
}

/* Disk space for the block up to END, in steps: a file system that runs
 * out refuses here, before a byte is written.  One that cannot reserve at
 * all is written without (the write itself is then checked). */
static int reserve_block_space(struct er_cursor *cursor, size_t end)
{
  int rc = er_check_file_size_limit(cursor->block_offset + end);
  if (rc != 0 || end <= cursor->reserved)
    return rc;
  size_t target = (end + ER_RESERVE_STEP - 1) / ER_RESERVE_STEP * ER_RESERVE_STEP;
  if (target > ER_BLOCK_SIZE)
    target = ER_BLOCK_SIZE;
  if (fallocate(cursor->file->fd, FALLOC_FL_KEEP_SIZE, (off_t)(cursor->block_offset + cursor->reserved),
                (off_t)(target - cursor->reserved)) != 0 &&
      (errno == ENOSPC || errno == EDQUOT || errno == EFBIG || errno == EIO))
    return -errno;
  cursor->reserved = target;
  return 0;
}

/* Writes the unflushed packets plus a trailer describing the rest of the
 * block: EMPTY while the block may still grow, CLOSED when it is done. */
static int flush_with_trailer(struct er_cursor *cursor, uint16_t trailer_type)
{
  if (!cursor->has_block || cursor->used == 0)
    return 0;
  size_t rest = ER_BLOCK_SIZE - cursor->used;
  size_t end = cursor->used;
  if (rest > 0) {
    struct er_packet_header trailer = {(uint16_t)rest, trailer_type};
    memcpy(cursor->buf + cursor->used, &trailer, sizeof trailer);
    end += sizeof trailer;
  }
  int rc = reserve_block_space(cursor, end);
  if (rc != 0) {
    abandon_unflushed(cursor, -rc);
    cursor->pending = cursor->marked_pending = 0;
    return rc;
  }
  rc = write_fully_at(cursor->file->fd, cursor->buf + cursor->flushed, end - cursor->flushed,
                          cursor->block_offset + cursor->flushed);
  if (rc == 0) {
    cursor->flushed = cursor->used;
    cursor->written += cursor->pending;
    cursor->marked_written += cursor->marked_pending;
  } else {
    abandon_unflushed(cursor, -rc);
  }
  cursor->pending = cursor->marked_pending = 0;
  return rc;
}

static int take_new_block(struct er_cursor *cursor)
{
  int rc = charge_block(cursor->file->budget);
  if (rc < 0)
    return rc;
  cursor->block_offset = __atomic_fetch_add(&cursor->file->next_block_offset, ER_BLOCK_SIZE, __ATOMIC_RELAXED);
  cursor->reserved = 0;
  __atomic_fetch_add(&cursor->file->bytes_reserved, ER_BLOCK_SIZE, __ATOMIC_RELAXED);
  cursor->used = 0;
  cursor->flushed = 0;
  cursor->has_block = 1;
  return 0;
}

int er_cursor_append(struct er_cursor *cursor, const void *packet, size_t len)
{
  if (len == 0 || len % 8 != 0 || len > ER_BLOCK_SIZE - 8)
    return -EINVAL;
  /* Keep room for the 4-byte trailer unless the packet fills the block. */
  if (cursor->has_block && cursor->used + len != ER_BLOCK_SIZE && cursor->used + len + 8 > ER_BLOCK_SIZE) {
    int rc = flush_with_trailer(cursor, ER_PKT_CLOSED);
    if (rc < 0)
      return rc;
    cursor->has_block = 0;
  }
  if (!cursor->has_block) {
    int rc = take_new_block(cursor);
    if (rc < 0)
      return rc;
  }
  memcpy(cursor->buf + cursor->used, packet, len);
  cursor->used += (uint32_t)len;
  cursor->pending++;
  return 0;
}

int er_cursor_would_close_block(const struct er_cursor *cursor, size_t len)
{
  return cursor->has_block && cursor->used + len != ER_BLOCK_SIZE && cursor->used + len + 8 > ER_BLOCK_SIZE;
}

void er_cursor_abandon(struct er_cursor *cursor, int err)
{
  if (cursor->has_block && cursor->pending > 0)
    abandon_unflushed(cursor, err);
  cursor->pending = cursor->marked_pending = 0;
}

void er_cursor_mark_last(struct er_cursor *cursor)
{
  cursor->marked_pending++;
}

int er_cursor_flush(struct er_cursor *cursor)
{
  return flush_with_trailer(cursor, ER_PKT_EMPTY);
}
