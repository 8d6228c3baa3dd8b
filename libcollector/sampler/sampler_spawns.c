/* The spawn calls in progress, by thread: a fork by a thread while it is
 * inside system, popen, posix_spawn or posix_spawnp is that call's child.
 * Each thread is in at most one such call at a time; a handful of threads
 * spawn at once in practice, so a small table searched in full serves. */
#define _GNU_SOURCE
#include <stdio.h>

#include "sampler_spawns.h"

#define SPAWN_SLOTS 64

struct spawn_call {
  pid_t pid, tid;
  int64_t began, ended; /* ended: INT64_MAX while in the call */
  char variant[16], command[96];
};

static struct spawn_call calls[SPAWN_SLOTS];
static unsigned next_victim;

static struct spawn_call *find(pid_t pid, pid_t tid)
{
  for (int i = 0; i < SPAWN_SLOTS; i++)
    if (calls[i].tid == tid && calls[i].pid == pid)
      return &calls[i];
  return NULL;
}

void spawns_begin(pid_t pid, pid_t tid, int64_t tstamp, const char *variant, const char *command)
{
  struct spawn_call *c = find(pid, tid);
  if (c == NULL) {
    for (int i = 0; i < SPAWN_SLOTS && c == NULL; i++)
      if (calls[i].tid == 0)
        c = &calls[i];
    if (c == NULL) /* full: the oldest announcements are the least likely to matter */
      c = &calls[next_victim++ % SPAWN_SLOTS];
  }
  *c = (struct spawn_call){pid, tid, tstamp, INT64_MAX, "", ""};
  snprintf(c->variant, sizeof c->variant, "%s", variant);
  snprintf(c->command, sizeof c->command, "%s", command);
}

void spawns_end(pid_t pid, pid_t tid, int64_t tstamp)
{
  struct spawn_call *c = find(pid, tid);
  if (c != NULL)
    c->ended = tstamp;
}

int spawns_claim(pid_t ppid, pid_t ptid, int64_t tstamp, char *variant, size_t variant_len, char *command,
                 size_t command_len)
{
  struct spawn_call *c = find(ppid, ptid);
  if (c == NULL || tstamp < c->began || tstamp > c->ended)
    return 0;
  snprintf(variant, variant_len, "%s", c->variant);
  snprintf(command, command_len, "%s", c->command);
  c->ended = c->began - 1; /* one child per call: a later fork is plain */
  return 1;
}
