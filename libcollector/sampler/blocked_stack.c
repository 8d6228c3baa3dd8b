/* A waiting thread's stack, read from outside.
 *
 * Where the kernel gives no sample at a context switch (samples in kernel
 * context are refused to an ordinary user at perf_event_paranoid 2), the
 * sampler process reads a thread that has been off its CPU a while: its
 * state from /proc/PID/task/TID/stat, the system call it waits in (none:
 * a page fault, on its code when /proc/PID/pagemap says its PC's page is
 * not there) and the user PC and SP it will return to from
 * /proc/PID/task/TID/syscall (what the kernel shows a process allowed
 * to trace it: the same user, no Yama restriction or the program's
 * PR_SET_PTRACER for us), and its stack with process_vm_readv.  Then the
 * stack is unwound with the frame rules as a clock sample is.
 *
 * The registers shown are PC and SP only.  Most frames need no more; a
 * frame whose CFA is RBP-based (code built with frame pointers) under
 * calls that never saved RBP (glibc's read() or lock wait) needs RBP: it
 * is found where the frame keeps it (find_frame_record): the lowest stack
 * word above SP that holds a frame record (saved RBP, return address)
 * whose return address follows a call of this very function (directly or
 * through its PLT stub); where none does (a function reached by a tail
 * call, or through a pointer), the lowest after any call from which the
 * callers' walk reaches the stack's end.  A stale record left in
 * uninitialised locals by an earlier call fails the first test, so it is
 * taken only where the real one fails it too and its walk completes. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include <asm/perf_regs.h>

#include "core/capture.h"
#include "core/config.h"
#include "unwind/unwind.h"
#include "blocked_stack.h"

#define STACK_READ_MAX (64 * 1024)
#define FRAME_SEARCH_BYTES 16384 /* how far above SP a frame's record is looked for */

ssize_t task_file_read(pid_t pid, pid_t tid, const char *name, char *buf, size_t len)
{
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/task/%d/%s", (int)pid, (int)tid, name);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  ssize_t n = read(fd, buf, len - 1);
  int err = errno;
  close(fd);
  errno = err;
  if (n >= 0)
    buf[n] = '\0';
  return n;
}

int task_schedstat_read(pid_t pid, pid_t tid, uint64_t *run_ns, uint64_t *queued_ns, uint64_t *slices)
{
  char buf[128];
  unsigned long long run, queued, arrivals;
  if (task_file_read(pid, tid, "schedstat", buf, sizeof buf) <= 0 ||
      sscanf(buf, "%llu %llu %llu", &run, &queued, &arrivals) != 3)
    return 0;
  *run_ns = run;
  *queued_ns = queued;
  *slices = arrivals;
  return 1;
}

int blocked_stack_access(pid_t pid)
{
  char buf[256];
  if (task_file_read(pid, pid, "syscall", buf, sizeof buf) < 0)
    return errno != 0 ? errno : EACCES;
  uint64_t word;
  struct iovec local = {&word, sizeof word}, remote = {NULL, sizeof word};
  /* Any readable address will do: the program's auxiliary vector says
   * where its entry point is mapped. */
  unsigned long aux[2];
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/auxv", (int)pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return errno;
  while (read(fd, aux, sizeof aux) == sizeof aux && aux[0] != 0)
    if (aux[0] == 9 /* AT_ENTRY */)
      remote.iov_base = (void *)aux[1];
  close(fd);
  if (remote.iov_base == NULL)
    return ENOENT;
  return process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)sizeof word ? 0 : errno;
}

static enum blocked_state state_of(pid_t pid, pid_t tid)
{
  char buf[512];
  if (task_file_read(pid, tid, "stat", buf, sizeof buf) <= 0)
    return BLOCKED_GONE;
  const char *end_of_name = strrchr(buf, ')'); /* the name may hold any byte but NUL */
  if (end_of_name == NULL || end_of_name[1] != ' ')
    return BLOCKED_GONE;
  switch (end_of_name[2]) {
  case 'R':
    return BLOCKED_RUNS;
  case 't':
  case 'T':
    return BLOCKED_STOPPED;
  case 'Z':
  case 'X':
    return BLOCKED_GONE;
  default: /* S, D, and the rarer idle, parked or waking states */
    return BLOCKED_WAITS;
  }
}

/* LEN bytes of PID's memory at ADDR, read in page-sized pieces so that a
 * read that reaches the stack's end keeps what came before it. */
static size_t read_memory(pid_t pid, uint64_t addr, unsigned char *out, size_t len)
{
  struct iovec local = {out, len}, remote[STACK_READ_MAX / 4096 + 1];
  size_t pieces = 0;
  for (uint64_t at = addr; at < addr + len && pieces < sizeof remote / sizeof remote[0]; pieces++) {
    uint64_t next = (at | 4095) + 1;
    if (next > addr + len)
      next = addr + len;
    remote[pieces] = (struct iovec){(void *)at, (size_t)(next - at)};
    at = next;
  }
  ssize_t n = process_vm_readv(pid, &local, 1, remote, pieces, 0);
  return n > 0 ? (size_t)n : 0;
}

static int stack_word(const struct col_capture *cap, uint64_t addr, uint64_t *value)
{
  uint64_t sp = cap->regs.r[PERF_REG_X86_SP];
  if (addr < sp || addr - sp + 8 > cap->stack_len)
    return 0;
  memcpy(value, cap->stack + (addr - sp), 8);
  return 1;
}

/* Whether the code at STUB is a PLT stub that jumps to ENTRY: its
 * `jmp *GOT(%rip)` (after an endbr64 and a bnd prefix, where there are)
 * and the address its GOT slot holds (bound: the function it reached is
 * running). */
static int plt_stub_of(pid_t pid, uint64_t stub, uint64_t entry)
{
  unsigned char code[16];
  if (read_memory(pid, stub, code, sizeof code) != sizeof code)
    return 0;
  for (int at = 0; at <= 5; at++)
    if (code[at] == 0xff && code[at + 1] == 0x25) {
      int32_t disp;
      memcpy(&disp, code + at + 2, 4);
      uint64_t slot = stub + (uint64_t)at + 6 + (int64_t)disp, target;
      return read_memory(pid, slot, (unsigned char *)&target, sizeof target) == sizeof target && target == entry;
    }
  return 0;
}

enum call_kind { NOT_A_CALL, SOME_CALL, CALL_OF_IT };

/* What the instruction before RA is: a call of the function at ENTRY (a
 * direct call of it or of its PLT stub), some other call (indirect: ff /2,
 * 2 to 7 bytes; or direct, of a function that may have tail-called
 * ENTRY's), or no call. */
static enum call_kind call_before(pid_t pid, uint64_t ra, uint64_t entry)
{
  unsigned char b[8]; /* the bytes at RA-8 .. RA-1 */
  if (ra < 8 || read_memory(pid, ra - 8, b, sizeof b) != sizeof b)
    return NOT_A_CALL;
  if (b[3] == 0xe8) {
    int32_t rel;
    memcpy(&rel, b + 4, 4);
    uint64_t target = ra + (int64_t)rel;
    return target == entry || plt_stub_of(pid, target, entry) ? CALL_OF_IT : SOME_CALL;
  }
  static const int indirect_lengths[] = {2, 3, 6, 7};
  for (size_t i = 0; i < sizeof indirect_lengths / sizeof indirect_lengths[0]; i++) {
    int at = 8 - indirect_lengths[i];
    if (b[at] == 0xff && ((b[at + 1] >> 3) & 7) == 2)
      return SOME_CALL;
  }
  return NOT_A_CALL;
}

/* Whether ADDR may be a return address: inside a function the unwind
 * tables know. */
static int code_address(uint64_t addr)
{
  return addr >= 4096 && col_function_entry(addr - 1) != 0;
}

/* How far a walk goes from the caller's frame a candidate record makes
 * (PC its return address, SP above it, RBP the RBP it saved): the frames
 * found where the walk ends as a stack ends, or -1 where it fails. */
static int walk_from(const struct col_capture *cap, uint64_t ra, uint64_t cfa, uint64_t saved)
{
  uint64_t sp = cap->regs.r[PERF_REG_X86_SP];
  struct col_capture caller = *cap;
  caller.regs.r[PERF_REG_X86_IP] = ra - 1; /* a call site, as the walk looks its rule up */
  caller.regs.r[PERF_REG_X86_SP] = cfa;
  caller.regs.r[PERF_REG_X86_BP] = saved;
  caller.stack = cap->stack + (cfa - sp);
  caller.stack_len = cap->stack_len - (size_t)(cfa - sp);
  return col_walk_completes(&caller);
}

/* col_bp_finder: the frame's record.  Candidates are the stack words above
 * SP that hold a return address after a call (beside the saved RBP).  The lowest whose call calls this very function wins;
 * else (a function reached by a tail call or through a pointer) the
 * lowest from which the walk goes on to the stack's end (a record above
 * the real one skips frames; a stale one below it, left in the
 * function's locals, mostly leads nowhere), else the lowest. */
static int find_frame_record(uint64_t lookup_pc, uint64_t sp, const struct col_frame_rule *rule,
                             const struct col_capture *cap, uint64_t *bp, void *arg)
{
  pid_t pid = *(const pid_t *)arg;
  uint64_t entry = col_function_entry(lookup_pc), best = 0, capture_sp = cap->regs.r[PERF_REG_X86_SP];
  int best_walk = -1;
  if (entry == 0)
    return 0;
  for (uint64_t at = (sp + 7) & ~7ull; at < sp + FRAME_SEARCH_BYTES; at += 8) {
    uint64_t cfa = at + (int64_t)rule->cfa_offset, ra, saved = 0;
    if (cfa <= sp || !stack_word(cap, cfa - 8, &ra))
      break;
    if (!code_address(ra))
      continue;
    /* The RBP the frame saved is its caller's: any value where the
     * caller does not keep frame pointers (the walk from it tells). */
    if (rule->bp == COL_BP_SAVED && !stack_word(cap, cfa + (int64_t)rule->bp_offset, &saved))
      continue;
    enum call_kind kind = call_before(pid, ra, entry);
    if (kind == CALL_OF_IT) {
      *bp = at;
      return 1;
    }
    if (kind != SOME_CALL || cfa - capture_sp > cap->stack_len)
      continue;
    if (best_walk >= 0)
      continue; /* a lower one completes: only a call of the function itself comes before it */
    int walk = walk_from(cap, ra, cfa, saved);
    if (best == 0 || walk >= 0) {
      best = at;
      best_walk = walk;
    }
  }
  if (best == 0)
    return 0;
  *bp = best;
  return 1;
}

/* The user PC and SP of a thread that waits (in a system call NR, or -1:
 * a fault). */
static int where_it_waits(pid_t pid, pid_t tid, uint64_t *pc, uint64_t *sp, long *nr)
{
  char buf[256];
  if (task_file_read(pid, tid, "syscall", buf, sizeof buf) <= 0 || strncmp(buf, "running", 7) == 0)
    return 0;
  *nr = strtol(buf, NULL, 10);
  /* "NR ARG1..ARG6 SP PC", or "-1 SP PC" outside a system call: the last two. */
  char *last = strrchr(buf, ' ');
  if (last == NULL)
    return 0;
  *last = '\0';
  char *before = strrchr(buf, ' ');
  if (before == NULL)
    return 0;
  *pc = strtoull(last + 1, NULL, 16);
  *sp = strtoull(before + 1, NULL, 16);
  return *pc != 0 && *sp != 0;
}

/* Whether the page holding ADDR is in PID's memory: 1, 0, or -1 when its
 * page map cannot be read. */
static int page_present(pid_t pid, uint64_t addr)
{
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/pagemap", (int)pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  uint64_t entry;
  long page = sysconf(_SC_PAGESIZE);
  ssize_t n = pread(fd, &entry, sizeof entry, (off_t)(addr / (uint64_t)page * sizeof entry));
  close(fd);
  return n == (ssize_t)sizeof entry ? (int)(entry >> 63) : -1;
}

void blocked_stack_read(pid_t pid, pid_t tid, int with_stack, uint64_t *pcs, size_t max, struct blocked_thread *out)
{
  static unsigned char stack[STACK_READ_MAX];
  *out = (struct blocked_thread){state_of(pid, tid), -2, FAULT_NONE, 0};
  if (out->state != BLOCKED_WAITS && out->state != BLOCKED_STOPPED)
    return;
  uint64_t pc, sp;
  if (!where_it_waits(pid, tid, &pc, &sp, &out->syscall_nr)) {
    if (state_of(pid, tid) == BLOCKED_RUNS)
      out->state = BLOCKED_RUNS;
    return;
  }
  /* Blocked outside a system call: in a page fault (the kernel waits for
   * the page), on its code where its PC's own page is not there. */
  if (out->syscall_nr == -1 && out->state == BLOCKED_WAITS)
    out->fault = page_present(pid, pc) == 0 ? FAULT_ON_CODE : FAULT_ON_DATA;
  if (!with_stack)
    return;
  size_t want = col_cfg.stack_copy_bytes > 0 && col_cfg.stack_copy_bytes < STACK_READ_MAX ? col_cfg.stack_copy_bytes
                                                                                           : STACK_READ_MAX;
  struct col_capture cap;
  memset(&cap, 0, sizeof cap);
  cap.tid = tid;
  /* (a stop: GDB's breakpoint may have left it one past its trap) */
  cap.regs.r[PERF_REG_X86_IP] = out->state == BLOCKED_STOPPED ? col_pc_before_trap(pc) : pc;
  cap.regs.r[PERF_REG_X86_SP] = sp;
  cap.stack = stack;
  cap.stack_len = read_memory(pid, sp, stack, want);
  if (cap.stack_len > 0)
    out->depth = col_unwind_without_bp(&cap, find_frame_record, &pid, pcs, max);
}
