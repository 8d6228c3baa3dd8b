/* Candidate mechanisms for OpenMP states (issue 28), as an LD_PRELOAD shim
 * over libgomp's GOMP_parallel, to be measured with omp_epcc against the
 * program alone (bench/omp_mechanisms.py).  Each variant is what the
 * runtime would add to every parallel region:
 *   PASS   the interposition alone (a call through our GOMP_parallel);
 *   TRAMP  the outlined function run through a trampoline of ours (its
 *          frame on every worker's stack marks the region's work, and its
 *          return the start of the implicit barrier);
 *   STAMPS TRAMP plus the region's begin and end times and each thread's
 *          end of work, as time-stamp counter reads stored in a table the
 *          sampler process would read (what tells the implicit barrier
 *          from idling, with no trace event per region);
 *   EVENT  TRAMP plus a system call per region begin and end, the order
 *          of what a traced event costs (a trace-ring event is cheaper
 *          than a syscall, dearer than a store). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <x86intrin.h>

typedef void (*outlined_fn)(void *);
static void (*real_parallel)(outlined_fn, void *, unsigned, unsigned);

struct region {
  outlined_fn fn;
  void *data;
};

#define SLOTS 65536
static uint64_t stamps[SLOTS][2];
static unsigned next_slot;
#ifdef STAMPS
static __thread uint64_t work_ended;
#endif

static void trampoline(void *p)
{
  const struct region *r = p;
  r->fn(r->data);
#ifdef STAMPS
  work_ended = __rdtsc();
#endif
}

void GOMP_parallel(outlined_fn fn, void *data, unsigned threads, unsigned flags)
{
  if (real_parallel == NULL)
    real_parallel = (void (*)(outlined_fn, void *, unsigned, unsigned))dlsym(RTLD_NEXT, "GOMP_parallel");
#if defined(STAMPS)
  unsigned slot = __atomic_fetch_add(&next_slot, 1, __ATOMIC_RELAXED) % SLOTS;
  stamps[slot][0] = __rdtsc();
#elif defined(EVENT)
  syscall(SYS_getppid);
#endif
#if defined(TRAMP) || defined(STAMPS) || defined(EVENT)
  struct region r = {fn, data};
  real_parallel(trampoline, &r, threads, flags);
#else
  real_parallel(fn, data, threads, flags);
#endif
#if defined(STAMPS)
  stamps[slot][1] = __rdtsc();
#elif defined(EVENT)
  syscall(SYS_getppid);
#endif
}
