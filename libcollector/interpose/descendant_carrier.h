/* Carrying the runtime into what the program execs or spawns. */
#ifndef COL_INTERPOSE_DESCENDANT_CARRIER_H
#define COL_INTERPOSE_DESCENDANT_CARRIER_H

#include <limits.h>
#include <stddef.h>

/* This process passes the runtime on to what it execs or spawns; it is
 * itself a descendant that received it. */
extern int col_carrier_active, col_is_descendant;
/* The founder, descendants followed: carry the session STATUS_PATH on. */
void col_carrier_start(const char *status_path);
/* In a descendant's runtime at start: the carried session's status file
 * into STATUS_PATH, the carrier removed from the environment; 0 if none. */
int col_carrier_adopt(char *status_path, size_t len);
/* This library's path (absolute), or NULL where it cannot be told. */
const char *col_carrier_runtime_path(void);
/* The runtime taken out of LD_PRELOAD, where the carrier (or an MPI
 * launcher's forwarding) put it in front of the user's. */
void col_carrier_unpreload(void);
/* The environment an exec passes on: ENVP with the carrier (ENVP itself
 * when nothing is carried).  SLOTS: col_carrier_slots(ENVP) pointers. */
struct col_carrier {
  char preload[2 * PATH_MAX + 16];
  char descendant[PATH_MAX + 32];
};
size_t col_carrier_slots(char *const envp[]);
char *const *col_carrier_env(char *const envp[], const char **slots, size_t n_slots, struct col_carrier *c);
/* Declares ENV: ENVP with the runtime carried on (on the caller's stack:
 * exec wrappers may run between vfork and exec). */
#define CARRIED(env, envp)                          \
  struct col_carrier carrier_;                      \
  size_t n_slots_ = col_carrier_slots(envp);        \
  const char *slots_[n_slots_];                     \
  char *const *env = col_carrier_env(envp, slots_, n_slots_, &carrier_)
/* For system and popen, whose shell gets the program's own environment:
 * "export LD_PRELOAD=... GDBCOL_DESCENDANT=...; " to put before the
 * command.  0 when nothing is carried (or it does not fit). */
int col_carrier_shell_prefix(char *out, size_t len);

#endif
