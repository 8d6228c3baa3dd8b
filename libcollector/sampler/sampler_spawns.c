/* The spawn calls announced, by thread: a fork by a thread while it is
 * inside system, popen, posix_spawn, posix_spawnp, pidfd_spawn or
 * pidfd_spawnp is that call's child.  The control page is read before the
 * rings' records, and a round's records lag it by the ring cutoff, so one
 * thread's calls can all be announced (begun and ended) before the first
 * of their fork records is taken: gcc 14 and make 4.4 spawn (cc1, then as;
 * every job) a few milliseconds apart.  So each call keeps its own entry
 * until its child claims it; an entry per thread, overwritten by the
 * thread's next call, left all but the last child of a round named as
 * forks (4 of 5 back-to-back posix_spawns were _fN.er).  A call whose
 * child never comes (the spawn failed before its clone) stays until the
 * table is full: the oldest entries go first. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "sampler_spawns.h"

#define SPAWN_SLOTS 256

struct spawn_call {
  pid_t pid, tid; /* tid 0: a free entry */
  pid_t child; /* told at the call's end where the call gives it, else 0 */
  int64_t began, ended; /* ended: INT64_MAX while in the call */
  char variant[16], command[96];
};

static struct spawn_call calls[SPAWN_SLOTS];

void spawns_begin(pid_t pid, pid_t tid, int64_t tstamp, const char *variant, const char *command)
{
  struct spawn_call *c = NULL;
  for (int i = 0; i < SPAWN_SLOTS; i++) {
    if (calls[i].tid == 0) {
      c = &calls[i];
      break;
    }
    if (c == NULL || calls[i].began < c->began) /* full: the oldest announcement is the least likely to matter */
      c = &calls[i];
  }
  *c = (struct spawn_call){pid, tid, 0, tstamp, INT64_MAX, "", ""};
  snprintf(c->variant, sizeof c->variant, "%s", variant);
  snprintf(c->command, sizeof c->command, "%s", command);
}

/* The latest call of thread TID of process PID that began at or before
 * TSTAMP and (OPEN) has not ended, or (else) was in progress at TSTAMP.
 * TID SPAWNS_ANY_PROGRAM or SPAWNS_ANY_SHELL: a child (CHILD) seen first at
 * its exec, perf events refused; its new image starts after its call
 * began, so: the call that told CHILD as its child, else the earliest
 * unclaimed call of PID begun before whose child is not known to be
 * another (children of one round exec in the order they were spawned),
 * of the calls that start a program, or of those that start a shell. */
static struct spawn_call *find(pid_t pid, pid_t tid, pid_t child, int64_t tstamp, int open)
{
  struct spawn_call *found = NULL;
  int any = tid == SPAWNS_ANY_PROGRAM || tid == SPAWNS_ANY_SHELL;
  for (int i = 0; i < SPAWN_SLOTS; i++) {
    struct spawn_call *c = &calls[i];
    int shell = strcmp(c->variant, "system") == 0 || strcmp(c->variant, "popen") == 0;
    if (any && (c->tid == 0 || c->pid != pid || shell != (tid == SPAWNS_ANY_SHELL)))
      continue;
    if (any && child > 0 && c->child == child)
      return c;
    if (any && (c->began > tstamp || (c->child > 0 && c->child != child)))
      continue;
    if (!any && (c->tid != tid || c->pid != pid || c->began > tstamp ||
                 (open ? c->ended != INT64_MAX : tstamp > c->ended)))
      continue;
    if (found == NULL || (any ? c->began < found->began : c->began > found->began))
      found = c;
  }
  return found;
}

void spawns_end(pid_t pid, pid_t tid, pid_t child, int64_t tstamp)
{
  struct spawn_call *c = find(pid, tid, 0, tstamp, 1);
  if (c != NULL) {
    c->ended = tstamp;
    c->child = child;
  }
}


int spawns_claim(pid_t child, pid_t ppid, pid_t ptid, int64_t tstamp, char *variant, size_t variant_len,
                 char *command, size_t command_len)
{
  struct spawn_call *c = find(ppid, ptid, child, tstamp, 0);
  if (c == NULL)
    return 0;
  snprintf(variant, variant_len, "%s", c->variant);
  snprintf(command, command_len, "%s", c->command);
  c->tid = 0; /* one child per call: a later fork is plain */
  return 1;
}

unsigned spawns_take_unclaimed(pid_t pid, void (*fn)(const char *command))
{
  unsigned n = 0;
  for (int i = 0; i < SPAWN_SLOTS; i++)
    if (calls[i].tid != 0 && calls[i].pid == pid && calls[i].ended != INT64_MAX) {
      fn(calls[i].command);
      calls[i].tid = 0;
      n++;
    }
  return n;
}
