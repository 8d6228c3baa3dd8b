/* Carrying the runtime into descendants, for what only the runtime can do
 * inside a process (the Collector API, spawn announcements, later the
 * tracing kinds).  Clock profiling needs none of it: the sampler process
 * sees descendants from outside.
 *
 * The program's own environment stays as the user gave it (the runtime
 * removed its variables before main); the runtime is added only to the
 * environment an exec or spawn passes on: LD_PRELOAD gets the runtime in
 * front of what the program asked for, and GDBCOL_DESCENDANT names the
 * session's status file, whose control page the descendant's runtime maps.
 * So a program that empties or rebuilds its environment before exec still
 * passes the runtime on, as gprofng's collector does.  A descendant's
 * runtime removes both again before its program's main.
 *
 * Exec wrappers may run in a child between vfork and exec: everything here
 * works on the caller's stack and buffers set up at start, no allocation. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interpose/descendant_carrier.h"

#define CARRIER_VARIABLE "GDBCOL_DESCENDANT"

int col_carrier_active;
int col_is_descendant;
static char runtime_path[PATH_MAX];
static char session_status[PATH_MAX];

static int find_runtime_path(void)
{
  Dl_info info;
  if (dladdr((void *)col_carrier_start, &info) == 0 || info.dli_fname == NULL || info.dli_fname[0] != '/')
    return -1;
  snprintf(runtime_path, sizeof runtime_path, "%s", info.dli_fname);
  return 0;
}

void col_carrier_start(const char *status_path)
{
  if (status_path == NULL || status_path[0] == '\0' || strlen(status_path) >= sizeof session_status ||
      find_runtime_path() != 0)
    return;
  snprintf(session_status, sizeof session_status, "%s", status_path);
  col_carrier_active = 1;
}

/* LD_PRELOAD's VALUE without the runtime in front (as the carrier put it). */
static const char *without_runtime(const char *value)
{
  size_t n = strlen(runtime_path);
  if (n == 0 || strncmp(value, runtime_path, n) != 0 || (value[n] != '\0' && value[n] != ':' && value[n] != ' '))
    return value;
  value += n;
  while (*value == ':' || *value == ' ')
    value++;
  return value;
}

int col_carrier_adopt(char *status_path, size_t len)
{
  const char *carried = getenv(CARRIER_VARIABLE);
  if (carried == NULL || carried[0] != '/' || find_runtime_path() != 0)
    return 0;
  snprintf(status_path, len, "%s", carried);
  unsetenv(CARRIER_VARIABLE);
  col_carrier_unpreload();
  col_carrier_start(status_path);
  col_is_descendant = 1;
  return 1;
}

const char *col_carrier_runtime_path(void)
{
  return runtime_path[0] != '\0' || find_runtime_path() == 0 ? runtime_path : NULL;
}

void col_carrier_unpreload(void)
{
  if (col_carrier_runtime_path() == NULL)
    return;
  const char *preload = getenv("LD_PRELOAD");
  if (preload != NULL) {
    const char *rest = without_runtime(preload);
    if (rest[0] == '\0')
      unsetenv("LD_PRELOAD");
    else if (rest != preload) {
      char kept[2 * PATH_MAX];
      snprintf(kept, sizeof kept, "%s", rest);
      setenv("LD_PRELOAD", kept, 1);
    }
  }
}

size_t col_carrier_slots(char *const envp[])
{
  size_t n = 0;
  while (envp != NULL && envp[n] != NULL)
    n++;
  return n + 3; /* LD_PRELOAD, ours, the end */
}

static int starts_with_name(const char *entry, const char *name)
{
  size_t n = strlen(name);
  return strncmp(entry, name, n) == 0 && entry[n] == '=';
}

char *const *col_carrier_env(char *const envp[], const char **slots, size_t n_slots, struct col_carrier *c)
{
  if (!col_carrier_active)
    return envp;
  const char *user_preload = NULL;
  size_t n = 0;
  for (size_t i = 0; envp != NULL && envp[i] != NULL && n + 3 <= n_slots; i++) {
    if (starts_with_name(envp[i], "LD_PRELOAD"))
      user_preload = without_runtime(envp[i] + sizeof "LD_PRELOAD");
    else if (!starts_with_name(envp[i], CARRIER_VARIABLE))
      slots[n++] = envp[i];
  }
  if (user_preload != NULL && user_preload[0] != '\0')
    snprintf(c->preload, sizeof c->preload, "LD_PRELOAD=%s:%s", runtime_path, user_preload);
  else
    snprintf(c->preload, sizeof c->preload, "LD_PRELOAD=%s", runtime_path);
  snprintf(c->descendant, sizeof c->descendant, "%s=%s", CARRIER_VARIABLE, session_status);
  slots[n++] = c->preload;
  slots[n++] = c->descendant;
  slots[n] = NULL;
  return (char *const *)slots;
}

int col_carrier_shell_prefix(char *out, size_t len)
{
  if (!col_carrier_active)
    return 0;
  /* Single quotes protect every character but the quote itself. */
  const char *values[2] = {NULL, session_status};
  char preload[2 * PATH_MAX];
  const char *user = getenv("LD_PRELOAD");
  user = user != NULL ? without_runtime(user) : "";
  snprintf(preload, sizeof preload, "%s%s%s", runtime_path, user[0] != '\0' ? ":" : "", user);
  values[0] = preload;
  const char *names[2] = {"LD_PRELOAD", CARRIER_VARIABLE};
  size_t at = 0;
  at += (size_t)snprintf(out + at, len - at, "export");
  for (int v = 0; v < 2 && at < len; v++) {
    at += (size_t)snprintf(out + at, len - at, " %s='", names[v]);
    for (const char *p = values[v]; *p != '\0' && at + 5 < len; p++) {
      if (*p == '\'')
        at += (size_t)snprintf(out + at, len - at, "'\\''");
      else
        out[at++] = *p;
    }
    if (at + 2 >= len)
      return 0;
    out[at++] = '\'';
    out[at] = '\0';
  }
  if (at + 3 >= len)
    return 0;
  memcpy(out + at, "; ", 3);
  return 1;
}
