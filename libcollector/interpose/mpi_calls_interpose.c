/* MPI tracing's persistent requests, and the rest of the seeds' list of
 * MPI functions (interposed_mpi_table.h): each traced as a call, with its
 * communicator where it has one.
 *
 * A persistent send (MPI_Send_init and its kin) counts a message at each
 * MPI_Start; a persistent receive (MPI_Recv_init) is posted at each start
 * and counts when a Wait or Test completes it, as an MPI_Irecv does. */
#define _GNU_SOURCE
#include <stddef.h>

#include "er/er_mpi.h"
#include "mpi_record.h"

/* ---- persistent requests --------------------------------------------- */

static void remember(const struct col_mpi_abi *abi, int rc, const void *request, int sends, int peer, int tag,
                     col_mpi_handle comm, col_mpi_handle type, int count)
{
  struct col_mpi_persistent p = {sends, peer, tag, col_mpi_comm_id(abi, comm), col_mpi_type_bytes(abi, type, count)};
  if (rc == 0)
    col_mpi_persistent_made(col_mpi_handle_at(abi, request, 0), &p);
}

#define PERSISTENT_SEND(name)                                                                                  \
  int col_wrap_##name(const void *buf, int count, col_mpi_handle type, int dest, int tag, col_mpi_handle comm, \
                      void *request)                                                                          \
  {                                                                                                           \
    TRACED_MPI(ER_##name, COL_REAL(name)(buf, count, type, dest, tag, comm, request), {                        \
      remember(abi_, rc_, request, 1, dest, tag, comm, type, count);                                           \
      OTHER(comm);                                                                                            \
    });                                                                                                       \
  }
PERSISTENT_SEND(MPI_Send_init)
PERSISTENT_SEND(MPI_Bsend_init)
PERSISTENT_SEND(MPI_Rsend_init)
PERSISTENT_SEND(MPI_Ssend_init)

int col_wrap_MPI_Recv_init(void *buf, int count, col_mpi_handle type, int source, int tag, col_mpi_handle comm,
                           void *request)
{
  TRACED_MPI(ER_MPI_Recv_init, COL_REAL(MPI_Recv_init)(buf, count, type, source, tag, comm, request), {
    remember(abi_, rc_, request, 0, source, tag, comm, type, count);
    OTHER(comm);
  });
}

/* What starting persistent request I of REQUESTS did: a send's message, or
 * a receive posted for its completion. */
static void started(const struct col_mpi_abi *abi, const struct mpi_span *s, const void *requests, int i,
                    int *messages)
{
  uintptr_t handle = col_mpi_handle_at(abi, requests, i);
  struct col_mpi_persistent p;
  if (!col_mpi_persistent_of(handle, &p))
    return;
  if (p.sends) {
    struct mpi_message m = col_mpi_sent(abi, 0, p.peer, p.tag, p.comm_id, p.bytes);
    if (m.iotype == ER_MPI_AS_SEND)
      col_mpi_record_message(s, &m, (*messages)++);
  } else {
    struct col_mpi_receive r = {p.peer, p.tag, p.comm_id, p.bytes};
    col_mpi_receive_posted(handle, &r);
  }
}

int col_wrap_MPI_Start(void *request)
{
  TRACED_MPI(ER_MPI_Start, COL_REAL(MPI_Start)(request), {
    int messages = 0;
    if (rc_ == 0)
      started(abi_, &s_, request, 0, &messages);
    col_mpi_record_if_no_message(&s_, messages);
  });
}

int col_wrap_MPI_Startall(int count, void *requests)
{
  TRACED_MPI(ER_MPI_Startall, COL_REAL(MPI_Startall)(count, requests), {
    int messages = 0;
    for (int i = 0; rc_ == 0 && i < count; i++)
      started(abi_, &s_, requests, i, &messages);
    col_mpi_record_if_no_message(&s_, messages);
  });
}

/* ---- the rest: calls with no message of their own ---------------------- */

/* NAME(N words): timed and recorded in the communicator of its argument
 * COMM (its place; -1: none). */
#define COL_MPI_CALLS(W) \
  W(MPI_Accumulate, 9, -1) \
  W(MPI_Address, 2, -1) \
  W(MPI_Alltoallw, 9, 8) \
  W(MPI_Attr_delete, 2, 0) \
  W(MPI_Attr_get, 4, 0) \
  W(MPI_Attr_put, 3, 0) \
  W(MPI_Buffer_attach, 2, -1) \
  W(MPI_Buffer_detach, 2, -1) \
  W(MPI_Cart_coords, 4, 0) \
  W(MPI_Cart_create, 6, 0) \
  W(MPI_Cart_get, 5, 0) \
  W(MPI_Cart_map, 5, 0) \
  W(MPI_Cart_rank, 3, 0) \
  W(MPI_Cart_shift, 5, 0) \
  W(MPI_Cart_sub, 3, 0) \
  W(MPI_Cartdim_get, 2, 0) \
  W(MPI_Comm_compare, 3, 0) \
  W(MPI_Comm_create, 3, 0) \
  W(MPI_Comm_group, 2, 0) \
  W(MPI_Comm_rank, 2, 0) \
  W(MPI_Comm_remote_group, 2, 0) \
  W(MPI_Comm_remote_size, 2, 0) \
  W(MPI_Comm_size, 2, 0) \
  W(MPI_Comm_test_inter, 2, 0) \
  W(MPI_Dims_create, 3, -1) \
  W(MPI_Errhandler_create, 2, -1) \
  W(MPI_Errhandler_free, 1, -1) \
  W(MPI_Errhandler_get, 2, 0) \
  W(MPI_Errhandler_set, 2, 0) \
  W(MPI_Error_class, 2, -1) \
  W(MPI_Error_string, 3, -1) \
  W(MPI_File_close, 1, -1) \
  W(MPI_File_delete, 2, -1) \
  W(MPI_File_get_amode, 2, -1) \
  W(MPI_File_get_atomicity, 2, -1) \
  W(MPI_File_get_byte_offset, 3, -1) \
  W(MPI_File_get_group, 2, -1) \
  W(MPI_File_get_info, 2, -1) \
  W(MPI_File_get_position, 2, -1) \
  W(MPI_File_get_position_shared, 2, -1) \
  W(MPI_File_get_size, 2, -1) \
  W(MPI_File_get_type_extent, 3, -1) \
  W(MPI_File_get_view, 5, -1) \
  W(MPI_File_iread, 5, -1) \
  W(MPI_File_iread_at, 6, -1) \
  W(MPI_File_iread_shared, 5, -1) \
  W(MPI_File_iwrite, 5, -1) \
  W(MPI_File_iwrite_at, 6, -1) \
  W(MPI_File_iwrite_shared, 5, -1) \
  W(MPI_File_open, 5, 0) \
  W(MPI_File_preallocate, 2, -1) \
  W(MPI_File_read, 5, -1) \
  W(MPI_File_read_all, 5, -1) \
  W(MPI_File_read_all_begin, 4, -1) \
  W(MPI_File_read_all_end, 3, -1) \
  W(MPI_File_read_at, 6, -1) \
  W(MPI_File_read_at_all, 6, -1) \
  W(MPI_File_read_at_all_begin, 5, -1) \
  W(MPI_File_read_at_all_end, 3, -1) \
  W(MPI_File_read_ordered, 5, -1) \
  W(MPI_File_read_ordered_begin, 4, -1) \
  W(MPI_File_read_ordered_end, 3, -1) \
  W(MPI_File_read_shared, 5, -1) \
  W(MPI_File_seek, 3, -1) \
  W(MPI_File_seek_shared, 3, -1) \
  W(MPI_File_set_atomicity, 2, -1) \
  W(MPI_File_set_info, 2, -1) \
  W(MPI_File_set_size, 2, -1) \
  W(MPI_File_set_view, 6, -1) \
  W(MPI_File_sync, 1, -1) \
  W(MPI_File_write, 5, -1) \
  W(MPI_File_write_all, 5, -1) \
  W(MPI_File_write_all_begin, 4, -1) \
  W(MPI_File_write_all_end, 3, -1) \
  W(MPI_File_write_at, 6, -1) \
  W(MPI_File_write_at_all, 6, -1) \
  W(MPI_File_write_at_all_begin, 5, -1) \
  W(MPI_File_write_at_all_end, 3, -1) \
  W(MPI_File_write_ordered, 5, -1) \
  W(MPI_File_write_ordered_begin, 4, -1) \
  W(MPI_File_write_ordered_end, 3, -1) \
  W(MPI_File_write_shared, 5, -1) \
  W(MPI_Get, 8, -1) \
  W(MPI_Get_count, 3, -1) \
  W(MPI_Get_elements, 3, -1) \
  W(MPI_Get_processor_name, 2, -1) \
  W(MPI_Get_version, 2, -1) \
  W(MPI_Graph_create, 6, 0) \
  W(MPI_Graph_get, 5, 0) \
  W(MPI_Graph_map, 5, 0) \
  W(MPI_Graph_neighbors, 4, 0) \
  W(MPI_Graph_neighbors_count, 3, 0) \
  W(MPI_Graphdims_get, 3, 0) \
  W(MPI_Group_compare, 3, -1) \
  W(MPI_Group_difference, 3, -1) \
  W(MPI_Group_excl, 4, -1) \
  W(MPI_Group_free, 1, -1) \
  W(MPI_Group_incl, 4, -1) \
  W(MPI_Group_intersection, 3, -1) \
  W(MPI_Group_rank, 2, -1) \
  W(MPI_Group_size, 2, -1) \
  W(MPI_Group_translate_ranks, 5, -1) \
  W(MPI_Group_union, 3, -1) \
  W(MPI_Intercomm_create, 6, 0) \
  W(MPI_Intercomm_merge, 3, 0) \
  W(MPI_Keyval_create, 4, -1) \
  W(MPI_Keyval_free, 1, -1) \
  W(MPI_Op_create, 3, -1) \
  W(MPI_Op_free, 1, -1) \
  W(MPI_Pack, 7, 6) \
  W(MPI_Pack_size, 4, 2) \
  W(MPI_Put, 8, -1) \
  W(MPI_Test_cancelled, 2, -1) \
  W(MPI_Topo_test, 2, 0) \
  W(MPI_Type_commit, 1, -1) \
  W(MPI_Type_contiguous, 3, -1) \
  W(MPI_Type_extent, 2, -1) \
  W(MPI_Type_free, 1, -1) \
  W(MPI_Type_hindexed, 5, -1) \
  W(MPI_Type_hvector, 5, -1) \
  W(MPI_Type_indexed, 5, -1) \
  W(MPI_Type_lb, 2, -1) \
  W(MPI_Type_size, 2, -1) \
  W(MPI_Type_struct, 5, -1) \
  W(MPI_Type_ub, 2, -1) \
  W(MPI_Type_vector, 5, -1) \
  W(MPI_Unpack, 7, 6) \
  W(MPI_Win_complete, 1, -1) \
  W(MPI_Win_create, 6, 4) \
  W(MPI_Win_fence, 2, -1) \
  W(MPI_Win_free, 1, -1) \
  W(MPI_Win_lock, 4, -1) \
  W(MPI_Win_post, 3, -1) \
  W(MPI_Win_start, 3, -1) \
  W(MPI_Win_test, 2, -1) \
  W(MPI_Win_unlock, 2, -1)

#define WORDS_1 col_mpi_word a1
#define WORDS_2 WORDS_1, col_mpi_word a2
#define WORDS_3 WORDS_2, col_mpi_word a3
#define WORDS_4 WORDS_3, col_mpi_word a4
#define WORDS_5 WORDS_4, col_mpi_word a5
#define WORDS_6 WORDS_5, col_mpi_word a6
#define WORDS_7 WORDS_6, col_mpi_word a7
#define WORDS_8 WORDS_7, col_mpi_word a8
#define WORDS_9 WORDS_8, col_mpi_word a9
#define ARGS_1 a1
#define ARGS_2 ARGS_1, a2
#define ARGS_3 ARGS_2, a3
#define ARGS_4 ARGS_3, a4
#define ARGS_5 ARGS_4, a5
#define ARGS_6 ARGS_5, a6
#define ARGS_7 ARGS_6, a7
#define ARGS_8 ARGS_7, a8
#define ARGS_9 ARGS_8, a9

#define CALL_ONLY(name, n, comm)                                                      \
  int col_wrap_##name(WORDS_##n)                                                      \
  {                                                                                   \
    TRACED_MPI(ER_##name, COL_REAL(name)(ARGS_##n), {                                 \
      col_mpi_word args_[] = {ARGS_##n};                                              \
      OTHER_IN((comm) >= 0 ? col_mpi_comm_id(abi_, args_[(comm) >= 0 ? (comm) : 0]) : -1); \
    });                                                                               \
  }
COL_MPI_CALLS(CALL_ONLY)

COL_PRELOAD_ALIASES(COL_MPI_PERSISTENT_FUNCTIONS)
COL_PRELOAD_ALIASES(COL_MPI_CALL_FUNCTIONS)
