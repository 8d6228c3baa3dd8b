/* A clock sample's OpenMP state (docs/design.md "OpenMP states"): the
 * innermost of the runtime's marker frames on its stack says it (a region's
 * body, a barrier, a critical section's wait...: interpose/omp_marks.h);
 * without one, a thread whose leaf is in libgomp waits there (a worker's
 * end barrier or idling: counted as the implicit barrier until region
 * stamps tell the two apart), one running code libgomp called is in a
 * region's body (a region that began before an attach has no trampoline
 * frame), and any other thread of a process that loaded libgomp runs
 * serial code.  The marker frames are then taken out of the stack. */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/module_map.h"
#include "core/omp_states.h"
#include "er/er_omp.h"

#define MAX_SECTIONS 16

/* The marker sections, by file offset in the runtime library. */
static struct marker {
  uint64_t start, end;
  int state;
} markers[MAX_SECTIONS];
static size_t n_markers;
static char runtime_file[PATH_MAX];

static const struct {
  const char *name;
  int state;
} section_states[] = {
    {"gdbcol_omp_work", ER_OMP_WORK},
    {"gdbcol_omp_region", ER_OMP_IMPLICIT_BARRIER},
    {"gdbcol_omp_ibar", ER_OMP_IMPLICIT_BARRIER},
    {"gdbcol_omp_ebar", ER_OMP_EXPLICIT_BARRIER},
    {"gdbcol_omp_critical", ER_OMP_CRITICAL_WAIT},
    {"gdbcol_omp_atomic", ER_OMP_ATOMIC_WAIT},
    {"gdbcol_omp_ordered", ER_OMP_ORDERED_WAIT},
    {"gdbcol_omp_lock", ER_OMP_LOCK_WAIT},
    {"gdbcol_omp_taskwait", ER_OMP_TASKWAIT},
};

static int state_of_section(const char *name)
{
  for (size_t i = 0; i < sizeof section_states / sizeof section_states[0]; i++)
    if (strcmp(name, section_states[i].name) == 0)
      return section_states[i].state;
  return 0;
}

int col_omp_states_init(const char *runtime_path)
{
  n_markers = 0;
  snprintf(runtime_file, sizeof runtime_file, "%s", runtime_path);
  int fd = open(runtime_path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  Elf64_Ehdr eh;
  Elf64_Shdr sh[256], strtab;
  char names[4096];
  int ok = pread(fd, &eh, sizeof eh, 0) == sizeof eh && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
           eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_shentsize == sizeof(Elf64_Shdr) && eh.e_shnum <= 256 &&
           eh.e_shstrndx < eh.e_shnum &&
           pread(fd, sh, eh.e_shnum * sizeof *sh, (off_t)eh.e_shoff) == (ssize_t)(eh.e_shnum * sizeof *sh);
  if (ok) {
    strtab = sh[eh.e_shstrndx];
    size_t len = strtab.sh_size < sizeof names - 1 ? strtab.sh_size : sizeof names - 1;
    ok = pread(fd, names, len, (off_t)strtab.sh_offset) == (ssize_t)len;
    names[len] = '\0';
    for (unsigned i = 0; ok && i < eh.e_shnum && n_markers < MAX_SECTIONS; i++) {
      int state = sh[i].sh_name < len ? state_of_section(names + sh[i].sh_name) : 0;
      if (state != 0 && sh[i].sh_size > 0)
        markers[n_markers++] = (struct marker){sh[i].sh_offset, sh[i].sh_offset + sh[i].sh_size, state};
    }
  }
  close(fd);
  return n_markers > 0 ? 0 : -1;
}

/* PC's marker state, 0 when none; *IN_LIBGOMP set when PC is libgomp's. */
static int marker_at(uint64_t pc, int *in_libgomp)
{
  struct col_mapped_object o;
  *in_libgomp = 0;
  if (col_modules_object_at(pc, &o) != 0)
    return 0;
  const char *base = strrchr(o.name, '/') != NULL ? strrchr(o.name, '/') + 1 : o.name;
  if (strncmp(base, "libgomp.so", 10) == 0) {
    *in_libgomp = 1;
    return 0;
  }
  if (strcmp(o.name, runtime_file) != 0)
    return 0;
  uint64_t off = pc - o.start + o.offset;
  for (size_t i = 0; i < n_markers; i++)
    if (off >= markers[i].start && off < markers[i].end)
      return markers[i].state;
  return 0;
}

int col_omp_classify(const uint64_t *pcs, size_t n, uint64_t *program_pcs, size_t *program_n)
{
  /* Not an OpenMP program (libgomp not among its load objects, from the
   * module map's memory): its frames are not looked at, nor copied. */
  if (n_markers == 0 || n == 0 || col_modules_loaded("libgomp.so") == NULL)
    return 0;
  int state = 0, leaf_in_libgomp = 0, program_code_above_libgomp = 0, seen_program_code = 0;
  size_t kept = 0;
  for (size_t i = 0; i < n; i++) {
    int in_libgomp;
    int here = marker_at(pcs[i], &in_libgomp);
    if (here != 0) {
      if (state == 0)
        state = here; /* the innermost marker decides */
      continue;         /* the marker frame itself is the collector's */
    }
    if (kept == 0)
      leaf_in_libgomp = in_libgomp;
    if (in_libgomp && seen_program_code)
      program_code_above_libgomp = 1; /* libgomp called the code nearer the leaf: a region's body */
    seen_program_code |= !in_libgomp;
    program_pcs[kept++] = pcs[i];
  }
  if (kept == 0) { /* only markers (a sample in a wrapper's own code): its leaf stays */
    state = state != 0 ? state : ER_OMP_OVERHEAD;
    program_pcs[kept++] = pcs[0];
  }
  *program_n = kept;
  if (state != 0)
    return state;
  /* No marker: a region that began before an attach (its body runs without
   * the trampoline), or a worker in libgomp between its work. */
  if (leaf_in_libgomp)
    return ER_OMP_IMPLICIT_BARRIER; /* waiting in the runtime (or idle: see above) */
  return program_code_above_libgomp ? ER_OMP_WORK : ER_OMP_SERIAL;
}
