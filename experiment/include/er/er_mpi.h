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
 * rule, collectives included).  The list is the seeds' (Oracle's MPI
 * tracing), with MPI_Init_thread and MPI_Cancel. */
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
  X(43, MPI_Request_free, OTHER) X(44, MPI_Cancel, OTHER)                                                 \
  /* persistent requests: a send counts at its start, a receive when it completes */                     \
  X(45, MPI_Send_init, OTHER) X(46, MPI_Bsend_init, OTHER) X(47, MPI_Rsend_init, OTHER)                       \
  X(48, MPI_Ssend_init, OTHER) X(49, MPI_Recv_init, OTHER) X(50, MPI_Start, SEND) X(51, MPI_Startall, SEND)   \
  X(52, MPI_Accumulate, OTHER) X(53, MPI_Address, OTHER) X(54, MPI_Alltoallw, OTHER)                          \
  X(55, MPI_Attr_delete, OTHER) X(56, MPI_Attr_get, OTHER) X(57, MPI_Attr_put, OTHER)                         \
  X(58, MPI_Buffer_attach, OTHER) X(59, MPI_Buffer_detach, OTHER) X(60, MPI_Cart_coords, OTHER)               \
  X(61, MPI_Cart_create, OTHER) X(62, MPI_Cart_get, OTHER) X(63, MPI_Cart_map, OTHER)                         \
  X(64, MPI_Cart_rank, OTHER) X(65, MPI_Cart_shift, OTHER) X(66, MPI_Cart_sub, OTHER)                         \
  X(67, MPI_Cartdim_get, OTHER) X(68, MPI_Comm_compare, OTHER) X(69, MPI_Comm_create, OTHER)                  \
  X(70, MPI_Comm_group, OTHER) X(71, MPI_Comm_rank, OTHER) X(72, MPI_Comm_remote_group, OTHER)                \
  X(73, MPI_Comm_remote_size, OTHER) X(74, MPI_Comm_size, OTHER) X(75, MPI_Comm_test_inter, OTHER)            \
  X(76, MPI_Dims_create, OTHER) X(77, MPI_Errhandler_create, OTHER) X(78, MPI_Errhandler_free, OTHER)         \
  X(79, MPI_Errhandler_get, OTHER) X(80, MPI_Errhandler_set, OTHER) X(81, MPI_Error_class, OTHER)             \
  X(82, MPI_Error_string, OTHER) X(83, MPI_File_close, OTHER) X(84, MPI_File_delete, OTHER)                   \
  X(85, MPI_File_get_amode, OTHER) X(86, MPI_File_get_atomicity, OTHER)                                       \
  X(87, MPI_File_get_byte_offset, OTHER) X(88, MPI_File_get_group, OTHER) X(89, MPI_File_get_info, OTHER)     \
  X(90, MPI_File_get_position, OTHER) X(91, MPI_File_get_position_shared, OTHER)                              \
  X(92, MPI_File_get_size, OTHER) X(93, MPI_File_get_type_extent, OTHER) X(94, MPI_File_get_view, OTHER)      \
  X(95, MPI_File_iread, OTHER) X(96, MPI_File_iread_at, OTHER) X(97, MPI_File_iread_shared, OTHER)            \
  X(98, MPI_File_iwrite, OTHER) X(99, MPI_File_iwrite_at, OTHER) X(100, MPI_File_iwrite_shared, OTHER)        \
  X(101, MPI_File_open, OTHER) X(102, MPI_File_preallocate, OTHER) X(103, MPI_File_read, OTHER)               \
  X(104, MPI_File_read_all, OTHER) X(105, MPI_File_read_all_begin, OTHER)                                     \
  X(106, MPI_File_read_all_end, OTHER) X(107, MPI_File_read_at, OTHER) X(108, MPI_File_read_at_all, OTHER)    \
  X(109, MPI_File_read_at_all_begin, OTHER) X(110, MPI_File_read_at_all_end, OTHER)                           \
  X(111, MPI_File_read_ordered, OTHER) X(112, MPI_File_read_ordered_begin, OTHER)                             \
  X(113, MPI_File_read_ordered_end, OTHER) X(114, MPI_File_read_shared, OTHER) X(115, MPI_File_seek, OTHER)   \
  X(116, MPI_File_seek_shared, OTHER) X(117, MPI_File_set_atomicity, OTHER)                                   \
  X(118, MPI_File_set_info, OTHER) X(119, MPI_File_set_size, OTHER) X(120, MPI_File_set_view, OTHER)          \
  X(121, MPI_File_sync, OTHER) X(122, MPI_File_write, OTHER) X(123, MPI_File_write_all, OTHER)                \
  X(124, MPI_File_write_all_begin, OTHER) X(125, MPI_File_write_all_end, OTHER)                               \
  X(126, MPI_File_write_at, OTHER) X(127, MPI_File_write_at_all, OTHER)                                       \
  X(128, MPI_File_write_at_all_begin, OTHER) X(129, MPI_File_write_at_all_end, OTHER)                         \
  X(130, MPI_File_write_ordered, OTHER) X(131, MPI_File_write_ordered_begin, OTHER)                           \
  X(132, MPI_File_write_ordered_end, OTHER) X(133, MPI_File_write_shared, OTHER) X(134, MPI_Get, OTHER)       \
  X(135, MPI_Get_count, OTHER) X(136, MPI_Get_elements, OTHER) X(137, MPI_Get_processor_name, OTHER)          \
  X(138, MPI_Get_version, OTHER) X(139, MPI_Graph_create, OTHER) X(140, MPI_Graph_get, OTHER)                 \
  X(141, MPI_Graph_map, OTHER) X(142, MPI_Graph_neighbors, OTHER) X(143, MPI_Graph_neighbors_count, OTHER)    \
  X(144, MPI_Graphdims_get, OTHER) X(145, MPI_Group_compare, OTHER) X(146, MPI_Group_difference, OTHER)       \
  X(147, MPI_Group_excl, OTHER) X(148, MPI_Group_free, OTHER) X(149, MPI_Group_incl, OTHER)                   \
  X(150, MPI_Group_intersection, OTHER) X(151, MPI_Group_rank, OTHER) X(152, MPI_Group_size, OTHER)           \
  X(153, MPI_Group_translate_ranks, OTHER) X(154, MPI_Group_union, OTHER)                                     \
  X(155, MPI_Intercomm_create, OTHER) X(156, MPI_Intercomm_merge, OTHER) X(157, MPI_Keyval_create, OTHER)     \
  X(158, MPI_Keyval_free, OTHER) X(159, MPI_Op_create, OTHER) X(160, MPI_Op_free, OTHER)                      \
  X(161, MPI_Pack, OTHER) X(162, MPI_Pack_size, OTHER) X(163, MPI_Put, OTHER)                                 \
  X(164, MPI_Test_cancelled, OTHER) X(165, MPI_Topo_test, OTHER) X(166, MPI_Type_commit, OTHER)               \
  X(167, MPI_Type_contiguous, OTHER) X(168, MPI_Type_extent, OTHER) X(169, MPI_Type_free, OTHER)              \
  X(170, MPI_Type_hindexed, OTHER) X(171, MPI_Type_hvector, OTHER) X(172, MPI_Type_indexed, OTHER)            \
  X(173, MPI_Type_lb, OTHER) X(174, MPI_Type_size, OTHER) X(175, MPI_Type_struct, OTHER)                      \
  X(176, MPI_Type_ub, OTHER) X(177, MPI_Type_vector, OTHER) X(178, MPI_Unpack, OTHER)                         \
  X(179, MPI_Win_complete, OTHER) X(180, MPI_Win_create, OTHER) X(181, MPI_Win_fence, OTHER)                  \
  X(182, MPI_Win_free, OTHER) X(183, MPI_Win_lock, OTHER) X(184, MPI_Win_post, OTHER)                         \
  X(185, MPI_Win_start, OTHER) X(186, MPI_Win_test, OTHER) X(187, MPI_Win_unlock, OTHER)

enum er_mpi_counting { ER_MPI_OTHER, ER_MPI_SEND, ER_MPI_RECV, ER_MPI_BOTH, ER_MPI_COMPLETE };

#define ER_MPI_ENUM(id, name, counting) ER_##name = id,
enum er_mpi_function { ER_MPI_FUNCTIONS(ER_MPI_ENUM) ER_MPI_N_FUNCTIONS };
#undef ER_MPI_ENUM

/* The name of MPIFUNC ID ("MPI_Send"), or NULL for a number this version
 * does not know. */
const char *er_mpi_function_name(int id);

#endif
