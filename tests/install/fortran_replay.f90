! fortran_replay.f90 — an MPI program on the installed Fortran module: loads
! its own section of the op T plan fortran_plan.f90 saved, fills B with
! B(i, j) = i + 1000 j through the plan's source layout, replays, and
! checks every element of A against B(j, i) through its destination layout.
! Built against the installed package by tests/install/install.sh, with
! find_package(relay COMPONENTS fortran) and with pkg-config relay-fortran.
!
!   mpiexec -n 4 fortran_replay FILE
program fortran_replay
  use, intrinsic :: iso_c_binding, only: c_double, c_int, c_int64_t
  use mpi
  use relay
  implicit none
  type(relay_plan) :: plan
  type(relay_exec) :: exec
  real(c_double), allocatable, target :: a(:), b(:)
  character(len=1024) :: path
  integer :: rank, ierr, wrong

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call get_command_argument(1, path)
  call ok(relay_plan_load(plan, path, rank), 'relay_plan_load')
  allocate (a(relay_plan_buffer_elems(plan, 1, 0, rank)), b(relay_plan_buffer_elems(plan, 0, 0, rank)))
  call visit(relay_plan_src_layout(plan, 0), b, .true., wrong)
  call ok(relay_exec_create(exec, plan, MPI_COMM_WORLD), 'relay_exec_create')
  call ok(relay_exec_run(exec, a, b), 'relay_exec_run')
  call visit(relay_plan_dst_layout(plan, 0), a, .false., wrong)
  call MPI_Allreduce(MPI_IN_PLACE, wrong, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a, i0, a)', 'fortran replay: ', wrong, ' wrong elements'
  call relay_exec_free(exec)
  call relay_plan_free(plan)
  call MPI_Finalize(ierr)
  if (wrong /= 0) error stop 1

contains

  ! Fills this rank's elements of x with B's values, or counts those that
  ! differ from B^T's.
  subroutine visit(layout, x, fill, wrong)
    type(relay_layout), intent(in) :: layout
    real(c_double), intent(inout) :: x(:)
    logical, intent(in) :: fill
    integer, intent(out) :: wrong
    integer(c_int64_t) :: i, j, k
    integer(c_int) :: owner
    wrong = 0
    do j = 0, relay_layout_cols(layout) - 1
      do i = 0, relay_layout_rows(layout) - 1
        call ok(relay_layout_locate(layout, i, j, owner, k), 'relay_layout_locate')
        if (owner /= rank) cycle
        if (fill) then
          x(k + 1) = real(i + 1000 * j, c_double)
        else if (int(x(k + 1), c_int64_t) /= j + 1000 * i) then
          wrong = wrong + 1
        end if
      end do
    end do
  end subroutine visit

  subroutine ok(st, what)
    integer(c_int), intent(in) :: st
    character(len=*), intent(in) :: what
    if (st == RELAY_OK) return
    print '(5a)', 'fortran_replay: ', what, ': ', relay_status_str(st), ': ' // relay_last_error()
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end subroutine ok

end program fortran_replay
