! scf_loop.f90 — relay from Fortran, in the style of an electronic-structure
! code's self-consistent loop: plan once, replay every iteration.
!
! The application keeps its matrices in 32 x 32 blocks on a near-square
! process grid, as ScaLAPACK codes do; its eigensolver wants 128 x 128
! blocks.  Every iteration builds a new Hamiltonian-like matrix H, hands it
! to the solver's layout (S := H, started before and completed after the
! local work the iteration does meanwhile), and mixes the solver's result
! back into the application's density-like matrix, transposed:
! X := mix * S^T + (1 - mix) * X (linear mixing).  The solver is left out;
! S stands for its output.  The two plans are made once, before the loop;
! each iteration only replays them.  Every iteration checks every element
! of X against the global formula, and the program prints the planning time,
! the time per iteration of the two replays, and "verified: yes".
!
! It uses mpi_f08: communicators go to relay as comm%MPI_VAL (with `use mpi`
! they are the integers themselves).
!
!   mpiexec -n 4 relay-scf-loop [n] [iterations]
program scf_loop
  use, intrinsic :: iso_c_binding
  use mpi_f08
  use relay
  implicit none

  integer(c_int64_t), parameter :: app_block = 32, solver_block = 128
  real(c_double), parameter :: mix = 0.5d0
  integer(c_int64_t) :: n
  integer :: iterations, rank, nranks, nprow, npcol, myrow, mycol, iter, wrong
  type(relay_layout) :: app, solver
  type(relay_plan) :: to_solver, mix_back
  type(relay_exec) :: ex_to_solver, ex_mix_back
  real(c_double), allocatable, target :: h(:, :), s(:), x(:, :), x_expected(:, :)
  integer(c_int64_t), allocatable :: grow(:), gcol(:)
  real(c_double) :: t0, plan_seconds, trace
  real(c_double), allocatable :: seconds(:)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  call read_arguments(n, iterations)
  call near_square_grid(nranks, nprow, npcol)
  myrow = rank / npcol
  mycol = mod(rank, npcol)

  ! Plan once: H (32 x 32 blocks) -> S (128 x 128), and S^T mixed into X.
  t0 = MPI_Wtime()
  call check(relay_layout_block_cyclic(app, n, n, app_block, app_block, nprow, npcol, RELAY_ROW_MAJOR, 0, 0, &
                                       0_c_int64_t, RELAY_COL_MAJOR), 'application layout')
  call check(relay_layout_block_cyclic(solver, n, n, solver_block, solver_block, nprow, npcol, RELAY_ROW_MAJOR, &
                                       0, 0, 0_c_int64_t, RELAY_COL_MAJOR), 'solver layout')
  call check(relay_plan_transform(to_solver, nranks, solver, app, RELAY_OP_N, RELAY_DOUBLE), 'plan H -> S')
  call check(relay_plan_transform(mix_back, nranks, app, solver, RELAY_OP_T, RELAY_DOUBLE), 'plan S^T -> X')
  call check(relay_exec_create(ex_to_solver, to_solver, MPI_COMM_WORLD%MPI_VAL), 'executor H -> S')
  call check(relay_exec_create(ex_mix_back, mix_back, MPI_COMM_WORLD%MPI_VAL), 'executor S^T -> X')
  plan_seconds = MPI_Wtime() - t0

  ! The application's local arrays, ScaLAPACK style, and the global index
  ! of each local row and column.
  grow = global_indices(n, app_block, myrow, nprow)
  gcol = global_indices(n, app_block, mycol, npcol)
  allocate (h(max(1, size(grow)), size(gcol)), x(max(1, size(grow)), size(gcol)))
  allocate (s(relay_layout_local_elems(solver, rank)))
  x = 0
  x_expected = x
  allocate (seconds(iterations))

  wrong = 0
  do iter = 1, iterations
    call build_hamiltonian(iter)
    call MPI_Barrier(MPI_COMM_WORLD)
    t0 = MPI_Wtime()
    call check(relay_exec_start(ex_to_solver, s, h), 'start H -> S')
    trace = local_trace()            ! the iteration's own work while H travels
    call check(relay_exec_wait(ex_to_solver), 'wait H -> S')
    call check(relay_exec_run(ex_mix_back, x, s, mix, 1 - mix), 'mix S^T into X')
    seconds(iter) = MPI_Wtime() - t0
    call MPI_Allreduce(MPI_IN_PLACE, trace, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
    call expect_mixed(iter)
    wrong = wrong + count(x /= x_expected)
    if (trace /= expected_trace(iter)) wrong = wrong + 1
  end do
  call MPI_Allreduce(MPI_IN_PLACE, wrong, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call MPI_Allreduce(MPI_IN_PLACE, seconds, iterations, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD)
  call report()

  call relay_exec_free(ex_to_solver)
  call relay_exec_free(ex_mix_back)
  call relay_plan_free(to_solver)
  call relay_plan_free(mix_back)
  call relay_layout_free(app)
  call relay_layout_free(solver)
  call MPI_Finalize()
  if (wrong /= 0) stop 1

contains

  ! What the examples do when a relay call fails: say so in relay's words
  ! and stop the whole job.
  subroutine check(st, what)
    integer(c_int), intent(in) :: st
    character(len=*), intent(in) :: what
    if (st == RELAY_OK) return
    print '(5a)', what, ' failed: ', relay_status_str(st), ': ', relay_last_error()
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end subroutine check

  subroutine read_arguments(n, iterations)
    integer(c_int64_t), intent(out) :: n
    integer, intent(out) :: iterations
    character(len=32) :: arg
    n = 1000
    iterations = 10
    if (command_argument_count() >= 1) then
      call get_command_argument(1, arg)
      read (arg, *) n
    end if
    if (command_argument_count() >= 2) then
      call get_command_argument(2, arg)
      read (arg, *) iterations
    end if
  end subroutine read_arguments

  subroutine near_square_grid(p, rows, cols)
    integer, intent(in) :: p
    integer, intent(out) :: rows, cols
    integer :: d
    rows = 1
    do d = 1, p
      if (d * d > p) exit
      if (mod(p, d) == 0) rows = d
    end do
    cols = p / rows
  end subroutine near_square_grid

  ! The global indices (0-based) of the local rows (or columns) of process
  ! row p of np, in blocks of nb: ScaLAPACK's INDXL2G for each local index.
  function global_indices(length, nb, p, np) result(g)
    integer(c_int64_t), intent(in) :: length, nb
    integer, intent(in) :: p, np
    integer(c_int64_t), allocatable :: g(:)
    integer(c_int64_t) :: block, k
    allocate (g(0))
    do block = p, (length - 1) / nb, np
      g = [g, [(block * nb + k, k = 0_c_int64_t, min(nb, length - block * nb) - 1)]]
    end do
  end function global_indices

  ! The iteration's H(i, j): an integer-valued stand-in, different every iteration.
  elemental real(c_double) function h_value(i, j, iter)
    integer(c_int64_t), intent(in) :: i, j
    integer, intent(in) :: iter
    h_value = real(mod(7 * i + 3 * j + 11 * iter, 1000_c_int64_t), c_double)
  end function h_value

  subroutine build_hamiltonian(iter)
    integer, intent(in) :: iter
    integer :: j
    do j = 1, size(gcol)
      h(1:size(grow), j) = h_value(grow, gcol(j), iter)
    end do
  end subroutine build_hamiltonian

  ! This rank's part of the trace of H.
  real(c_double) function local_trace()
    integer :: i, j
    local_trace = 0
    do j = 1, size(gcol)
      do i = 1, size(grow)
        if (grow(i) == gcol(j)) local_trace = local_trace + h(i, j)
      end do
    end do
  end function local_trace

  real(c_double) function expected_trace(iter)
    integer, intent(in) :: iter
    integer(c_int64_t) :: i
    expected_trace = sum([(h_value(i, i, iter), i = 0_c_int64_t, n - 1)])
  end function expected_trace

  ! X after this iteration's mixing, from the formula: mix * H(j, i) + (1 - mix) * X.
  subroutine expect_mixed(iter)
    integer, intent(in) :: iter
    integer :: j
    do j = 1, size(gcol)
      x_expected(1:size(grow), j) = mix * h_value(gcol(j), grow, iter) + (1 - mix) * x_expected(1:size(grow), j)
    end do
  end subroutine expect_mixed

  subroutine report()
    real(c_double) :: sorted(iterations)
    integer :: i, j
    if (rank /= 0) return
    sorted = seconds
    do i = 2, iterations               ! insertion sort: a handful of timings
      do j = i, 2, -1
        if (sorted(j - 1) <= sorted(j)) exit
        sorted(j - 1:j) = sorted([j, j - 1])
      end do
    end do
    print '(a, i0, a, i0, a, i0, a, i0, a, i0, a)', 'scf loop: n = ', n, ', H in ', app_block, 'x', app_block, &
      ' blocks, the solver in ', solver_block, 'x', solver_block, ' blocks'
    print '(a, i0, a, i0, a, i0, a)', '          on a ', nprow, 'x', npcol, ' grid of ', nranks, ' ranks'
    print '(a, f9.4, a)', 'planning (two plans, two executors): ', plan_seconds, ' s, once'
    print '(a, i0, a, f9.3, a, f9.3, a)', 'time per iteration (H -> S and S^T mixed into X), ', iterations, &
      ' iterations: median ', 1d3 * sorted((iterations + 1) / 2), ' ms, min ', 1d3 * sorted(1), ' ms'
    if (wrong == 0) then
      print '(a)', 'verified: yes'
    else
      print '(a, i0, a)', 'verified: NO (', wrong, ' wrong elements or traces)'
    end if
  end subroutine report

end program scf_loop
