/* The session directory's members and its removal: see session_dir.h. */
#define _GNU_SOURCE
#include "session_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "er/er_fileutil.h"

#define TOKEN_PREFIX "sampler-"

/* The directory of STATUS_PATH and the status file's name in it. */
static int split(const char *status_path, char *dir, size_t dir_len, const char **name)
{
  const char *slash = strrchr(status_path, '/');
  if (status_path[0] == '\0' || slash == NULL || (size_t)(slash - status_path) >= dir_len)
    return -1;
  memcpy(dir, status_path, (size_t)(slash - status_path));
  dir[slash - status_path] = '\0';
  if (dir[0] == '\0')
    strcpy(dir, "/");
  *name = slash + 1;
  return 0;
}

/* This process's token in DIR. */
static void own_token(const char *dir, char *out, size_t len)
{
  snprintf(out, len, "%s/" TOKEN_PREFIX "%d", dir, (int)getpid());
}

void session_dir_join(const char *status_path)
{
  char dir[PATH_MAX], token[PATH_MAX + 32];
  const char *name;
  if (split(status_path, dir, sizeof dir, &name) != 0)
    return;
  own_token(dir, token, sizeof token);
  int fd = open(token, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd >= 0)
    close(fd);
}

/* NAME is a member's token: its pid, else 0. */
static long token_pid(const char *name)
{
  const char *digits = NULL;
  if (strncmp(name, "gdb-", 4) == 0)
    digits = name + 4;
  else if (strncmp(name, "rank-", 5) == 0) /* an MPI rank that started its own (runtime/outside_rank.c) */
    digits = name + 5;
  else if (strncmp(name, TOKEN_PREFIX, strlen(TOKEN_PREFIX)) == 0)
    digits = name + strlen(TOKEN_PREFIX);
  if (digits == NULL || *digits == '\0')
    return 0;
  char *end;
  long pid = strtol(digits, &end, 10);
  return *end == '\0' && pid > 0 ? pid : 0;
}

/* A file of the session: the status file, its control page and trace ring,
 * a member's token.  Nothing else is removed (so rmdir fails where
 * something else was put there). */
static int session_file(const char *name, const char *status_name)
{
  size_t n = strlen(status_name);
  return token_pid(name) != 0 || strcmp(name, status_name) == 0 ||
         (strncmp(name, status_name, n) == 0 && (strcmp(name + n, ".control") == 0 || strcmp(name + n, ".trace") == 0));
}

/* Is the member process of STAT_PATH still there?  One that is exiting
 * (the kernel's PF_EXITING in its flags: the sampler may see a recorded
 * process's end before the process is a zombie) is waited for, up to a
 * second, so that a directory whose last members end together is not left
 * behind by both. */
#define PF_EXITING_FLAG 0x4u
static int member_alive(const char *stat_path)
{
  for (int tries = 0; tries < 100; tries++) {
    char text[512];
    const char *fields = er_proc_stat_fields(stat_path, text, sizeof text);
    unsigned flags = 0;
    if (fields == NULL || fields[0] == 'Z' || fields[0] == 'X')
      return 0;
    if (sscanf(fields, "%*c %*d %*d %*d %*d %*d %u", &flags) != 1 || !(flags & PF_EXITING_FLAG))
      return 1;
    usleep(10000);
  }
  return 1;
}

void session_dir_leave(const char *status_path)
{
  char dir[PATH_MAX], token[PATH_MAX + 32];
  const char *status_name;
  if (split(status_path, dir, sizeof dir, &status_name) != 0)
    return;
  own_token(dir, token, sizeof token);
  unlink(token);
  int dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  DIR *d = dir_fd >= 0 ? fdopendir(dir_fd) : NULL;
  if (d == NULL) {
    if (dir_fd >= 0)
      close(dir_fd);
    return;
  }
  int members = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    long pid = token_pid(e->d_name);
    char stat[64];
    snprintf(stat, sizeof stat, "/proc/%ld/stat", pid);
    members += pid != 0 && member_alive(stat);
  }
  if (members == 0) {
    rewinddir(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;)
      if (session_file(e->d_name, status_name))
        unlinkat(dir_fd, e->d_name, 0);
    rmdir(dir);
  }
  closedir(d);
}

static char first_status_path[PATH_MAX];

void session_dir_begin(const char *status_path)
{
  snprintf(first_status_path, sizeof first_status_path, "%s", status_path);
  session_dir_join(first_status_path);
}

int session_dir_began_beside(const char *status_path)
{
  return strcmp(status_path, first_status_path) == 0;
}

const char *session_dir_first(void)
{
  return first_status_path;
}
