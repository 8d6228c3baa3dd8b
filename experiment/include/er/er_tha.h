/* Thread Analyzer's deadlock data (`collector tha deadlock`): the packet
 * of a lock order (docs/experiment-format.md §5.5a).
 *
 * gprofng 2.40 aborts on a <profile name="deadlock"> (its table of data
 * types has no name for it), so a lock order is a packet of kind 13
 * (gprofng's DEADLOCK_PCKT number, a key only here) declared inside
 * <profile name="synctrace"> and stored in the synctrace file: gprofng
 * reads it as a synchronization event of no length (Sync Wait Count
 * counts lock orders where they were taken) and keeps DID, DTYPE, DLTYPE
 * and DVADDR, names it predefines, as properties (-filters 'DTYPE==0').
 * Our reader reads every field and finds the cycles. */
#ifndef ER_THA_H
#define ER_THA_H

#include <stdint.h>

#include "er/er_format.h"

#define ER_PKT_LOCK_ORDER 13

/* DTYPE: what the packet says. */
enum er_lock_event {
  ER_LOCK_ORDER = 0,   /* the thread took SOBJ while holding DVADDR */
  ER_LOCK_DEADLOCK = 1 /* an actual deadlock: thread DTHREAD waits for SOBJ and holds DVADDR (one packet per
                          thread of the cycle, DID the deadlock's number; the stack: the thread that found it) */
};

/* DLTYPE: the kind of the lock taken. */
enum er_lock_kind { ER_LOCK_MUTEX = 0, ER_LOCK_READ = 1, ER_LOCK_WRITE = 2, ER_LOCK_SPIN = 3 };

/* A lock order: the thread took SOBJ while it held DVADDR (taken at
 * HELDPC); its stack is where it took SOBJ.  The first time a process
 * takes one lock while holding another, once per pair. */
struct er_lock_order_packet {
  ER_COMMON_HEADER;
  int64_t srqst;   /* = TSTAMP: a synchronization event of no length to gprofng */
  uint64_t sobj;   /* the lock taken */
  int32_t did;     /* the pair's number in the process, from 1 */
  int32_t dtype;   /* enum er_lock_event */
  int32_t dltype;  /* enum er_lock_kind of the lock taken */
  int32_t heldtype; /* enum er_lock_kind of the lock held */
  uint64_t dvaddr; /* the lock held */
  uint64_t heldpc; /* where the held lock was taken (the call's return address); 0 in a deadlock's packet */
  uint64_t dthread; /* the thread: the one that took the locks, or that waits in a deadlock */
};

_Static_assert(sizeof(struct er_lock_order_packet) == 104, "lock order packet is 104 bytes");
_Static_assert(__builtin_offsetof(struct er_lock_order_packet, srqst) == 48, "SRQST at 48");
_Static_assert(__builtin_offsetof(struct er_lock_order_packet, sobj) == 56, "SOBJ at 56");
_Static_assert(__builtin_offsetof(struct er_lock_order_packet, dvaddr) == 80, "DVADDR at 80");

/* A data race ThreadSanitizer found (`collector tha race`, programs built
 * with -fsanitize=thread): one packet per access of the race (two), kind
 * 10 (gprofng's RACE_PCKT number, a key only) in the synctrace file, the
 * access's own stack (ThreadSanitizer's) as the packet's, LEAFPC the
 * accessing instruction (gprofng makes it the leaf frame). */
#define ER_PKT_RACE 10
#define ER_RACE_LOCKS 4

/* RTYPE: gprofng's Race_type numbers for the accesses; then ours: the
 * race's location is a heap block, and the packet's stack is where it was
 * allocated (SOBJ its start, RSIZE its size, RTID the allocating thread),
 * written after the race's accesses. */
enum er_race_type { ER_RACE_WRITE = 0, ER_RACE_READ = 2, ER_RACE_ALLOCATION = 4 };

struct er_race_packet {
  ER_COMMON_HEADER;
  int64_t srqst;   /* = TSTAMP */
  uint64_t sobj;   /* the address accessed */
  int32_t rid;     /* the race's number in the process, from 1 */
  int32_t rtype;   /* enum er_race_type */
  uint64_t rvaddr; /* the address accessed */
  uint64_t leafpc; /* the accessing instruction */
  int32_t rsize;   /* bytes accessed */
  int32_t rtid;    /* ThreadSanitizer's number of the accessing thread */
  int32_t ratomic; /* an atomic access */
  int32_t rlocks;  /* mutexes the racing threads held (the report's; up to ER_RACE_LOCKS below) */
  uint64_t rlock[ER_RACE_LOCKS];
  uint64_t rlocstart, rlocsize; /* the location: a global's or heap block's start and size (0: unknown) */
};

_Static_assert(sizeof(struct er_race_packet) == 152, "race packet is 152 bytes");
_Static_assert(__builtin_offsetof(struct er_race_packet, rid) == 64, "RID at 64");
_Static_assert(__builtin_offsetof(struct er_race_packet, leafpc) == 80, "LEAFPC at 80");

#endif
