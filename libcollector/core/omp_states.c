/* What each frame of an OpenMP program's clock sample is (docs/design.md
 * "OpenMP states"): the runtime's marker frames (a region's body, a
 * barrier, a critical section's wait...: interpose/omp_marks.h), found by
 * the sections of the runtime's file, libgomp's, libc's, or the program's.
 * omp_sample.c makes states, regions and user stacks of them. */
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
    {"gdbcol_omp_region", COL_OMP_MARK_REGION},
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

int col_omp_frame_kind(uint64_t pc, int *marker_state)
{
  struct col_mapped_object o;
  *marker_state = 0;
  if (col_modules_object_at(pc, &o) != 0)
    return COL_OMP_FRAME_PROGRAM;
  const char *base = strrchr(o.name, '/') != NULL ? strrchr(o.name, '/') + 1 : o.name;
  if (strncmp(base, "libgomp.so", 10) == 0)
    return COL_OMP_FRAME_LIBGOMP;
  if (strncmp(base, "libc.so", 7) == 0)
    return COL_OMP_FRAME_LIBC;
  if (strcmp(o.name, runtime_file) != 0)
    return COL_OMP_FRAME_PROGRAM;
  uint64_t off = pc - o.start + o.offset;
  for (size_t i = 0; i < n_markers; i++)
    if (off >= markers[i].start && off < markers[i].end) {
      *marker_state = markers[i].state;
      return COL_OMP_FRAME_MARKER;
    }
  return COL_OMP_FRAME_PROGRAM;
}

int col_omp_process_is_openmp(void)
{
  /* libgomp among its load objects (the module map's memory), and the
   * runtime's markers known */
  return n_markers > 0 && col_modules_loaded("libgomp.so") != NULL;
}
