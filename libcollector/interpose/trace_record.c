/* Recording traced events: see trace_record.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <asm/perf_regs.h>

#include "core/capture.h"
#include "core/config.h"
#include "core/runtime_calls.h"
#include "runtime/collection_state.h"
#include "unwind/unwind.h"
#include "unwind/walk_rules.h"
#include "er/er_format.h"
#include "trace_lanes.h"
#include "trace_record.h"

/* Set while the recorder itself calls interposed functions (reading
 * /proc/self/maps): those calls are not traced. */
__thread int col_tracing_here __attribute__((tls_model("initial-exec")));

/* The mapping the thread's last event's stack was in. */
static __thread uintptr_t stack_low __attribute__((tls_model("initial-exec")));
static __thread uintptr_t stack_high __attribute__((tls_model("initial-exec")));

/* The process's and each thread's id, asked once: a system call costs
 * 1.1 us in this VM, twice an event's whole budget.  A fork's child asks
 * again (the handler runs on its only thread).  A child between vfork and
 * exec shares the parent's memory: its calls are recorded as the parent
 * thread's. */
static pid_t my_pid;
static __thread pid_t my_tid __attribute__((tls_model("initial-exec")));
/* This address space's id for the shared frame rules (frame_rules_shared.c). */
static uint32_t my_space;

/* Each thread's last walk of its own stack (walk_rules.h): the next walk
 * takes the frames it shares with it after re-reading their words.  From
 * a pool mapped once (no allocation on the recording path), a memo per
 * thread, claimed at its first event; a thread that finds none free walks
 * every frame.  A memo whose thread is gone is taken over. */
#define WALK_MEMOS 256
struct walk_memo_slot {
  pid_t owner; /* atomic: 0 free */
  struct col_walk_memo memo;
};
static struct walk_memo_slot *walk_memos;
static __thread struct walk_memo_slot *my_memo __attribute__((tls_model("initial-exec")));
static __thread int no_memo __attribute__((tls_model("initial-exec")));

static struct col_walk_memo *thread_memo(pid_t tid)
{
  if (__builtin_expect(my_memo != NULL, 1))
    return &my_memo->memo;
  if (no_memo || walk_memos == NULL)
    return NULL;
  for (int pass = 0; pass < 2 && my_memo == NULL; pass++)
    for (size_t i = 0; i < WALK_MEMOS && my_memo == NULL; i++) {
      struct walk_memo_slot *m = &walk_memos[i];
      pid_t owner = __atomic_load_n(&m->owner, __ATOMIC_RELAXED);
      /* First pass: free ones; second: those of threads that ended. */
      if (pass == 0 ? owner != 0 : owner == 0 || syscall(SYS_tgkill, my_pid, owner, 0) == 0 || errno != ESRCH)
        continue;
      if (__atomic_compare_exchange_n(&m->owner, &owner, tid, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
        m->memo.frames = 0;
        my_memo = m;
      }
    }
  no_memo = my_memo == NULL;
  return my_memo != NULL ? &my_memo->memo : NULL;
}

static void forked(void)
{
  my_pid = getpid();
  my_tid = 0;
  if (my_memo != NULL) /* this thread's memo, the only one in use here now */
    my_memo->owner = gettid();
  my_space = col_trace_new_space(); /* the same layout, but the child's own from now on */
  col_lanes_forked();
}

void col_trace_record_init(void)
{
  static int handler_set;
  my_pid = getpid();
  if (walk_memos == NULL) {
    col_tracing_here = 1; /* mmap here is the traced wrapper: the runtime's own is not an event */
    void *pool = mmap(NULL, WALK_MEMOS * sizeof *walk_memos, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                      -1, 0);
    col_tracing_here = 0;
    walk_memos = pool != MAP_FAILED ? pool : NULL;
  }
  my_space = col_trace_new_space();
  if (!handler_set)
    handler_set = pthread_atfork(NULL, NULL, forked) == 0;
}

static int recording_paused;

void col_trace_record_pause(int paused)
{
  __atomic_store_n(&recording_paused, paused, __ATOMIC_RELEASE);
}

pid_t col_trace_thread_id(void)
{
  if (my_tid == 0)
    my_tid = gettid();
  return my_tid;
}


struct col_trace_ring *col_trace_here(void)
{
  struct col_trace_ring *t = col_trace;
  if (t == NULL || col_tracing_here || __atomic_load_n(&recording_paused, __ATOMIC_RELAXED) || !col_active() ||
      col_in_runtime_call())
    return NULL;
  return t;
}

static unsigned long parse_hex(const char **p)
{
  unsigned long v = 0;
  for (;; (*p)++) {
    char c = **p;
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0)
      return v;
    v = v * 16 + (unsigned long)d;
  }
}

/* The mapping that holds SP, from /proc/self/maps read with plain system
 * calls: the first event of a thread may come from a signal handler
 * (pthread_getattr_np allocates), so nothing here may.  Its end; its start
 * in *LOW. */
static uintptr_t mapping_of(uintptr_t sp, uintptr_t *low)
{
  int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  char buf[4096];
  size_t held = 0;
  uintptr_t found = 0;
  for (;;) {
    ssize_t n = read(fd, buf + held, sizeof buf - 1 - held);
    if (n <= 0)
      break;
    held += (size_t)n;
    buf[held] = '\0';
    char *line = buf, *nl;
    while ((nl = memchr(line, '\n', held - (size_t)(line - buf))) != NULL) {
      const char *p = line;
      unsigned long lo = parse_hex(&p);
      unsigned long hi = *p == '-' ? (p++, parse_hex(&p)) : 0;
      if (sp >= lo && sp < hi) {
        found = hi;
        *low = lo;
      }
      line = nl + 1;
    }
    held -= (size_t)(line - buf);
    memmove(buf, line, held);
    if (found != 0)
      break;
  }
  close(fd);
  return found;
}

/* The end of the mapping SP is in: the thread's stack, found once, or a
 * signal stack (sigaltstack), found when the thread's events move to it,
 * so that the copy never reads past the mapping. */
static uintptr_t stack_end(uintptr_t sp)
{
  if (sp < stack_low || sp >= stack_high) {
    uintptr_t low = 0;
    col_tracing_here = 1;
    uintptr_t high = mapping_of(sp, &low);
    col_tracing_here = 0;
    stack_low = low;
    stack_high = high;
  }
  return sp >= stack_low && sp < stack_high ? stack_high : 0;
}


/* Rules looked up before, in this process's own memory: a direct-mapped
 * cache in front of the shared table.  Threads fill it without a lock;
 * each entry keeps its address XOR its packed rule, so a reader that
 * catches two writers' halves sees a mismatch and looks the rule up
 * again.  Rules never change for an address in one address space, and a
 * fork's child keeps the parent's layout: the cache needs no invalidation. */
#define HOT_RULES 2048 /* power of two */
static struct {
  uint64_t check, packed; /* check = address ^ packed; packed 0: empty */
} hot_rules[HOT_RULES] __attribute__((aligned(64)));

static uint64_t pack_rule(const struct col_frame_rule *r)
{
  return 1ull << 63 | (uint64_t)r->kind << 56 | (uint64_t)r->cfa_base << 52 | (uint64_t)r->bp << 48 |
         (uint64_t)(uint16_t)r->bp_offset << 32 | (uint32_t)r->cfa_offset;
}

static void unpack_rule(uint64_t packed, struct col_frame_rule *r)
{
  r->kind = (packed >> 56) & 0x7F;
  r->cfa_base = (packed >> 52) & 0xF;
  r->bp = (packed >> 48) & 0xF;
  r->bp_offset = (int16_t)(packed >> 32);
  r->cfa_offset = (int32_t)packed;
  r->bx = COL_BP_LOST; /* (not packed: this walk knows no RBX) */
  r->bx_offset = 0;
}

static inline __attribute__((always_inline)) int shared_rule(uint64_t lookup_pc, struct col_frame_rule *out,
                                                             void *unused)
{
  size_t i = (size_t)((lookup_pc * 0x9E3779B97F4A7C15ull) >> 53) & (HOT_RULES - 1);
  uint64_t packed = __atomic_load_n(&hot_rules[i].packed, __ATOMIC_RELAXED);
  uint64_t check = __atomic_load_n(&hot_rules[i].check, __ATOMIC_RELAXED);
  if (packed != 0 && (check ^ packed) == lookup_pc) {
    unpack_rule(packed, out);
    return 1;
  }
  if (!col_trace_published_rule(my_space, lookup_pc, out) || out->bp_offset != (int16_t)out->bp_offset)
    return 0;
  packed = pack_rule(out);
  __atomic_store_n(&hot_rules[i].packed, packed, __ATOMIC_RELAXED);
  __atomic_store_n(&hot_rules[i].check, lookup_pc ^ packed, __ATOMIC_RELAXED);
  return 1;
}

/* The call stack, walked here with the rules the sampler published, into
 * PCS (at most MAX): the number of addresses, or 0 when a frame has no
 * rule yet (the event then gets a stack copy, and the sampler publishes
 * its rules). */
static size_t walk_here(uint64_t ip, uint64_t sp, uint64_t bp, uintptr_t top, uint64_t *pcs, size_t max)
{
  if (my_space == 0)
    return 0;
  struct col_capture cap;
  cap.regs.r[PERF_REG_X86_IP] = ip;
  cap.regs.r[PERF_REG_X86_SP] = sp;
  cap.regs.r[PERF_REG_X86_BP] = bp;
  cap.regs.r[PERF_REG_X86_BX] = 0; /* (not known here: a frame whose CFA is RBX-based ends the walk) */
  cap.regs.r[PERF_REG_X86_AX] = 1; /* (a traced call is no new thread's first instruction in clone) */
  cap.stack = (const unsigned char *)(uintptr_t)sp; /* the live stack: the walk reads only inside it */
  cap.stack_len = top - (uintptr_t)sp;
  size_t n = 0;
  struct col_walk_memo *memo = thread_memo(col_trace_thread_id());
  if (col_walk_with_rules(&cap, shared_rule, NULL, pcs, max, &n, memo) != COL_WALK_DONE)
    return 0; /* (the memo still holds the last walk that finished) */
  return n;
}

/* The calling thread, as its events name it. */
static struct col_lane_origin this_thread(void)
{
  int cpu = sched_getcpu();
  return (struct col_lane_origin){my_pid != 0 ? my_pid : getpid(), col_trace_thread_id(),
                                  cpu < 0 ? 0 : (uint32_t)cpu, my_space};
}

/* A ring slot's event from F, made by thread O; its stack is the
 * caller's to fill. */
static void fill_event(struct col_trace_event *e, const struct col_trace_fields *f, const struct col_lane_origin *o)
{
  e->kind = f->kind;
  e->pid = o->pid;
  e->tid = o->tid;
  e->cpu = o->cpu;
  e->start = f->start;
  e->end = f->end;
  size_t payload_len = f->payload_len <= sizeof e->payload ? f->payload_len : sizeof e->payload;
  memcpy(e->payload, f->payload, payload_len);
  e->payload_len = (uint16_t)payload_len;
  e->space = o->space;
}

/* Stacks up to this depth are walked into the thread's own stack first,
 * for its lane; deeper ones straight into a ring slot. */
#define LANE_DEPTH 64

/* The event into the thread's lane, when the thread is not already inside
 * a recording (a signal handler's event goes through the ring) and its
 * stack walks here. */
static int record_in_lane(const struct col_trace_fields *f, uint64_t ip, uint64_t sp, uint64_t bp, uintptr_t top)
{
  uint64_t pcs[LANE_DEPTH];
  size_t n = walk_here(ip, sp, bp, top, pcs, LANE_DEPTH);
  if (n == 0 || n == LANE_DEPTH)
    return 0;
  struct col_lane_origin o = this_thread();
  col_trace_slot_state = IN_LANE; /* a signal handler's event meanwhile goes through the ring */
  int done = col_lane_record(f, pcs, n, &o);
  col_trace_slot_state = IDLE;
  return done;
}

void col_trace_record(const struct col_trace_fields *f, uint64_t ip, uint64_t sp, uint64_t bp)
{
  int saved = errno;
  uintptr_t top = stack_end((uintptr_t)sp);
  int before = col_trace_slot_state;
  if (top != 0 && before == IDLE && record_in_lane(f, ip, sp, bp, top)) {
    errno = saved;
    return;
  }
  col_trace_slot_state = before == HOLDING_SLOT ? HOLDING_SLOT : WAITING_FOR_SLOT;
  struct col_trace_event *e = top != 0 ? col_trace_reserve(before != HOLDING_SLOT) : NULL;
  if (e != NULL) {
    col_trace_slot_state = HOLDING_SLOT;
    size_t len = top - (uintptr_t)sp;
    if (len > COL_TRACE_STACK_MAX)
      len = COL_TRACE_STACK_MAX;
    if (len > col_cfg.stack_copy_bytes && col_cfg.stack_copy_bytes > 0)
      len = col_cfg.stack_copy_bytes;
    struct col_lane_origin o = this_thread();
    fill_event(e, f, &o);
    e->ip = ip;
    e->sp = sp;
    e->bp = bp;
    size_t max = ER_MAX_STACK_DEPTH + 1;
    if (max > COL_TRACE_STACK_MAX / sizeof(uint64_t))
      max = COL_TRACE_STACK_MAX / sizeof(uint64_t);
    size_t walked = walk_here(ip, sp, bp, top, (uint64_t *)(void *)e->stack, max);
    e->n_pcs = (uint32_t)walked;
    e->stack_len = (uint32_t)(walked * sizeof(uint64_t));
    if (walked == 0) {
      memcpy(e->stack, (const void *)(uintptr_t)sp, len);
      e->stack_len = (uint32_t)len;
    }
    col_trace_commit(e);
  }
  col_trace_slot_state = before;
  errno = saved;
}

void col_trace_record_pcs(const struct col_trace_fields *f, const uint64_t *pcs, size_t n)
{
  int saved = errno;
  int before = col_trace_slot_state;
  if (n > LANE_DEPTH)
    n = LANE_DEPTH;
  struct col_lane_origin o = this_thread();
  if (before == IDLE && n > 0) {
    col_trace_slot_state = IN_LANE;
    int done = col_lane_record(f, pcs, n, &o);
    col_trace_slot_state = IDLE;
    if (done) {
      errno = saved;
      return;
    }
  }
  col_trace_slot_state = before == HOLDING_SLOT ? HOLDING_SLOT : WAITING_FOR_SLOT;
  struct col_trace_event *e = col_trace_reserve(before != HOLDING_SLOT);
  if (e != NULL) {
    col_trace_slot_state = HOLDING_SLOT;
    fill_event(e, f, &o);
    e->ip = pcs != NULL && n > 0 ? pcs[0] : 0;
    e->sp = e->bp = 0;
    memcpy(e->stack, pcs, n * sizeof *pcs);
    e->n_pcs = (uint32_t)n;
    e->stack_len = (uint32_t)(n * sizeof *pcs);
    col_trace_commit(e);
  }
  col_trace_slot_state = before;
  errno = saved;
}
