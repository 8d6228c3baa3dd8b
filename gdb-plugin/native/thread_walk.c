/* Walking the stacks of a process GDB holds stopped, without GDB's
 * unwinder: the call stacks `collector enable` needs after an attach, to
 * choose a thread that can lend itself to a call (inferior_calls.py).
 *
 * Why not GDB's frames: GDB's first unwind after an attach waits for its
 * index of the C library's separate debug information (19 ms of the
 * process stopped with libc6-dbg installed, 2.6 ms without; measured with
 * the attach benchmark, docs/measurements.md).  Here each thread's stack
 * is read from /proc/PID/mem and its registers with PTRACE_GETREGS (GDB's
 * thread that runs the plugin is the threads' tracer; GDB's own frame #0
 * waits for that index too, 15 ms measured) and walked with the runtime's
 * own frame rules (unwind/walk_rules.h), read from each object's .eh_frame
 * (unwind/cfi_rules.c): a few hundred microseconds.  A walk that cannot
 * reach the thread's outermost frame says so, and the plugin asks GDB for
 * that thread. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/user.h>
#include <unistd.h>

#include "unwind/cfi_rules.h"
#include "unwind/walk_rules.h"

#include "proc_maps.h"
#include "thread_registers.h"
#include "thread_walk.h"

/* A stack read from its stack pointer on: enough for any stack GDB's walk
 * would look at (64 frames); a deeper one ends the walk at the copy's end
 * and GDB walks that thread. */
#define STACK_BYTES (256u * 1024)

struct mapping {
  uint64_t start, end, offset;
  unsigned long inode;
  int exec;
  char *path; /* NULL: anonymous; "[vdso]" kept */
  int opened;  /* the rules' sources below were looked for */
  struct col_object_rules rules;
};

static struct {
  int pid, mem_fd;
  struct mapping *maps;
  size_t n;
  unsigned char *stack;
} walk = {.mem_fd = -1};

static int keep_mapping(const struct gdbcol_mapping *from, void *arg)
{
  size_t *cap = arg;
  if (walk.n == *cap) {
    size_t more = *cap ? *cap * 2 : 64;
    struct mapping *grown = realloc(walk.maps, more * sizeof *grown);
    if (grown == NULL)
      return 1;
    walk.maps = grown;
    *cap = more;
  }
  struct mapping *m = &walk.maps[walk.n++];
  memset(m, 0, sizeof *m);
  m->start = from->start, m->end = from->end, m->offset = from->offset, m->inode = from->inode;
  m->exec = from->exec;
  if (m->exec && (from->path[0] == '/' || strcmp(from->path, "[vdso]") == 0))
    m->path = strdup(from->path);
  return 0;
}

static int read_mappings(int pid)
{
  size_t cap = 0;
  return gdbcol_for_each_mapping(pid, keep_mapping, &cap);
}

static struct mapping *mapping_at(uint64_t address)
{
  for (size_t i = 0; i < walk.n; i++)
    if (address >= walk.maps[i].start && address < walk.maps[i].end)
      return &walk.maps[i];
  return NULL;
}

static int rule_at(uint64_t lookup_pc, struct col_frame_rule *out, void *arg)
{
  (void)arg;
  struct mapping *m = mapping_at(lookup_pc);
  if (m == NULL || !m->exec || m->path == NULL)
    return 0;
  if (!m->opened) {
    /* The file through the process's own root (a process in a container). */
    m->opened = 1;
    char file[PATH_MAX + 32];
    if (snprintf(file, sizeof file, "/proc/%d/root%s", walk.pid, m->path) < (int)sizeof file)
      col_open_mapped_object(m->path, file, m->inode, m->start, m->offset, &m->rules);
  }
  if (m->rules.elf == NULL)
    return 0;
  memset(out, 0, sizeof *out);
  col_rule_from_cfi(m->rules.elf, m->rules.cfi, m->rules.bias, lookup_pc, out);
  return 1;
}

int gdbcol_walk_begin(int pid)
{
  gdbcol_walk_end();
  elf_version(EV_CURRENT);
  char name[64];
  snprintf(name, sizeof name, "/proc/%d/mem", pid);
  walk.pid = pid;
  walk.mem_fd = open(name, O_RDONLY | O_CLOEXEC);
  walk.stack = malloc(STACK_BYTES);
  if (walk.mem_fd < 0 || walk.stack == NULL || read_mappings(pid) != 0) {
    gdbcol_walk_end();
    return -1;
  }
  return 0;
}

int gdbcol_walk_thread(int tid, uint64_t *pcs, int max)
{
  struct user_regs_struct regs;
  if (walk.mem_fd < 0 || max < 2 || gdbcol_thread_registers(tid, &regs) != 0)
    return -1; /* (not stopped for its tracer: GDB looks at it) */
  uint64_t sp = regs.rsp;
  struct mapping *stack = mapping_at(sp);
  if (stack == NULL)
    return -1;
  size_t want = stack->end - sp < STACK_BYTES ? stack->end - sp : STACK_BYTES;
  ssize_t got = pread(walk.mem_fd, walk.stack, want, (off_t)sp);
  if (got <= 0)
    return -1;
  struct col_capture cap;
  memset(&cap, 0, sizeof cap);
  cap.regs.r[PERF_REG_X86_IP] = regs.rip;
  cap.regs.r[PERF_REG_X86_SP] = sp;
  cap.regs.r[PERF_REG_X86_BP] = regs.rbp;
  cap.regs.r[PERF_REG_X86_BX] = regs.rbx;
  cap.regs.r[PERF_REG_X86_AX] = regs.rax;
  cap.stack = walk.stack;
  cap.stack_len = (size_t)got;
  size_t count = 0;
  if (col_walk_with_rules(&cap, rule_at, NULL, pcs, (size_t)max, &count, NULL) != COL_WALK_DONE || count == 0 ||
      pcs[count - 1] == ER_PC_TRUNCATED)
    return -1; /* not to its outermost frame: GDB walks it */
  return (int)count;
}

void gdbcol_walk_end(void)
{
  for (size_t i = 0; i < walk.n; i++) {
    struct mapping *m = &walk.maps[i];
    col_close_object_rules(&m->rules);
    free(m->path);
  }
  free(walk.maps);
  free(walk.stack);
  if (walk.mem_fd >= 0)
    close(walk.mem_fd);
  walk.maps = NULL;
  walk.stack = NULL;
  walk.n = 0;
  walk.mem_fd = -1;
  walk.pid = 0;
}
