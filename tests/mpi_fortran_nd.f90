! mpi_fortran_nd.f90 — N-D layouts and plans through `use relay` under MPI.
! A Fortran-order 3-D array B(n1, n2, n3), its third dimension in even
! chunks over the job's ranks, moves to A = permute(B) with A's dimensions
! (B's 2, 0, 1): A(i, j, k) = B(j, k, i) (0-based), A sharded along its
! second dimension, then replicated on every rank, then with B a partial
! sum over a mesh dimension of 1.  Every element of A is checked against
! the test's own formula of its global index; bad arguments, and alpha and
! beta of another kind than the plan's, are refused.
program mpi_fortran_nd
  use, intrinsic :: iso_c_binding
  use mpi
  use relay
  use fortran_checks
  implicit none

  integer(c_int64_t), parameter :: n1 = 5, n2 = 4, n3 = 7
  integer :: rank, nranks, ierr, failed

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call test_move(relay_shard(1), 'A sharded')
  call test_move(relay_replicate(), 'A replicated')
  call test_bad_arguments()
  failed = verdict('mpi_fortran_nd')
  call MPI_Finalize(ierr)
  if (failed /= 0) stop 1

contains

  ! The even chunk [lo, hi) of n indices (chunks of ceil(n/p)) at coordinate c.
  subroutine chunk(n, p, c, lo, hi)
    integer(c_int64_t), intent(in) :: n
    integer, intent(in) :: p, c
    integer(c_int64_t), intent(out) :: lo, hi
    integer(c_int64_t) :: b
    b = (n + p - 1) / p
    lo = min(c * b, n)
    hi = min((c + 1) * b, n)
  end subroutine chunk

  real(c_double) function b_value(i, j, k)
    integer(c_int64_t), intent(in) :: i, j, k
    b_value = real(i + 10 * j + 100 * k, c_double)
  end function b_value

  subroutine test_move(a_place, what)
    type(relay_placement), intent(in) :: a_place
    character(len=*), intent(in) :: what
    type(relay_nd_layout) :: la, lb
    type(relay_plan) :: plan
    type(relay_exec) :: exec
    integer(c_int) :: ranks(nranks), r
    integer(c_int64_t) :: lo, hi, alo, ahi, i, j, k, extents(3)
    real(c_double), allocatable, target :: a(:, :, :), b(:, :, :)
    logical :: sharded
    character(len=:), allocatable :: message
    ranks = [(r, r = 0, nranks - 1)]
    sharded = a_place%kind == RELAY_SHARD_KIND
    call check_ok(relay_nd_layout_create(lb, [n1, n2, n3], [int(nranks, c_int)], ranks, [relay_shard(2)], &
                                         RELAY_COL_MAJOR), what // ': B''s layout')
    call check_ok(relay_nd_layout_create(la, [n3, n1, n2], [int(nranks, c_int)], ranks, [a_place], RELAY_COL_MAJOR), &
                  what // ': A''s layout')
    call check_ok(relay_plan_nd(plan, int(nranks, c_int), la, lb, RELAY_OP_T, RELAY_DOUBLE, perm=[2, 0, 1]), &
                  what // ': relay_plan_nd')
    call check(relay_plan_get_kind(plan) == RELAY_PLAN_KIND_ND, what // ': the plan''s kind')
    call chunk(n3, nranks, rank, lo, hi)
    alo = 0
    ahi = n1
    if (sharded) call chunk(n1, nranks, rank, alo, ahi)
    call check_ok(relay_nd_layout_local_shape(la, int(rank, c_int), extents), what // ': A''s local shape')
    call check(all(extents == [n3, ahi - alo, n2]), what // ': A''s local shape is its chunk')
    allocate (b(0:n1 - 1, 0:n2 - 1, lo:max(lo, hi) - 1), a(0:n3 - 1, alo:max(alo, ahi) - 1, 0:n2 - 1))
    call check(size(a, kind=c_int64_t) == relay_plan_buffer_elems(plan, 1, 0, int(rank, c_int)), what // ': A''s size')
    do k = lo, hi - 1
      do j = 0, n2 - 1
        do i = 0, n1 - 1
          b(i, j, k) = b_value(i, j, k)
        end do
      end do
    end do
    a = -1
    call check_ok(relay_exec_create(exec, plan, MPI_COMM_WORLD), what // ': relay_exec_create')
    call check_fails(relay_exec_run(exec, a, b, 2.0, 0.0), RELAY_ERR_ARG, what // ': default reals for a double plan')
    message = relay_last_error()
    call check(index(message, 'alpha is real(c_float)') > 0, what // ': the message names alpha''s kind: ' // message)
    call check_fails(relay_exec_run(exec, a, b, beta=0), RELAY_ERR_ARG, what // ': an integer beta')
    message = relay_last_error()
    call check(index(message, 'beta is integer') > 0, what // ': the message names beta''s kind: ' // message)
    call check(all(a == -1), what // ': A untouched by the refused replays')
    call check_ok(relay_exec_run(exec, a, b), what // ': relay_exec_run')
    do k = 0, n2 - 1
      do j = alo, ahi - 1
        do i = 0, n3 - 1
          call check(a(i, j, k) == b_value(j, k, i), what // ': A(i, j, k) = B(j, k, i)')
        end do
      end do
    end do
    call relay_exec_free(exec)
    call relay_plan_free(plan)
    call relay_nd_layout_free(la)
    call relay_nd_layout_free(lb)
  end subroutine test_move

  subroutine test_bad_arguments()
    type(relay_nd_layout) :: l, la
    type(relay_plan) :: plan
    integer(c_int) :: ranks(nranks), r
    ranks = [(r, r = 0, nranks - 1)]
    call check_fails(relay_nd_layout_create(l, [n1, n2], [int(nranks, c_int)], ranks, [relay_shard(2)], RELAY_COL_MAJOR), &
                     RELAY_ERR_ARG, 'a placement naming a missing dimension')
    call check(.not. c_associated(l%ptr), 'a refused layout is not built')
    call check_fails(relay_nd_layout_create(l, [n1], [int(nranks, c_int)], ranks, [relay_shard(0, splits=[0_c_int64_t])], &
                                            RELAY_COL_MAJOR), RELAY_ERR_ARG, 'too few split points')
    call check_ok(relay_nd_layout_create(l, [n1, n2], [int(nranks, c_int)], ranks, [relay_shard(0)], RELAY_COL_MAJOR), &
                  'a 2-D layout')
    call check_ok(relay_nd_layout_create(la, [n1, n1], [int(nranks, c_int)], ranks, [relay_shard(0)], RELAY_COL_MAJOR), &
                  'a square 2-D layout')
    call check_fails(relay_plan_nd(plan, int(nranks, c_int), la, l, RELAY_OP_N, RELAY_DOUBLE), RELAY_ERR_ARG, &
                     'shapes that do not match')
    call check_fails(relay_plan_nd(plan, int(nranks, c_int), l, l, RELAY_OP_T, RELAY_DOUBLE, perm=[0]), RELAY_ERR_ARG, &
                     'a permutation too short')
    call check(.not. c_associated(plan%ptr), 'a refused plan is not made')
    call relay_nd_layout_free(l)
    call relay_nd_layout_free(la)
  end subroutine test_bad_arguments

end program mpi_fortran_nd
