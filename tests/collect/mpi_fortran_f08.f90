! mpi_fortran_f08.f90 - a Fortran MPI program on `use mpi_f08` for the
! collector's tests: MPI_Init, a ring of MPI_Send/MPI_Recv, MPI_Isend/MPI_Irecv
! with MPI_Waitall (statuses ignored) and MPI_Wait, MPI_Sendrecv, MPI_Barrier,
! MPI_Allreduce with MPI_IN_PLACE, MPI_Comm_split, a mid-run CALL
! TRACESYNC_TIMESYNC(IERR), MPI_Finalize, the error arguments left out where
! mpi_f08 allows. Any number of ranks >= 2: 4 messages per rank, 3 collectives
! per rank. Prints "mpi_fortran_f08: ok".
program mpi_fortran_f08
    use mpi_f08
    implicit none
    integer :: ierr, rank, n, next, prev, out, ins(2), k
    type(MPI_Request) :: req(4)
    type(MPI_Status) :: st
    type(MPI_Comm) :: sub

    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, n)
    next = mod(rank + 1, n)
    prev = mod(rank + n - 1, n)
    out = rank

    if (rank == 0) then
        call MPI_Send(out, 1, MPI_INTEGER, next, 1, MPI_COMM_WORLD)
        call MPI_Recv(ins(1), 1, MPI_INTEGER, prev, 1, MPI_COMM_WORLD, st)
    else
        call MPI_Recv(ins(1), 1, MPI_INTEGER, prev, 1, MPI_COMM_WORLD, st)
        call MPI_Send(out, 1, MPI_INTEGER, next, 1, MPI_COMM_WORLD)
    end if
    call expect(st%MPI_SOURCE == prev .and. st%MPI_TAG == 1 .and. ins(1) == prev, 'MPI_Recv status')

    call MPI_Irecv(ins(1), 1, MPI_INTEGER, prev, 2, MPI_COMM_WORLD, req(1))
    call MPI_Irecv(ins(2), 1, MPI_INTEGER, next, 3, MPI_COMM_WORLD, req(2))
    call MPI_Isend(out, 1, MPI_INTEGER, next, 2, MPI_COMM_WORLD, req(3))
    call MPI_Isend(out, 1, MPI_INTEGER, prev, 3, MPI_COMM_WORLD, req(4), ierr)
    call MPI_Waitall(3, req(1:3), MPI_STATUSES_IGNORE, ierr)
    call MPI_Wait(req(4), MPI_STATUS_IGNORE)
    call expect(ins(1) == prev .and. ins(2) == next .and. req(1) == MPI_REQUEST_NULL, 'MPI_Waitall')

    call MPI_Sendrecv(out, 1, MPI_INTEGER, next, 4, ins(1), 1, MPI_INTEGER, prev, 4, MPI_COMM_WORLD, st)
    call expect(st%MPI_SOURCE == prev .and. ins(1) == prev, 'MPI_Sendrecv')

    call MPI_Barrier(MPI_COMM_WORLD)
    k = rank
    call MPI_Allreduce(MPI_IN_PLACE, k, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
    call expect(k == n - 1, 'MPI_Allreduce with MPI_IN_PLACE')
    call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, sub)
    call MPI_Barrier(sub)
    call MPI_Comm_free(sub)

    call tracesync_timesync(ierr)
    call expect(ierr == 0, 'tracesync_timesync')
    call MPI_Finalize()
    if (rank == 0) print '(a)', 'mpi_fortran_f08: ok'

contains

    subroutine expect(ok, what)
        logical, intent(in) :: ok
        character(len=*), intent(in) :: what
        if (.not. ok) then
            print '(a, a, a, i0)', 'mpi_fortran_f08: ', what, ' failed on rank ', rank
            call MPI_Abort(MPI_COMM_WORLD, 1)
        end if
    end subroutine
end program
