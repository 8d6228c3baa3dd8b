/* MPI tracing's packet and the numbers it stores: the functions traced and
 * how each counts (docs/experiment-format.md, "MPI tracing").
 *
 * gprofng 2.40 has no reader for MPI data (an MPI <profile> with fields is
 * a fatal "Log file is corrupted"), so an MPI call is written as a packet
 * of kind 6 declared inside <profile name="iotrace"> and stored in the
 * iotrace file: gprofng reads a send as a write, a receive as a read and
 * any other call as other I/O, on a "file" per peer (a channel, named by
 * an open packet of the same kind), and keeps the MPI fields as
 * properties usable in filters (MPIPEER==2).  Our reader reads every
 * field. */
#ifndef ER_MPI_H
#define ER_MPI_H

#include <stdint.h>

#include "er/er_format.h"

#define ER_PKT_MPI 6 /* gprofng's MPI_PCKT: a key only, never read as MPI by 2.40 */

/* IOTYPE as gprofng reads it (its IOTrace_type). */
enum er_mpi_iotype { ER_MPI_AS_RECEIVE = 0, ER_MPI_AS_SEND = 1, ER_MPI_AS_CHANNEL = 2, ER_MPI_AS_OTHER = 4 };

/* Channels' IOFD: far above any descriptor, so that they never meet the
 * I/O tracing's real ones in gprofng's table of files. */
#define ER_MPI_CHANNEL_FD_BASE 0x40000000

/* MPI call packet, kind 6, 136 bytes and more: the common header, the I/O
 * fields gprofng reads, then the call's own.  TSTAMP is when the call
 * returned, IORQST when it began. */
struct er_mpi_packet {
  ER_COMMON_HEADER;
  int32_t iotype;        /* enum er_mpi_iotype */
  int32_t iofd;          /* the channel (ER_MPI_CHANNEL_FD_BASE + n), or -1 */
  int64_t ionbyte;       /* bytes sent by a send, received by a receive; else 0 */
  int64_t iorqst;        /* start */
  int32_t iofd_original; /* -1 */
  int32_t iofstype;      /* ER_IO_UNKNOWN_FSTYPE */
  int32_t mpifunc;       /* enum er_mpi_function */
  int32_t mpipeer;       /* the peer's rank in the communicator; -1: none or several */
  int32_t mpitag;        /* the message's tag; -1: none */
  int32_t mpicomm;       /* 0: MPI_COMM_WORLD, 1: MPI_COMM_SELF, n: the process's n-th other */
  uint32_t mpiscount;    /* point-to-point messages this call started sending */
  uint32_t mpircount;    /* point-to-point messages this call completed receiving */
  int64_t mpisbytes;     /* their bytes */
  int64_t mpirbytes;
  /* 0: a call's packet (its whole span); n: the n-th more message the same
   * call completed (a Waitall's second receive, a Sendrecv's receive), at
   * its end with no span of its own, so that gprofng counts and sizes
   * every message on its own channel. */
  int32_t mpipart;
  int32_t pad2;
  char iofname[8]; /* a channel's name (ER_MPI_AS_CHANNEL), else empty; may run past the struct */
};

_Static_assert(sizeof(struct er_mpi_packet) == 136, "MPI packet with no name is 136 bytes");
_Static_assert(__builtin_offsetof(struct er_mpi_packet, iotype) == 48, "IOTYPE at 48");
_Static_assert(__builtin_offsetof(struct er_mpi_packet, iorqst) == 64, "IORQST at 64");
_Static_assert(__builtin_offsetof(struct er_mpi_packet, mpifunc) == 80, "MPIFUNC at 80");
_Static_assert(__builtin_offsetof(struct er_mpi_packet, mpisbytes) == 104, "MPISBYTES at 104");
_Static_assert(__builtin_offsetof(struct er_mpi_packet, mpipart) == 120, "MPIPART at 120");
_Static_assert(__builtin_offsetof(struct er_mpi_packet, iofname) == 128, "IOFNAME at 128");

/* The functions traced, with their number in MPIFUNC (stable: the
 * experiment stores it; new ones go at the end) and how they count:
 * SEND (starts sending point-to-point messages), RECV (completes
 * receiving them), BOTH, COMPLETE (completes requests: a receive counts
 * when its request completes here), OTHER (no message counted: the seeds'
 * rule, collectives included). */
#define ER_MPI_FUNCTIONS(X)                                                                            \
  X(0, MPI_Init, OTHER) X(1, MPI_Init_thread, OTHER) X(2, MPI_Finalize, OTHER) X(3, MPI_Abort, OTHER)    \
  X(4, MPI_Send, SEND) X(5, MPI_Ssend, SEND) X(6, MPI_Bsend, SEND) X(7, MPI_Rsend, SEND)                  \
  X(8, MPI_Isend, SEND) X(9, MPI_Issend, SEND) X(10, MPI_Ibsend, SEND) X(11, MPI_Irsend, SEND)            \
  X(12, MPI_Recv, RECV) X(13, MPI_Irecv, OTHER) X(14, MPI_Sendrecv, BOTH)                                \
  X(15, MPI_Sendrecv_replace, BOTH) X(16, MPI_Probe, OTHER) X(17, MPI_Iprobe, OTHER)                      \
  X(18, MPI_Wait, COMPLETE) X(19, MPI_Waitall, COMPLETE) X(20, MPI_Waitany, COMPLETE)                    \
  X(21, MPI_Waitsome, COMPLETE) X(22, MPI_Test, COMPLETE) X(23, MPI_Testall, COMPLETE)                   \
  X(24, MPI_Testany, COMPLETE) X(25, MPI_Testsome, COMPLETE) X(26, MPI_Barrier, OTHER)                   \
  X(27, MPI_Bcast, OTHER) X(28, MPI_Reduce, OTHER) X(29, MPI_Allreduce, OTHER) X(30, MPI_Gather, OTHER)   \
  X(31, MPI_Gatherv, OTHER) X(32, MPI_Scatter, OTHER) X(33, MPI_Scatterv, OTHER)                         \
  X(34, MPI_Allgather, OTHER) X(35, MPI_Allgatherv, OTHER) X(36, MPI_Alltoall, OTHER)                    \
  X(37, MPI_Alltoallv, OTHER) X(38, MPI_Reduce_scatter, OTHER) X(39, MPI_Scan, OTHER)                    \
  X(40, MPI_Comm_split, OTHER) X(41, MPI_Comm_dup, OTHER) X(42, MPI_Comm_free, OTHER)                    \
  X(43, MPI_Request_free, OTHER) X(44, MPI_Cancel, OTHER)

enum er_mpi_counting { ER_MPI_OTHER, ER_MPI_SEND, ER_MPI_RECV, ER_MPI_BOTH, ER_MPI_COMPLETE };

#define ER_MPI_ENUM(id, name, counting) ER_##name = id,
enum er_mpi_function { ER_MPI_FUNCTIONS(ER_MPI_ENUM) ER_MPI_N_FUNCTIONS };
#undef ER_MPI_ENUM

/* The name of MPIFUNC ID ("MPI_Send"), or NULL for a number this version
 * does not know. */
const char *er_mpi_function_name(int id);

#endif
