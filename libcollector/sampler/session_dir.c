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

void session_dir_join(const char *status_path)
{
  char dir[PATH_MAX], token[PATH_MAX + 32];
  const char *name;
  if (split(status_path, dir, sizeof dir, &name) != 0)
    return;
  snprintf(token, sizeof token, "%s/" TOKEN_PREFIX "%d", dir, (int)getpid());
  int fd = open(token, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd >= 0)
    close(fd);
}

/* A process that has not ended (a zombie has). */
static int process_alive(long pid)
{
  char path[64], text[512];
  snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  if (n <= 0)
    return 0;
  text[n] = '\0';
  const char *paren = strrchr(text, ')');
  return paren != NULL && paren[1] == ' ' && paren[2] != 'Z' && paren[2] != 'X';
}

/* NAME is a member's token: its pid, else 0. */
static long token_pid(const char *name)
{
  const char *digits = NULL;
  if (strncmp(name, "gdb-", 4) == 0)
    digits = name + 4;
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

void session_dir_leave(const char *status_path)
{
  char dir[PATH_MAX], token[PATH_MAX + 32];
  const char *status_name;
  if (split(status_path, dir, sizeof dir, &status_name) != 0)
    return;
  snprintf(token, sizeof token, "%s/" TOKEN_PREFIX "%d", dir, (int)getpid());
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
    members += pid != 0 && process_alive(pid);
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
