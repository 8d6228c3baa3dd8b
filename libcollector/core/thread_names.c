/* The names of a recorded process's threads: their comm, what
 * pthread_setname_np or prctl(PR_SET_NAME) gave them (else the program's
 * name).  gprofng's format has no place for them, so they go into a file
 * of our own in the experiment (ER_THREAD_NAMES_FILE: "TID NAME" lines),
 * read by our report, the Firefox export and the timeline.  Names come
 * from the kernel's COMM records of renames (perf events: a thread that
 * ended before the experiment did keeps its name) and from
 * /proc/PID/task at the experiment's end for the threads still there.
 * Kept in a fixed table (the sampler process allocates nothing per
 * thread); beyond it, later threads go unnamed. */
#define _GNU_SOURCE
#include "core/thread_names.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "er/er_fileutil.h"
#include "er/er_naming.h"
#include "er/er_text.h"

#define MAX_NAMED 4096
#define NAME_BYTES 16 /* the kernel's TASK_COMM_LEN */

static struct named_thread {
  pid_t tid;
  char name[NAME_BYTES];
} named[MAX_NAMED];
static size_t n_named;

void col_thread_names_note(pid_t tid, const char *name)
{
  size_t i = 0;
  while (i < n_named && named[i].tid != tid)
    i++;
  if (i == n_named && n_named == MAX_NAMED)
    return;
  if (i == n_named)
    n_named++;
  named[i].tid = tid;
  snprintf(named[i].name, sizeof named[i].name, "%s", name);
}

void col_thread_names_forget(void)
{
  n_named = 0;
}

/* The comm file PATH into NAME (NAME_BYTES + 1), its newline cut: 0, or
 * -1 when it cannot be read. */
static int read_comm(const char *path, char *name)
{
  if (er_read_text(path, name, NAME_BYTES + 1) <= 0)
    return -1;
  name[strcspn(name, "\n")] = '\0'; /* (the kernel ends it with a newline) */
  return 0;
}

/* PID's live threads' names from /proc/PID/task/TID/comm. */
static void read_live_threads(pid_t pid)
{
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
  DIR *tasks = opendir(path);
  if (tasks == NULL)
    return;
  struct dirent *e;
  while ((e = readdir(tasks)) != NULL) {
    pid_t tid = (pid_t)atoi(e->d_name);
    char comm_path[96], name[NAME_BYTES + 1];
    snprintf(comm_path, sizeof comm_path, "/proc/%d/task/%d/comm", (int)pid, (int)tid);
    if (tid > 0 && read_comm(comm_path, name) == 0)
      col_thread_names_note(tid, name);
  }
  closedir(tasks);
}

void col_thread_names_write(int experiment_dirfd, pid_t pid)
{
  /* The process's own name (its main thread's comm) is every thread's
   * that never named itself: not written, so the file is there only where
   * a thread named itself, whether the process outlived the experiment or
   * not. */
  char own[NAME_BYTES + 1] = "", path[64];
  if (pid > 0) {
    snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
    read_comm(path, own);
    read_live_threads(pid);
  }
  int fd = -1;
  for (size_t i = 0; i < n_named && experiment_dirfd >= 0; i++) {
    if (own[0] != '\0' && strcmp(named[i].name, own) == 0)
      continue;
    if (fd < 0)
      fd = openat(experiment_dirfd, ER_THREAD_NAMES_FILE, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
      return; /* (names are a convenience: the experiment is whole without them) */
    char encoded[4 * NAME_BYTES + 8], line[4 * NAME_BYTES + 32];
    er_value_encode(named[i].name, encoded, sizeof encoded);
    int n = snprintf(line, sizeof line, "%d %s\n", (int)named[i].tid, encoded);
    if (n <= 0 || (size_t)n >= sizeof line || er_write_all(fd, line, (size_t)n) != 0)
      break;
  }
  if (fd >= 0)
    close(fd);
}
