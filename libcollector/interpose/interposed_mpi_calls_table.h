/* The MPI functions traced as calls only (mpi_calls_interpose.c), with
 * their prototypes as words: interposed_mpi_table.h includes it. */
#ifndef GDBCOL_INTERPOSED_MPI_CALLS_TABLE_H
#define GDBCOL_INTERPOSED_MPI_CALLS_TABLE_H

/* The rest of the seeds' list: calls timed and counted, no message of
 * their own (mpi_calls_interpose.c).  Their parameters are words (ints,
 * pointers, handles, MPI_Aint and MPI_Offset all pass as one on x86-64),
 * passed on as they came; the count is each function's in both mpi.h. */
#define COL_MPI_WORDS_1 (col_mpi_word)
#define COL_MPI_WORDS_2 (col_mpi_word, col_mpi_word)
#define COL_MPI_WORDS_3 (col_mpi_word, col_mpi_word, col_mpi_word)
#define COL_MPI_WORDS_4 (col_mpi_word, col_mpi_word, col_mpi_word, col_mpi_word)
#define COL_MPI_WORDS_5 (col_mpi_word, col_mpi_word, col_mpi_word, col_mpi_word, col_mpi_word)
#define COL_MPI_WORDS_6 (col_mpi_word, col_mpi_word, col_mpi_word, col_mpi_word, col_mpi_word, col_mpi_word)
#define COL_MPI_WORDS_7 (col_mpi_word, col_mpi_word, col_mpi_word, col_mpi_word, col_mpi_word, col_mpi_word, col_mpi_word)
#define COL_MPI_WORDS_8 \
  (col_mpi_word, col_mpi_word, col_mpi_word, col_mpi_word, col_mpi_word, col_mpi_word, col_mpi_word, col_mpi_word)
#define COL_MPI_WORDS_9                                                                                     \
  (col_mpi_word, col_mpi_word, col_mpi_word, col_mpi_word, col_mpi_word, col_mpi_word, col_mpi_word, col_mpi_word, \
   col_mpi_word)
#define COL_MPI_CALL_FUNCTIONS(X) \
  X(MPI_Accumulate, NULL, int, COL_MPI_WORDS_9) \
  X(MPI_Address, NULL, int, COL_MPI_WORDS_2) \
  X(MPI_Alltoallw, NULL, int, COL_MPI_WORDS_9) \
  X(MPI_Attr_delete, NULL, int, COL_MPI_WORDS_2) \
  X(MPI_Attr_get, NULL, int, COL_MPI_WORDS_4) \
  X(MPI_Attr_put, NULL, int, COL_MPI_WORDS_3) \
  X(MPI_Buffer_attach, NULL, int, COL_MPI_WORDS_2) \
  X(MPI_Buffer_detach, NULL, int, COL_MPI_WORDS_2) \
  X(MPI_Cart_coords, NULL, int, COL_MPI_WORDS_4) \
  X(MPI_Cart_create, NULL, int, COL_MPI_WORDS_6) \
  X(MPI_Cart_get, NULL, int, COL_MPI_WORDS_5) \
  X(MPI_Cart_map, NULL, int, COL_MPI_WORDS_5) \
  X(MPI_Cart_rank, NULL, int, COL_MPI_WORDS_3) \
  X(MPI_Cart_shift, NULL, int, COL_MPI_WORDS_5) \
  X(MPI_Cart_sub, NULL, int, COL_MPI_WORDS_3) \
  X(MPI_Cartdim_get, NULL, int, COL_MPI_WORDS_2) \
  X(MPI_Comm_compare, NULL, int, COL_MPI_WORDS_3) \
  X(MPI_Comm_create, NULL, int, COL_MPI_WORDS_3) \
  X(MPI_Comm_group, NULL, int, COL_MPI_WORDS_2) \
  X(MPI_Comm_rank, NULL, int, COL_MPI_WORDS_2) \
  X(MPI_Comm_remote_group, NULL, int, COL_MPI_WORDS_2) \
  X(MPI_Comm_remote_size, NULL, int, COL_MPI_WORDS_2) \
  X(MPI_Comm_size, NULL, int, COL_MPI_WORDS_2) \
  X(MPI_Comm_test_inter, NULL, int, COL_MPI_WORDS_2) \
  X(MPI_Dims_create, NULL, int, COL_MPI_WORDS_3) \
  X(MPI_Errhandler_create, NULL, int, COL_MPI_WORDS_2) \
  X(MPI_Errhandler_free, NULL, int, COL_MPI_WORDS_1) \
  X(MPI_Errhandler_get, NULL, int, COL_MPI_WORDS_2) \
  X(MPI_Errhandler_set, NULL, int, COL_MPI_WORDS_2) \
  X(MPI_Error_class, NULL, int, COL_MPI_WORDS_2) \
  X(MPI_Error_string, NULL, int, COL_MPI_WORDS_3) \
  X(MPI_File_close, NULL, int, COL_MPI_WORDS_1) \
  X(MPI_File_delete, NULL, int, COL_MPI_WORDS_2) \
  X(MPI_File_get_amode, NULL, int, COL_MPI_WORDS_2) \
  X(MPI_File_get_atomicity, NULL, int, COL_MPI_WORDS_2) \
  X(MPI_File_get_byte_offset, NULL, int, COL_MPI_WORDS_3) \
  X(MPI_File_get_group, NULL, int, COL_MPI_WORDS_2) \
  X(MPI_File_get_info, NULL, int, COL_MPI_WORDS_2) \
  X(MPI_File_get_position, NULL, int, COL_MPI_WORDS_2) \
  X(MPI_File_get_position_shared, NULL, int, COL_MPI_WORDS_2) \
  X(MPI_File_get_size, NULL, int, COL_MPI_WORDS_2) \
  X(MPI_File_get_type_extent, NULL, int, COL_MPI_WORDS_3) \
  X(MPI_File_get_view, NULL, int, COL_MPI_WORDS_5) \
  X(MPI_File_iread, NULL, int, COL_MPI_WORDS_5) \
  X(MPI_File_iread_at, NULL, int, COL_MPI_WORDS_6) \
  X(MPI_File_iread_shared, NULL, int, COL_MPI_WORDS_5) \
  X(MPI_File_iwrite, NULL, int, COL_MPI_WORDS_5) \
  X(MPI_File_iwrite_at, NULL, int, COL_MPI_WORDS_6) \
  X(MPI_File_iwrite_shared, NULL, int, COL_MPI_WORDS_5) \
  X(MPI_File_open, NULL, int, COL_MPI_WORDS_5) \
  X(MPI_File_preallocate, NULL, int, COL_MPI_WORDS_2) \
  X(MPI_File_read, NULL, int, COL_MPI_WORDS_5) \
  X(MPI_File_read_all, NULL, int, COL_MPI_WORDS_5) \
  X(MPI_File_read_all_begin, NULL, int, COL_MPI_WORDS_4) \
  X(MPI_File_read_all_end, NULL, int, COL_MPI_WORDS_3) \
  X(MPI_File_read_at, NULL, int, COL_MPI_WORDS_6) \
  X(MPI_File_read_at_all, NULL, int, COL_MPI_WORDS_6) \
  X(MPI_File_read_at_all_begin, NULL, int, COL_MPI_WORDS_5) \
  X(MPI_File_read_at_all_end, NULL, int, COL_MPI_WORDS_3) \
  X(MPI_File_read_ordered, NULL, int, COL_MPI_WORDS_5) \
  X(MPI_File_read_ordered_begin, NULL, int, COL_MPI_WORDS_4) \
  X(MPI_File_read_ordered_end, NULL, int, COL_MPI_WORDS_3) \
  X(MPI_File_read_shared, NULL, int, COL_MPI_WORDS_5) \
  X(MPI_File_seek, NULL, int, COL_MPI_WORDS_3) \
  X(MPI_File_seek_shared, NULL, int, COL_MPI_WORDS_3) \
  X(MPI_File_set_atomicity, NULL, int, COL_MPI_WORDS_2) \
  X(MPI_File_set_info, NULL, int, COL_MPI_WORDS_2) \
  X(MPI_File_set_size, NULL, int, COL_MPI_WORDS_2) \
  X(MPI_File_set_view, NULL, int, COL_MPI_WORDS_6) \
  X(MPI_File_sync, NULL, int, COL_MPI_WORDS_1) \
  X(MPI_File_write, NULL, int, COL_MPI_WORDS_5) \
  X(MPI_File_write_all, NULL, int, COL_MPI_WORDS_5) \
  X(MPI_File_write_all_begin, NULL, int, COL_MPI_WORDS_4) \
  X(MPI_File_write_all_end, NULL, int, COL_MPI_WORDS_3) \
  X(MPI_File_write_at, NULL, int, COL_MPI_WORDS_6) \
  X(MPI_File_write_at_all, NULL, int, COL_MPI_WORDS_6) \
  X(MPI_File_write_at_all_begin, NULL, int, COL_MPI_WORDS_5) \
  X(MPI_File_write_at_all_end, NULL, int, COL_MPI_WORDS_3) \
  X(MPI_File_write_ordered, NULL, int, COL_MPI_WORDS_5) \
  X(MPI_File_write_ordered_begin, NULL, int, COL_MPI_WORDS_4) \
  X(MPI_File_write_ordered_end, NULL, int, COL_MPI_WORDS_3) \
  X(MPI_File_write_shared, NULL, int, COL_MPI_WORDS_5) \
  X(MPI_Get, NULL, int, COL_MPI_WORDS_8) \
  X(MPI_Get_count, NULL, int, COL_MPI_WORDS_3) \
  X(MPI_Get_elements, NULL, int, COL_MPI_WORDS_3) \
  X(MPI_Get_processor_name, NULL, int, COL_MPI_WORDS_2) \
  X(MPI_Get_version, NULL, int, COL_MPI_WORDS_2) \
  X(MPI_Graph_create, NULL, int, COL_MPI_WORDS_6) \
  X(MPI_Graph_get, NULL, int, COL_MPI_WORDS_5) \
  X(MPI_Graph_map, NULL, int, COL_MPI_WORDS_5) \
  X(MPI_Graph_neighbors, NULL, int, COL_MPI_WORDS_4) \
  X(MPI_Graph_neighbors_count, NULL, int, COL_MPI_WORDS_3) \
  X(MPI_Graphdims_get, NULL, int, COL_MPI_WORDS_3) \
  X(MPI_Group_compare, NULL, int, COL_MPI_WORDS_3) \
  X(MPI_Group_difference, NULL, int, COL_MPI_WORDS_3) \
  X(MPI_Group_excl, NULL, int, COL_MPI_WORDS_4) \
  X(MPI_Group_free, NULL, int, COL_MPI_WORDS_1) \
  X(MPI_Group_incl, NULL, int, COL_MPI_WORDS_4) \
  X(MPI_Group_intersection, NULL, int, COL_MPI_WORDS_3) \
  X(MPI_Group_rank, NULL, int, COL_MPI_WORDS_2) \
  X(MPI_Group_size, NULL, int, COL_MPI_WORDS_2) \
  X(MPI_Group_translate_ranks, NULL, int, COL_MPI_WORDS_5) \
  X(MPI_Group_union, NULL, int, COL_MPI_WORDS_3) \
  X(MPI_Intercomm_create, NULL, int, COL_MPI_WORDS_6) \
  X(MPI_Intercomm_merge, NULL, int, COL_MPI_WORDS_3) \
  X(MPI_Keyval_create, NULL, int, COL_MPI_WORDS_4) \
  X(MPI_Keyval_free, NULL, int, COL_MPI_WORDS_1) \
  X(MPI_Op_create, NULL, int, COL_MPI_WORDS_3) \
  X(MPI_Op_free, NULL, int, COL_MPI_WORDS_1) \
  X(MPI_Pack, NULL, int, COL_MPI_WORDS_7) \
  X(MPI_Pack_size, NULL, int, COL_MPI_WORDS_4) \
  X(MPI_Put, NULL, int, COL_MPI_WORDS_8) \
  X(MPI_Test_cancelled, NULL, int, COL_MPI_WORDS_2) \
  X(MPI_Topo_test, NULL, int, COL_MPI_WORDS_2) \
  X(MPI_Type_commit, NULL, int, COL_MPI_WORDS_1) \
  X(MPI_Type_contiguous, NULL, int, COL_MPI_WORDS_3) \
  X(MPI_Type_extent, NULL, int, COL_MPI_WORDS_2) \
  X(MPI_Type_free, NULL, int, COL_MPI_WORDS_1) \
  X(MPI_Type_hindexed, NULL, int, COL_MPI_WORDS_5) \
  X(MPI_Type_hvector, NULL, int, COL_MPI_WORDS_5) \
  X(MPI_Type_indexed, NULL, int, COL_MPI_WORDS_5) \
  X(MPI_Type_lb, NULL, int, COL_MPI_WORDS_2) \
  X(MPI_Type_size, NULL, int, COL_MPI_WORDS_2) \
  X(MPI_Type_struct, NULL, int, COL_MPI_WORDS_5) \
  X(MPI_Type_ub, NULL, int, COL_MPI_WORDS_2) \
  X(MPI_Type_vector, NULL, int, COL_MPI_WORDS_5) \
  X(MPI_Unpack, NULL, int, COL_MPI_WORDS_7) \
  X(MPI_Win_complete, NULL, int, COL_MPI_WORDS_1) \
  X(MPI_Win_create, NULL, int, COL_MPI_WORDS_6) \
  X(MPI_Win_fence, NULL, int, COL_MPI_WORDS_2) \
  X(MPI_Win_free, NULL, int, COL_MPI_WORDS_1) \
  X(MPI_Win_lock, NULL, int, COL_MPI_WORDS_4) \
  X(MPI_Win_post, NULL, int, COL_MPI_WORDS_3) \
  X(MPI_Win_start, NULL, int, COL_MPI_WORDS_3) \
  X(MPI_Win_test, NULL, int, COL_MPI_WORDS_2) \
  X(MPI_Win_unlock, NULL, int, COL_MPI_WORDS_2)

#endif
