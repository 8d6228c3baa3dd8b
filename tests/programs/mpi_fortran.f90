! A ping-pong between ranks 0 and 1 called from Fortran (the mpi module):
! each rank prints the messages and bytes it sent to and received from its
! peer, as mpi_exchange.c does, for the MPI tracing test to compare with.
program mpi_fortran
  use mpi
  implicit none
  integer, parameter :: rounds = 7, words = 10
  integer :: ierr, rank, peer, i, buf(words), st(MPI_STATUS_SIZE), sends, receives, got
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  peer = 1 - rank
  sends = 0
  receives = 0
  buf = rank
  do i = 1, rounds
    if (rank == 0) then
      call MPI_Send(buf, words, MPI_INTEGER, peer, 5, MPI_COMM_WORLD, ierr)
      sends = sends + 1
      call MPI_Recv(buf, words, MPI_INTEGER, peer, 6, MPI_COMM_WORLD, st, ierr)
    else
      call MPI_Recv(buf, words, MPI_INTEGER, peer, 5, MPI_COMM_WORLD, st, ierr)
      call MPI_Send(buf, words, MPI_INTEGER, peer, 6, MPI_COMM_WORLD, ierr)
      sends = sends + 1
    end if
    call MPI_Get_count(st, MPI_INTEGER, got, ierr)
    receives = receives + 1
  end do
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  write (*, '(a,i0,a,i0,a,i0,a,i0,a,i0,a,i0)') 'truth rank=', rank, ' peer=', peer, ' sends=', sends, &
       ' sbytes=', sends * words * 4, ' receives=', receives, ' rbytes=', receives * got * 4
  call MPI_Finalize(ierr)
end program mpi_fortran
