/* The events an experiment holds, one struct per kind of packet, as the
 * reader (er_reader.h) gives them: clock and off-CPU samples, counter
 * overflows, synchronization waits, I/O calls, heap events, lock orders
 * and data races.  Times are the packets' (absolute unless said). */
#ifndef ER_EVENTS_H
#define ER_EVENTS_H

#include <stdint.h>

/* A lock order (er_tha.h): thread THRID took LOCK (its stack: FRINFO)
 * while it held HELD, taken at HELD_PC.  Or, DEADLOCK set, one thread of
 * an actual deadlock: THRID waits for LOCK and holds HELD. */
struct er_lock_order {
  uint64_t thrid;
  int64_t tstamp;
  uint64_t frinfo;
  uint64_t lock, held, held_pc;
  int32_t number, kind, held_kind;
  int32_t deadlock;
};

/* One access of a data race ThreadSanitizer found (er_tha.h): race
 * NUMBER, by ThreadSanitizer's thread TSAN_TID (THRID: the thread that
 * reported it), its stack FRINFO (the access's own). */
struct er_race_access {
  uint64_t thrid;
  int64_t tstamp;
  uint64_t frinfo;
  int32_t number, write, size, tsan_tid, atomic;
  uint64_t addr, pc, loc_start, loc_size;
  int32_t n_locks; /* the mutexes the racing threads held */
  uint64_t locks[4];
  uint64_t alloc_frinfo; /* a heap block location: where it was allocated (0: not known) */
  int32_t alloc_tid;     /* and by which thread (ThreadSanitizer's numbering) */
};


/* A clock packet: a CPU sample (NTICK periods), or time off the CPU for
 * REASON (collector profile offcpu). */
struct er_clock_sample {
  uint64_t lwpid, thrid;
  uint32_t cpuid;
  int64_t tstamp;
  uint64_t frinfo;
  int32_t mstate, ntick;
  uint32_t reason; /* enum er_offcpu_reason: 0 in a CPU sample */
};

/* A synchronization wait (synctrace). */
struct er_sync_wait {
  uint64_t thrid;
  int64_t start, end; /* absolute; 0 <= start <= end (the reader counts others damaged) */
  uint64_t frinfo, object;
};

/* An I/O call (iotrace). */
struct er_io_call {
  uint64_t thrid;
  int64_t start, end; /* absolute; 0 <= start <= end (the reader counts others damaged) */
  uint64_t frinfo;
  int32_t iotype, fd, ofd;
  int64_t nbytes;
  char *name; /* an open's path; NULL otherwise */
};

/* An allocation, free, realloc, mmap or munmap (heaptrace). */
struct er_heap_event {
  uint64_t thrid;
  int64_t tstamp; /* absolute */
  uint64_t frinfo;
  int32_t htype; /* enum er_heap_type */
  uint64_t size, addr, old_addr;
};

/* A counter overflow (hwcounters): TAG's counter, INTERVAL events. */
struct er_hwc_sample {
  uint64_t thrid;
  int64_t tstamp;
  uint64_t frinfo;
  uint32_t tag;
  uint64_t interval;
};

#endif
