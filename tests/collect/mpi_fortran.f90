! mpi_fortran.f90 - a Fortran MPI program (`use mpi`) for the collector's tests:
! blocking, non-blocking and synchronous sends, every completion family (Wait,
! Waitall, Waitany, Waitsome, Test, Testall, Testany, Testsome), Sendrecv and
! Sendrecv_replace, MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE, every collective
! of the collector (Allreduce with MPI_IN_PLACE), Comm_split, Comm_dup and
! Comm_free, and a mid-run CALL TRACESYNC_TIMESYNC(IERR). Any number of ranks
! >= 2; each rank exchanges with its ring neighbours: 13 messages per rank, 12
! collectives per rank. Prints "mpi_fortran: ok".
! Argument: seconds to sleep before and after the mid-run session (default 0).
program mpi_fortran
    use mpi
    implicit none
    integer :: ierr, rank, n, next, prev, i, k, idx, cnt, sub, dup, secs
    integer :: out, ins(2), one(1), req(4), done(4), st(MPI_STATUS_SIZE), sts(MPI_STATUS_SIZE, 4)
    integer, allocatable :: all(:), got(:)
    logical :: flag
    character(len=16) :: arg

    secs = 0
    if (command_argument_count() > 0) then
        call get_command_argument(1, arg)
        read (arg, *) secs
    end if
    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, n, ierr)
    next = mod(rank + 1, n)
    prev = mod(rank + n - 1, n)
    out = rank
    allocate (all(n), got(n))

    ! a ring of MPI_Send, the status read; one of MPI_Ssend the other way, the
    ! status ignored (the sentinel passed on through a dummy argument)
    call ring(next, prev, 1, .false., st)
    call expect(st(MPI_SOURCE) == prev .and. st(MPI_TAG) == 1 .and. ins(1) == prev, 'MPI_Recv status')
    call ring(prev, next, 2, .true., MPI_STATUS_IGNORE)
    call expect(ins(1) == next, 'MPI_Ssend')

    ! both neighbours, MPI_Waitall with MPI_STATUSES_IGNORE
    call post(3)
    call MPI_Waitall(4, req, MPI_STATUSES_IGNORE, ierr)
    call expect(all_null() .and. ins(1) == prev .and. ins(2) == next, 'MPI_Waitall')

    ! MPI_Wait, the receive's status read
    call MPI_Irecv(ins(1), 1, MPI_INTEGER, prev, 4, MPI_COMM_WORLD, req(1), ierr)
    call MPI_Isend(out, 1, MPI_INTEGER, next, 4, MPI_COMM_WORLD, req(2), ierr)
    call MPI_Wait(req(1), st, ierr)
    call expect(st(MPI_SOURCE) == prev .and. st(MPI_TAG) == 4 .and. req(1) == MPI_REQUEST_NULL, 'MPI_Wait')
    call MPI_Wait(req(2), MPI_STATUS_IGNORE, ierr)

    ! MPI_Waitany on the receives (indices from 1), MPI_Waitsome on the sends
    call post(5)
    do k = 1, 2
        call MPI_Waitany(2, req(1:2), idx, st, ierr)
        call expect(idx >= 1 .and. idx <= 2 .and. mod(st(MPI_TAG), 100) == 5, 'MPI_Waitany index')
    end do
    cnt = 0
    do while (cnt < 2)
        call MPI_Waitsome(2, req(3:4), k, done, sts, ierr)
        call expect(k >= 1 .and. minval(done(1:k)) >= 1 .and. maxval(done(1:k)) <= 2, 'MPI_Waitsome indices')
        cnt = cnt + k
    end do
    call expect(all_null(), 'MPI_Waitany/MPI_Waitsome')

    ! MPI_Test until done, then MPI_Testall
    call MPI_Irecv(ins(1), 1, MPI_INTEGER, prev, 6, MPI_COMM_WORLD, req(1), ierr)
    call MPI_Isend(out, 1, MPI_INTEGER, next, 6, MPI_COMM_WORLD, req(2), ierr)
    flag = .false.
    do while (.not. flag)
        call MPI_Test(req(1), flag, st, ierr)
    end do
    call expect(st(MPI_SOURCE) == prev .and. ins(1) == prev, 'MPI_Test')
    flag = .false.
    do while (.not. flag)
        call MPI_Testall(1, req(2:2), flag, sts, ierr)
    end do

    ! MPI_Testany on the receives, MPI_Testsome on the sends
    call post(7)
    cnt = 0
    do while (cnt < 2)
        call MPI_Testany(2, req(1:2), idx, flag, st, ierr)
        if (flag .and. idx /= MPI_UNDEFINED) cnt = cnt + 1
    end do
    cnt = 0
    do while (cnt < 2)
        call MPI_Testsome(2, req(3:4), k, done, sts, ierr)
        cnt = cnt + k
    end do
    call expect(all_null(), 'MPI_Testany/MPI_Testsome')

    ! MPI_Sendrecv (status ignored), MPI_Sendrecv_replace (status read), MPI_Issend
    call MPI_Sendrecv(out, 1, MPI_INTEGER, next, 8, ins(1), 1, MPI_INTEGER, prev, 8, MPI_COMM_WORLD, &
                      MPI_STATUS_IGNORE, ierr)
    call expect(ins(1) == prev, 'MPI_Sendrecv')
    ins(2) = rank
    call MPI_Sendrecv_replace(ins(2), 1, MPI_INTEGER, prev, 9, next, 9, MPI_COMM_WORLD, st, ierr)
    call expect(ins(2) == next .and. st(MPI_SOURCE) == next, 'MPI_Sendrecv_replace')
    call MPI_Issend(out, 1, MPI_INTEGER, next, 10, MPI_COMM_WORLD, req(1), ierr)
    call MPI_Recv(ins(1), 1, MPI_INTEGER, prev, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Wait(req(1), MPI_STATUS_IGNORE, ierr)

    ! the collectives
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    k = 0
    if (rank == 0) k = 42
    call MPI_Bcast(k, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    call expect(k == 42, 'MPI_Bcast')
    call MPI_Reduce(out, k, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
    call expect(rank /= 0 .or. k == n * (n - 1) / 2, 'MPI_Reduce')
    k = rank
    call MPI_Allreduce(MPI_IN_PLACE, k, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
    call expect(k == n - 1, 'MPI_Allreduce with MPI_IN_PLACE')
    call MPI_Gather(out, 1, MPI_INTEGER, all, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    call MPI_Scatter(all, 1, MPI_INTEGER, k, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    call expect(k == rank, 'MPI_Gather/MPI_Scatter')
    call MPI_Allgather(out, 1, MPI_INTEGER, all, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    call expect(all(n) == n - 1, 'MPI_Allgather')
    call MPI_Alltoall(all, 1, MPI_INTEGER, got, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    call expect(all(rank + 1) == got(1), 'MPI_Alltoall')
    call MPI_Scan(out, k, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call expect(k == rank * (rank + 1) / 2, 'MPI_Scan')
    call MPI_Exscan(out, k, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)

    ! communicators: even and odd ranks, a duplicate of the world
    call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, sub, ierr)
    one(1) = rank
    call MPI_Bcast(one, 1, MPI_INTEGER, 0, sub, ierr)
    call expect(one(1) == mod(rank, 2), 'MPI_Bcast on MPI_Comm_split')
    call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
    call MPI_Barrier(dup, ierr)
    call MPI_Comm_free(sub, ierr)
    call MPI_Comm_free(dup, ierr)
    call expect(sub == MPI_COMM_NULL .and. dup == MPI_COMM_NULL, 'MPI_Comm_free')

    ! a mid-run clock synchronization session
    if (secs > 0) call sleep(secs)
    call tracesync_timesync(ierr)
    call expect(ierr == 0, 'tracesync_timesync')
    if (secs > 0) call sleep(secs)

    call MPI_Finalize(ierr)
    if (rank == 0) print '(a)', 'mpi_fortran: ok'

contains

    ! Sends to rank to and receives from rank from (into ins(1)), rank 0 first.
    subroutine ring(to, from, tag, sync, status)
        integer, intent(in) :: to, from, tag
        logical, intent(in) :: sync
        integer :: status(MPI_STATUS_SIZE), step
        do step = 0, 1
            if ((step == 0) .neqv. (rank == 0)) then
                call MPI_Recv(ins(1), 1, MPI_INTEGER, from, tag, MPI_COMM_WORLD, status, ierr)
            else if (sync) then
                call MPI_Ssend(out, 1, MPI_INTEGER, to, tag, MPI_COMM_WORLD, ierr)
            else
                call MPI_Send(out, 1, MPI_INTEGER, to, tag, MPI_COMM_WORLD, ierr)
            end if
        end do
    end subroutine

    ! Receives from both neighbours into req(1:2), sends to both in req(3:4).
    subroutine post(tag)
        integer, intent(in) :: tag
        call MPI_Irecv(ins(1), 1, MPI_INTEGER, prev, tag, MPI_COMM_WORLD, req(1), ierr)
        call MPI_Irecv(ins(2), 1, MPI_INTEGER, next, tag + 100, MPI_COMM_WORLD, req(2), ierr)
        call MPI_Isend(out, 1, MPI_INTEGER, next, tag, MPI_COMM_WORLD, req(3), ierr)
        call MPI_Isend(out, 1, MPI_INTEGER, prev, tag + 100, MPI_COMM_WORLD, req(4), ierr)
    end subroutine

    logical function all_null()
        all_null = .true.
        do i = 1, 4
            all_null = all_null .and. req(i) == MPI_REQUEST_NULL
        end do
    end function

    subroutine expect(ok, what)
        logical, intent(in) :: ok
        character(len=*), intent(in) :: what
        if (.not. ok .or. ierr /= MPI_SUCCESS) then
            print '(a, a, a, i0)', 'mpi_fortran: ', what, ' failed on rank ', rank
            call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
        end if
    end subroutine
end program
