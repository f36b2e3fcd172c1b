! fortran_checks.f90 — what the Fortran MPI tests share: checks that count
! this rank's failures and say what failed, checks of relay's statuses, the
! verdict over all ranks, and the near-square process grid they run on.
module fortran_checks
  use, intrinsic :: iso_c_binding, only: c_int
  use mpi
  use relay, only: RELAY_OK, relay_last_error, relay_status_str
  implicit none
  private
  public :: check, check_ok, check_fails, verdict, near_square_rows

  integer :: failures = 0

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer :: rank, ierr
    if (ok) return
    failures = failures + 1
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    print '(a, i0, 2a)', 'FAIL on rank ', rank, ': ', what
  end subroutine check

  ! A relay call that must succeed.
  subroutine check_ok(st, what)
    integer(c_int), intent(in) :: st
    character(len=*), intent(in) :: what
    call check(st == RELAY_OK, what // ' returned ' // relay_status_str(st) // ': ' // relay_last_error())
  end subroutine check_ok

  ! A relay call that must fail with `expected` and say why.
  subroutine check_fails(st, expected, what)
    integer(c_int), intent(in) :: st, expected
    character(len=*), intent(in) :: what
    call check(st == expected, what // ' returned ' // relay_status_str(st) // ', not ' // relay_status_str(expected))
    call check(len(relay_last_error()) > 0, what // ': relay_last_error() is empty')
  end subroutine check_fails

  ! The failures of every rank (collective); rank 0 prints the verdict.
  integer function verdict(test) result(total)
    character(len=*), intent(in) :: test
    integer :: rank, nranks, ierr
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
    call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (rank == 0) print '(2a, i0, a, i0, a)', test, ': ', total, ' failed check(s) on ', nranks, ' ranks'
  end function verdict

  ! The rows of the most square grid of p processes.
  integer function near_square_rows(p)
    integer, intent(in) :: p
    integer :: d
    near_square_rows = 1
    do d = 1, p
      if (d * d > p) exit
      if (mod(p, d) == 0) near_square_rows = d
    end do
  end function near_square_rows

end module fortran_checks
