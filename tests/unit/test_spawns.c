/* Which call a spawned child belongs to (libcollector/sampler/sampler_spawns.c):
 * with perf events, the fork record's thread and time inside the call; with
 * perf events refused, the child's pid that the call's end told, else the
 * earliest unclaimed call (Debian 13's back-to-back posix_spawn and
 * pidfd_spawn children were named after each other's calls: the latest
 * unclaimed call was taken). */
#include <string.h>

#include "sampler_spawns.h"
#include "test_util.h"

static int claim(pid_t child, pid_t ppid, pid_t ptid, int64_t t, const char *want_variant, const char *want_command)
{
  char variant[16] = "", command[96] = "";
  int got = spawns_claim(child, ppid, ptid, t, variant, sizeof variant, command, sizeof command);
  return got == 1 && strcmp(variant, want_variant) == 0 && strcmp(command, want_command) == 0;
}

int main(void)
{
  /* Perf events: the fork record of thread 11 at 15, inside its call. */
  spawns_begin(10, 11, 10, "posix_spawn", "/bin/a");
  CHECK(claim(12, 10, 11, 15, "posix_spawn", "/bin/a"));
  spawns_end(10, 11, 12, 20);
  /* ...and a later fork of that thread is a plain one (one child a call). */
  char v[16], c[96];
  CHECK(spawns_claim(13, 10, 11, 30, v, sizeof v, c, sizeof c) == 0);

  /* Perf events refused: four calls of one round, all ended, children
   * 101..104 told; their news arrive in another order. */
  spawns_begin(100, 100, 100, "posix_spawn", "one");
  spawns_end(100, 100, 101, 101);
  spawns_begin(100, 100, 102, "pidfd_spawn", "two");
  spawns_end(100, 100, 102, 103);
  spawns_begin(100, 100, 104, "posix_spawn", "three");
  spawns_end(100, 100, 103, 105);
  spawns_begin(100, 100, 106, "pidfd_spawn", "four");
  spawns_end(100, 100, 104, 107);
  CHECK(claim(103, 100, SPAWNS_ANY_PROGRAM, 200, "posix_spawn", "three"));
  CHECK(claim(101, 100, SPAWNS_ANY_PROGRAM, 201, "posix_spawn", "one"));
  CHECK(claim(104, 100, SPAWNS_ANY_PROGRAM, 202, "pidfd_spawn", "four"));
  CHECK(claim(102, 100, SPAWNS_ANY_PROGRAM, 203, "pidfd_spawn", "two"));

  /* Children not told (a call still running when its child's news came):
   * the earliest unclaimed call first, never one told of another child. */
  spawns_begin(300, 300, 300, "posix_spawn", "first");
  spawns_begin(300, 301, 301, "posix_spawnp", "second");
  spawns_end(300, 301, 999, 302); /* its child is 999 */
  spawns_begin(300, 302, 303, "pidfd_spawn", "third");
  CHECK(claim(310, 300, SPAWNS_ANY_PROGRAM, 400, "posix_spawn", "first"));
  CHECK(claim(311, 300, SPAWNS_ANY_PROGRAM, 401, "pidfd_spawn", "third"));
  CHECK(claim(999, 300, SPAWNS_ANY_PROGRAM, 402, "posix_spawnp", "second"));

  /* A shell's child (system, popen) claims only those calls. */
  spawns_begin(500, 500, 500, "system", "ls");
  spawns_begin(500, 500, 501, "posix_spawn", "prog");
  CHECK(claim(510, 500, SPAWNS_ANY_SHELL, 600, "system", "ls"));
  CHECK(claim(511, 500, SPAWNS_ANY_PROGRAM, 601, "posix_spawn", "prog"));
  return TEST_EXIT();
}
