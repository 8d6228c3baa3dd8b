/* Binary layouts of the experiment files, as gprofng 2.40 reads them.
 *
 * The format as this project writes and reads it is docs/experiment-format.md;
 * "§N" in comments (here and across the tree) refers to its sections.  Everything is little-endian, 64-bit (wsize="64").
 * Writer and reader share these definitions so that a layout mistake shows
 * up in the round-trip unit tests rather than as silent zeros in gprofng.  */
#ifndef ER_FORMAT_H
#define ER_FORMAT_H

#include <stdint.h>
#include "er/er_stack_packets.h"

/* Packet kinds (§5.2).  Apart from EMPTY, FRAME and CLOSED these are keys
 * into the <profpckt kind=…> descriptors that log.xml declares. */
enum er_packet_type {
  ER_PKT_EMPTY = 0,
  ER_PKT_SYNC = 2,
  ER_PKT_HW = 3,
  ER_PKT_HEAP = 5,
  ER_PKT_CLOCK = 8, /* "OPROF", the Linux clock packet */
  ER_PKT_FRAME = 11,
  ER_PKT_UID = 17, /* a user-mode call stack (§6.1b) */
  ER_PKT_IOTRACE = 19,
  ER_PKT_CLOSED = 0xFFFF,
};

/* Data files are written in blocks of this size; the EMPTY packet that pads a
 * block must fit its 16-bit tsize, so a block can be no larger (§5.1). */
#define ER_BLOCK_SIZE 65536u
/* The reader skips to the next boundary of this size after tsize == 0. */
#define ER_READER_CHUNK 16384u

struct er_packet_header {
  uint16_t tsize;
  uint16_t type;
} __attribute__((packed));

/* Clock profile packet, kind 8, 56 bytes (§5.4).  TSTAMP sits at offset 28:
 * the collector declares it packed, and the log.xml descriptor says so. */
struct er_clock_packet {
  uint16_t tsize;
  uint16_t type;
  uint32_t pad0;
  uint64_t lwpid;
  uint64_t thrid;
  uint32_t cpuid;
  int64_t tstamp;
  uint64_t frinfo;
  int32_t mstate;
  int32_t ntick;
  uint32_t reason; /* ours, where gprofng's packet has padding: enum er_offcpu_reason (er_offcpu.h), 0 on a CPU */
} __attribute__((packed));

_Static_assert(sizeof(struct er_clock_packet) == 56, "clock packet is 56 bytes");

/* The common 48-byte header of the tracing packets (§5.3), naturally
 * aligned (the clock packet's, above, is packed: TSTAMP at 28). */
#define ER_COMMON_HEADER \
  uint16_t tsize;        \
  uint16_t type;         \
  uint32_t pad0;         \
  uint64_t lwpid;        \
  uint64_t thrid;        \
  uint32_t cpuid;        \
  uint32_t pad1;         \
  int64_t tstamp;        \
  uint64_t frinfo

/* The tracing packets as one: the common header, then the kind's own
 * fields (the payload a traced event carries). */
struct er_common_packet {
  ER_COMMON_HEADER;
};
#define ER_PACKET_HEADER_SIZE 48
_Static_assert(sizeof(struct er_common_packet) == ER_PACKET_HEADER_SIZE, "the common header is 48 bytes");

/* Synchronization wait packet, kind 2, 64 bytes (§5.5): the common
 * 48-byte header (naturally aligned), then when the wait began and what it
 * waited on.  TSTAMP is when the wait ended. */
struct er_sync_packet {
  ER_COMMON_HEADER;
  int64_t srqst;
  uint64_t sobj;
};

_Static_assert(sizeof(struct er_sync_packet) == 64, "sync packet is 64 bytes");
_Static_assert(__builtin_offsetof(struct er_sync_packet, tstamp) == 32, "common header: TSTAMP at 32");
_Static_assert(__builtin_offsetof(struct er_sync_packet, srqst) == 48, "SRQST at 48");

/* Heap trace packet, kind 5, 80 bytes (§5.6): the common header, then what
 * happened (HTYPE), the size asked for, the block, and for a realloc the
 * block it replaced (gprofng's own collector leaves that 0, so a moved
 * block looks leaked); for a munmap, HOVADDR is the length unmapped (as
 * gprofng's reader takes it).  TSTAMP is when the call returned. */
enum er_heap_type { ER_HEAP_MALLOC = 0, ER_HEAP_FREE = 1, ER_HEAP_REALLOC = 2, ER_HEAP_MMAP = 3, ER_HEAP_MUNMAP = 4 };
struct er_heap_packet {
  ER_COMMON_HEADER;
  int32_t htype;
  int32_t pad2;
  uint64_t hsize;
  uint64_t hvaddr;
  uint64_t hovaddr;
};

_Static_assert(sizeof(struct er_heap_packet) == 80, "heap packet is 80 bytes");
_Static_assert(__builtin_offsetof(struct er_heap_packet, htype) == 48, "HTYPE at 48");
_Static_assert(__builtin_offsetof(struct er_heap_packet, hsize) == 56, "HSIZE at 56");
_Static_assert(__builtin_offsetof(struct er_heap_packet, hovaddr) == 72, "HOVADDR at 72");

/* Hardware counter packet, kind 3, 64 bytes (§5.8): the common header,
 * the counter's tag (the `tag` of its <profile name="hwcounter">) and the
 * events this overflow stands for (the counter's interval). */
struct er_hwc_packet {
  ER_COMMON_HEADER;
  uint32_t hwctag;
  uint32_t pad2;
  uint64_t hwcint;
};

_Static_assert(sizeof(struct er_hwc_packet) == 64, "hardware counter packet is 64 bytes");
_Static_assert(__builtin_offsetof(struct er_hwc_packet, hwctag) == 48, "HWCTAG at 48");
_Static_assert(__builtin_offsetof(struct er_hwc_packet, hwcint) == 56, "HWCINT at 56");

/* I/O trace packet, kind 19, variable size (§5.7): the common header, the
 * call's type, descriptors, bytes and start, then the path of an open
 * (NUL-terminated); the size is rounded up to a multiple of 8.  TSTAMP is
 * when the call returned. */
#define ER_IO_UNKNOWN_FSTYPE 24
struct er_io_packet {
  ER_COMMON_HEADER;
  int32_t iotype;
  int32_t iofd;
  int64_t ionbyte;
  int64_t iorqst;
  int32_t iofd_original;
  int32_t iofstype;
  char iofname[8]; /* at least the NUL; longer paths run past the struct */
};

_Static_assert(sizeof(struct er_io_packet) == 88, "I/O packet with no name is 88 bytes");
_Static_assert(__builtin_offsetof(struct er_io_packet, iotype) == 48, "IOTYPE at 48");
_Static_assert(__builtin_offsetof(struct er_io_packet, iorqst) == 64, "IORQST at 64");
_Static_assert(__builtin_offsetof(struct er_io_packet, iofname) == 80, "IOFNAME at 80");

/* Linux reports total CPU only: "User+System CPU" (§5.4, MSTATE values). */
#define ER_MSTATE_LINUX_CPU 10
#define ER_MSTATE_USER 0 /* LMS_USER: what gprofng's OpenMP Work counts (§5.4) */

/* The id of a log.xml warning (cwarn) that gprofng shows with our own text:
 * its COL_WARN_APP_NOT_READY, printed "*** Collect: TEXT" (COL_WARN_NONE,
 * 200, is shown as "*** Collector Warning: No warning" whatever the text
 * says; an id it does not know as "Number N (TEXT)"). */
#define ER_CWARN_TEXT 227

/* overview record, 64-bit layout, 504 bytes (§7). */
struct er_timespec_pair {
  uint64_t sec;
  uint64_t nsec;
};

struct er_overview_record {
  int32_t lwpid;
  int32_t count;
  struct er_timespec_pair tstamp;
  struct er_timespec_pair create;
  struct er_timespec_pair term;
  struct er_timespec_pair rtime;
  struct er_timespec_pair utime;
  struct er_timespec_pair stime;
  struct er_timespec_pair unused_times[8];
  struct er_timespec_pair filler_times[6];
  uint64_t minf, majf, nswap, inblk, oublk, msnd, mrcv, sigs, vctx, ictx, sysc, ioch;
  uint64_t filler[10];
} __attribute__((packed));

_Static_assert(sizeof(struct er_overview_record) == 504, "overview record is 504 bytes");

#endif
