/* The runtime's own load objects, at launch (runtime_objects.h).
 *
 * Preloading libcollector.so brings its libraries into the program
 * (libunwind, libdw, libelf and their compression libraries).  They are
 * not the program's: the experiment should not list or archive them.
 * Those the program needs itself stay listed, or its samples there would
 * lose their names.  Both closures come from the dynamic loader's own
 * answer (`ld.so --list`, what ldd prints), with the environment the
 * program gets, before anything is preloaded. */
#define _GNU_SOURCE
#include "runtime_objects.h"

#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_OBJECTS 256

struct object_list {
  char *paths[MAX_OBJECTS];
  size_t n;
};

/* PROGRAM's dynamic loader (PT_INTERP), into OUT; 0, or -1 (static, a
 * script, unreadable). */
static int interpreter_of(const char *program, char *out, size_t len)
{
  int fd = open(program, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  Elf64_Ehdr eh;
  int found = -1;
  if (pread(fd, &eh, sizeof eh, 0) == (ssize_t)sizeof eh && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
      eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof(Elf64_Phdr)) {
    for (int i = 0; i < eh.e_phnum && found != 0; i++) {
      Elf64_Phdr ph;
      if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + (uint64_t)i * sizeof ph)) != (ssize_t)sizeof ph ||
          ph.p_type != PT_INTERP || ph.p_filesz == 0 || ph.p_filesz >= len)
        continue;
      if (pread(fd, out, ph.p_filesz, (off_t)ph.p_offset) == (ssize_t)ph.p_filesz) {
        out[ph.p_filesz - 1] = '\0';
        found = 0;
      }
    }
  }
  close(fd);
  return found;
}

/* The objects the loader would load for OBJECT ("name => path (addr)" or
 * "path (addr)" lines), as real paths. */
static void loader_list(const char *loader, const char *object, struct object_list *out)
{
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0)
    return;
  pid_t child = fork();
  if (child == 0) {
    dup2(pipefd[1], STDOUT_FILENO);
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null >= 0)
      dup2(null, STDERR_FILENO);
    execl(loader, loader, "--list", object, (char *)NULL);
    _exit(127);
  }
  close(pipefd[1]);
  FILE *f = child > 0 ? fdopen(pipefd[0], "r") : NULL;
  char line[PATH_MAX + 64];
  while (f != NULL && fgets(line, sizeof line, f) != NULL && out->n < MAX_OBJECTS) {
    char *path = strstr(line, "=> ");
    path = path != NULL ? path + 3 : line + strspn(line, " \t");
    if (path[0] != '/')
      continue; /* "not found", the vDSO */
    path[strcspn(path, " \t\n(")] = '\0';
    char real[PATH_MAX];
    if (realpath(path, real) != NULL)
      out->paths[out->n++] = strdup(real);
  }
  if (f != NULL)
    fclose(f);
  else
    close(pipefd[0]);
  if (child > 0)
    waitpid(child, NULL, 0);
}

static int listed(const struct object_list *list, const char *path)
{
  for (size_t i = 0; i < list->n; i++)
    if (list->paths[i] != NULL && strcmp(list->paths[i], path) == 0)
      return 1;
  return 0;
}

static void free_list(struct object_list *list)
{
  for (size_t i = 0; i < list->n; i++)
    free(list->paths[i]);
  list->n = 0;
}

int runtime_is_sanitizer(const char *path)
{
  /* (ThreadSanitizer's runtime asks no such place: it stays behind ours,
   * whose __tsan_on_report must win over its empty one: tha race.) */
  static const char *const names[] = {"libasan.so", "libhwasan.so", "libclang_rt.asan", "libclang_rt.hwasan"};
  const char *base = strrchr(path, '/');
  base = base != NULL ? base + 1 : path;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strncmp(base, names[i], strlen(names[i])) == 0)
      return 1;
  return 0;
}

/* The sanitizer runtimes among THEIRS, ':'-separated (malloc'd), or NULL. */
static char *sanitizers_of(const struct object_list *theirs)
{
  size_t room = 1, at = 0;
  for (size_t i = 0; i < theirs->n; i++)
    room += strlen(theirs->paths[i]) + 1;
  char *found = calloc(1, room);
  for (size_t i = 0; found != NULL && i < theirs->n; i++)
    if (runtime_is_sanitizer(theirs->paths[i]))
      at += (size_t)sprintf(found + at, "%s%s", at ? ":" : "", theirs->paths[i]);
  if (found != NULL && at == 0) {
    free(found);
    found = NULL;
  }
  return found;
}

char *runtime_own_objects(const char *program, const char *runtime, char **sanitizers)
{
  char loader[PATH_MAX], runtime_real[PATH_MAX];
  *sanitizers = NULL;
  if (program == NULL || runtime == NULL || interpreter_of(program, loader, sizeof loader) != 0 ||
      realpath(runtime, runtime_real) == NULL)
    return NULL;
  struct object_list theirs = {0}, ours = {0};
  loader_list(loader, program, &theirs);
  *sanitizers = sanitizers_of(&theirs);
  loader_list(loader, runtime_real, &ours);
  size_t room = 1, at = 0;
  for (size_t i = 0; i < ours.n; i++)
    room += strlen(ours.paths[i]) + 1;
  char *hidden = theirs.n > 0 ? calloc(1, room) : NULL; /* the program's list unknown: hide nothing */
  for (size_t i = 0; hidden != NULL && i < ours.n; i++) {
    if (listed(&theirs, ours.paths[i]) || strcmp(ours.paths[i], runtime_real) == 0 ||
        strcmp(ours.paths[i], loader) == 0)
      continue; /* the program's too, the runtime itself (its wrappers run on program threads), the loader */
    at += (size_t)sprintf(hidden + at, "%s%s", at ? ":" : "", ours.paths[i]);
  }
  free_list(&theirs);
  free_list(&ours);
  return hidden;
}

