/* The stack store every data writer shares: each distinct call stack once
 * in data.frameinfo, named by its id (FRINFO), and on disk before any
 * packet that uses it. */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/mman.h>

#include "core/data_limit.h"
#include "core/experiment_log.h"
#include "core/module_map.h"
#include "core/stack_store.h"
#include "er/er_stacks.h"

static struct er_cursor *frames_out;
static struct er_idset seen_stacks;
static uint64_t frames_lost_seen;

void *col_map_zeroed(size_t bytes)
{
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

static void (*lost_stack)(int err);

int col_stack_store_start(void (*on_lost_stack)(int err))
{
  lost_stack = on_lost_stack;
  frames_lost_seen = 0;
  if (frames_out == NULL)
    frames_out = col_map_zeroed(sizeof *frames_out);
  if (frames_out == NULL)
    return -ENOMEM;
  er_cursor_init(frames_out, &col_exp.frameinfo);
  static int seen_stacks_ready;
  if (seen_stacks_ready)
    er_idset_destroy(&seen_stacks); /* a new experiment: a new data.frameinfo */
  er_idset_init(&seen_stacks);
  seen_stacks_ready = 1;
  return 0;
}

uint64_t col_writer_stack_id(const uint64_t *pcs, size_t n)
{
  return col_writer_stack_id_state(pcs, n, 0, NULL, 0);
}

uint64_t col_writer_stack_id_state(const uint64_t *pcs, size_t n, int omp_state, const uint64_t *user, size_t user_n)
{
  size_t known = seen_stacks.count;
  uint64_t id = er_frameinfo_record_state(frames_out, &seen_stacks, pcs, n, (unsigned)omp_state, user, user_n);
  if (seen_stacks.count != known) /* a new stack: the libraries it runs in are the program's */
    col_modules_note_stack(pcs, n);
  return id;
}

int col_writer_may_append(struct er_cursor *cursor, uint64_t frinfo, size_t size)
{
  if (frinfo == 0 && col_limit_reached())
    return 0;
  return !er_cursor_would_close_block(cursor, size) || col_writer_stacks_on_disk();
}

/* Writes data.frameinfo; when any stack since the last check did not reach
 * the disk, the packets not yet written may point at it: every data
 * writer gives them up.  Nonzero when data packets may be written. */
int col_writer_stacks_on_disk(void)
{
  int rc = er_cursor_flush(frames_out);
  if (rc == 0 && frames_out->lost == frames_lost_seen)
    return 1;
  frames_lost_seen = frames_out->lost;
  int err = er_budget_stop_errno(frames_out->file->budget);
  lost_stack(rc != 0 ? -rc : err != 0 ? err : ENOSPC);
  return 0;
}
