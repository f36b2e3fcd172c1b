! mpi_fortran.f90 — relay's Fortran module (`use relay`) under MPI.  Every
! result is checked element by element against the test's own formulas
! (ScaLAPACK's block-cyclic index arithmetic, the transpose of an index, a
! serial product), never against relay:
! - a transform from 32 x 32 blocks on a 1 x P grid to 128 x 128 blocks on
!   a near-square grid, op N and op T (the latter with greedy relabeling),
!   replayed with alpha and beta, and split-phase without them over NaN;
! - the plan saved and loaded, encoded and decoded, and replayed again;
! - a batch of both pairs, each rank planning its own section, replayed
!   through the pointer-array calls;
! - a BMMC transpose and an HSUMMA product;
! - one rank's arrays refused (a destination too short, a source of
!   real(c_float) for a double plan, a BMMC output too short) and one
!   rank's alpha of a default real for a double plan: that rank gets
!   RELAY_ERR_ARG saying what was given and what was needed, its arrays
!   untouched; every other rank completes, with NaN exactly where the
!   elements come from that rank (told, RELAY_ERR_PEER, where there are
!   some); the next replay verifies everywhere;
! - for a plan of each element type, alpha and then beta of every other
!   kind (each real and complex kind, integers, a logical, an array)
!   refused on every rank, the arrays untouched, and the plan's own kind
!   replaying alpha op(B) + beta A; HSUMMA's and N-D's replays refuse
!   another kind too;
! - bad arguments: a non-OK status, relay_last_error() not empty, nothing
!   changed.
program mpi_fortran
  use, intrinsic :: iso_c_binding
  use, intrinsic :: ieee_arithmetic, only: ieee_is_nan, ieee_quiet_nan, ieee_value
  use mpi
  use relay
  use fortran_checks
  implicit none

  ! A block-cyclic matrix as ScaLAPACK lays it out: rows x cols in mb x nb
  ! blocks on an npr x npc grid numbered row-major, block (0, 0) on process
  ! (0, 0), each rank's smallest leading dimension.
  type :: bc_matrix
    integer(c_int64_t) :: rows, cols, mb, nb
    integer :: npr, npc
  end type bc_matrix

  integer(c_int64_t), parameter :: m = 300, n = 200
  real(c_double), parameter :: alpha = 2, beta = 0.5d0
  integer :: rank, nranks, ierr, failed
  type(bc_matrix) :: bc_src(0:2), bc_dst

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  ! B of op N (m x n) and of op T (n x m) in 32 x 32 blocks on 1 x P; A in
  ! 128 x 128 blocks on a near-square grid.
  bc_src(RELAY_OP_N) = bc_matrix(m, n, 32, 32, 1, nranks)
  bc_src(RELAY_OP_T) = bc_matrix(n, m, 32, 32, 1, nranks)
  bc_dst = bc_matrix(m, n, 128, 128, near_square_rows(nranks), nranks / near_square_rows(nranks))

  call test_transform(RELAY_OP_N, RELAY_RELABEL_NONE)
  call test_transform(RELAY_OP_T, RELAY_RELABEL_GREEDY)
  call test_save_load()
  call test_algebra()
  call test_tune()
  call test_batch_of_own_sections()
  call test_bmmc()
  call test_hsumma()
  call test_refused_buffers()
  call test_scalar_kinds()
  call test_errors()
  call test_memory_kinds()

  failed = verdict('mpi_fortran')
  call MPI_Finalize(ierr)
  if (failed /= 0) stop 1

contains

  ! ---- ScaLAPACK's index arithmetic (0-based), independent of relay --------

  ! ScaLAPACK's NUMROC: how many of len indices in blocks of nb fall on
  ! process p of np (source process 0).
  integer(c_int64_t) function numroc(length, nb, p, np)
    integer(c_int64_t), intent(in) :: length, nb
    integer, intent(in) :: p, np
    integer(c_int64_t) :: blocks
    blocks = length / nb
    numroc = (blocks / np) * nb
    if (p < mod(blocks, int(np, c_int64_t))) then
      numroc = numroc + nb
    else if (p == mod(blocks, int(np, c_int64_t))) then
      numroc = numroc + mod(length, nb)
    end if
  end function numroc

  ! The grid rank that holds global (i, j) and its 0-based local index.
  subroutine position(g, i, j, owner, index)
    type(bc_matrix), intent(in) :: g
    integer(c_int64_t), intent(in) :: i, j
    integer, intent(out) :: owner
    integer(c_int64_t), intent(out) :: index
    integer :: pr, pc
    pr = int(mod(i / g%mb, int(g%npr, c_int64_t)))
    pc = int(mod(j / g%nb, int(g%npc, c_int64_t)))
    owner = pr * g%npc + pc
    index = (i / (g%mb * g%npr)) * g%mb + mod(i, g%mb) + &
            ((j / (g%nb * g%npc)) * g%nb + mod(j, g%nb)) * max(1_c_int64_t, numroc(g%rows, g%mb, pr, g%npr))
  end subroutine position

  integer(c_int64_t) function local_elems(g, owner)
    type(bc_matrix), intent(in) :: g
    integer, intent(in) :: owner
    integer :: pr, pc
    pr = owner / g%npc
    pc = mod(owner, g%npc)
    local_elems = max(1_c_int64_t, numroc(g%rows, g%mb, pr, g%npr)) * numroc(g%cols, g%nb, pc, g%npc)
  end function local_elems

  ! The layout of g, its local shape checked against ScaLAPACK's numroc.
  function make_layout(g) result(layout)
    type(bc_matrix), intent(in) :: g
    type(relay_layout) :: layout
    integer(c_int64_t) :: rows, cols, ld, want_rows, want_cols
    call check_ok(relay_layout_block_cyclic(layout, g%rows, g%cols, g%mb, g%nb, g%npr, g%npc, RELAY_ROW_MAJOR, &
                                            0, 0, 0_c_int64_t, RELAY_COL_MAJOR), 'relay_layout_block_cyclic')
    call check_ok(relay_layout_local_shape(layout, rank, rows, cols, ld), 'relay_layout_local_shape')
    want_rows = 0
    want_cols = 0
    if (rank < g%npr * g%npc) then
      want_rows = numroc(g%rows, g%mb, rank / g%npc, g%npr)
      want_cols = numroc(g%cols, g%nb, mod(rank, g%npc), g%npc)
    end if
    if (want_rows * want_cols == 0) then
      want_rows = 0
      want_cols = 0
    end if
    call check(rows == want_rows .and. cols == want_cols .and. (rows == 0 .or. ld == want_rows), &
               'relay_layout_local_shape against numroc')
  end function make_layout

  ! ---- the values: B(i, j) and A's old contents, by global index ----------

  real(c_double) function b_value(i, j)
    integer(c_int64_t), intent(in) :: i, j
    b_value = real(1000 * i + j + 1, c_double)
  end function b_value

  real(c_double) function a0_value(i, j)
    integer(c_int64_t), intent(in) :: i, j
    a0_value = -real(i + 7 * j, c_double)
  end function a0_value

  ! This rank's part of B (global values by index) and, held for grid rank
  ! a_holder, of A's old contents (NaN with nan).
  subroutine fill(op, a, a_holder, b, nan)
    integer(c_int), intent(in) :: op
    real(c_double), intent(out) :: a(:), b(:)
    integer, intent(in) :: a_holder
    logical, intent(in) :: nan
    integer(c_int64_t) :: i, j, k
    integer :: owner
    do j = 0, bc_src(op)%cols - 1
      do i = 0, bc_src(op)%rows - 1
        call position(bc_src(op), i, j, owner, k)
        if (owner == rank) b(k + 1) = b_value(i, j)
      end do
    end do
    do j = 0, n - 1
      do i = 0, m - 1
        call position(bc_dst, i, j, owner, k)
        if (owner /= a_holder) cycle
        a(k + 1) = a0_value(i, j)
        if (nan) a(k + 1) = ieee_value(a(k + 1), ieee_quiet_nan)
      end do
    end do
  end subroutine fill

  ! Elements of A held for grid rank a_holder that differ from
  ! scale * op(B)(i, j) + shift * A0(i, j); those whose element of B rank
  ! nan_from holds (a rank whose replay was refused) must be NaN instead.
  integer function wrong_elements(op, a, a_holder, scale, shift, nan_from) result(wrong)
    integer(c_int), intent(in) :: op
    real(c_double), intent(in) :: a(:), scale, shift
    integer, intent(in) :: a_holder
    integer, intent(in), optional :: nan_from
    integer(c_int64_t) :: i, j, k, kb
    integer :: owner, b_owner, refused
    real(c_double) :: b
    refused = -1
    if (present(nan_from)) refused = nan_from
    wrong = 0
    do j = 0, n - 1
      do i = 0, m - 1
        call position(bc_dst, i, j, owner, k)
        if (owner /= a_holder) cycle
        if (op == RELAY_OP_N) then
          b = b_value(i, j)
          call position(bc_src(op), i, j, b_owner, kb)
        else
          b = b_value(j, i)
          call position(bc_src(op), j, i, b_owner, kb)
        end if
        if (b_owner == refused) then
          if (.not. ieee_is_nan(a(k + 1))) wrong = wrong + 1
        else if (.not. (a(k + 1) == scale * b + shift * a0_value(i, j))) then
          wrong = wrong + 1
        end if
      end do
    end do
  end function wrong_elements

  ! ---- the transforms -----------------------------------------------------

  ! The grid rank of A whose blocks this rank receives: j with sigma(j) = rank.
  integer function held_for(plan) result(holder)
    type(relay_plan), intent(in) :: plan
    integer(c_int) :: sigma(nranks)
    integer :: r
    call check_ok(relay_plan_relabeling(plan, sigma), 'relay_plan_relabeling')
    call check(all([(count(sigma == r), r = 0, nranks - 1)] == 1), 'sigma is not a permutation')
    holder = findloc(sigma, rank, dim=1) - 1
  end function held_for

  ! Plans A := alpha*op(B) + beta*A and replays it twice: with alpha and
  ! beta, then split-phase with neither over NaN (beta 0 never reads A).
  subroutine test_transform(op, relabel)
    integer(c_int), intent(in) :: op, relabel
    type(relay_layout) :: la, lb
    type(relay_plan) :: plan
    type(relay_plan_options) :: opts
    call relay_plan_options_init(opts)
    opts%relabel = relabel
    la = make_layout(bc_dst)
    lb = make_layout(bc_src(op))
    call check_ok(relay_plan_transform(plan, nranks, la, lb, op, RELAY_DOUBLE, opts), 'relay_plan_transform')
    call relay_layout_free(la)
    call relay_layout_free(lb)
    call check(relay_plan_count(plan) == 1 .and. relay_plan_nranks(plan) == nranks, 'plan count and ranks')
    call replay_and_check(plan, op, 'transform')
    call relay_plan_free(plan)
    call check(.not. c_associated(plan%ptr), 'relay_plan_free resets the handle')
  end subroutine test_transform

  subroutine replay_and_check(plan, op, what)
    type(relay_plan), intent(in) :: plan
    integer(c_int), intent(in) :: op
    character(len=*), intent(in) :: what
    type(relay_exec) :: exec
    real(c_double), allocatable, target :: a(:), b(:)
    type(relay_exec_timing) :: rows(64)
    integer(c_int64_t) :: replays
    integer(c_int) :: count
    integer :: holder
    holder = held_for(plan)
    call check(relay_plan_buffer_elems(plan, 1, 0, rank) == local_elems(bc_dst, holder), what // ': A''s buffer size')
    call check(relay_plan_buffer_elems(plan, 0, 0, rank) == local_elems(bc_src(op), rank), what // ': B''s buffer size')
    allocate (a(local_elems(bc_dst, holder)), b(local_elems(bc_src(op), rank)))
    call check_ok(relay_exec_create(exec, plan, MPI_COMM_WORLD), what // ': relay_exec_create')

    call fill(op, a, holder, b, nan=.false.)
    call check_ok(relay_exec_run(exec, a, b, alpha, beta), what // ': relay_exec_run')
    call check(wrong_elements(op, a, holder, alpha, beta) == 0, what // ': A = alpha op(B) + beta A0')

    call fill(op, a, holder, b, nan=.true.)
    call check_ok(relay_exec_time(exec, .true.), what // ': relay_exec_time')
    call check_ok(relay_exec_start(exec, a, b), what // ': relay_exec_start')
    call check_ok(relay_exec_wait(exec), what // ': relay_exec_wait')
    call check(wrong_elements(op, a, holder, 1.0_c_double, 0.0_c_double) == 0, what // ': A = op(B) over NaN')
    call check_ok(relay_exec_timings(exec, replays, rows, count), what // ': relay_exec_timings')
    call check(replays == 1 .and. count >= 2 .and. rows(min(count, 64))%kind == RELAY_TIMING_COMPLETION .and. &
               all(rows(1:min(count, 64))%pack_s >= 0), what // ': one replay timed, its rows ending with completion')
    call relay_exec_free(exec)
  end subroutine replay_and_check

  ! The op T plan through a file and through memory: same fingerprint, same results.
  ! Memory kinds from Fortran: host options bind as relay_exec_create does
  ! and say so; CUDA memory where it cannot be had is refused on every rank.
  subroutine test_memory_kinds()
    type(relay_layout) :: la, lb
    type(relay_plan) :: plan
    type(relay_exec) :: exec
    type(relay_exec_options) :: opts, got
    logical :: host, cuda
    integer :: all_cuda
    la = make_layout(bc_dst)
    lb = make_layout(bc_src(RELAY_OP_N))
    call check_ok(relay_plan_transform(plan, nranks, la, lb, RELAY_OP_N, RELAY_DOUBLE), 'relay_plan_transform')
    call check_ok(relay_memory_supported(RELAY_MEMORY_HOST, host), 'relay_memory_supported')
    call check(host, 'host memory is supported')
    call check_ok(relay_memory_supported(RELAY_MEMORY_CUDA, cuda), 'relay_memory_supported(CUDA)')
    call MPI_Allreduce(merge(1, 0, cuda), all_cuda, 1, MPI_INTEGER, MPI_MIN, MPI_COMM_WORLD, ierr)
    call check_ok(relay_exec_create_with(exec, plan, MPI_COMM_WORLD, opts), 'relay_exec_create_with(host)')
    call check_ok(relay_exec_options_get(exec, got), 'relay_exec_options_get')
    call check(got%memory == RELAY_MEMORY_HOST .and. got%transport == RELAY_TRANSPORT_AUTO, 'host options as bound')
    call relay_exec_free(exec)
    if (all_cuda == 0) then
      opts%memory = RELAY_MEMORY_CUDA
      call check(relay_exec_create_with(exec, plan, MPI_COMM_WORLD, opts) == RELAY_ERR_UNSUPPORTED, &
                 'CUDA memory without a backend or GPU: RELAY_ERR_UNSUPPORTED')
    end if
    call relay_plan_free(plan)
    call relay_layout_free(la)
    call relay_layout_free(lb)
  end subroutine test_memory_kinds

  subroutine test_save_load()
    type(relay_layout) :: la, lb
    type(relay_plan) :: plan, loaded, decoded
    integer(c_int8_t), allocatable :: bytes(:)
    character(len=64) :: path
    integer :: unit
    integer(c_int) :: planned
    write (path, '(a, i0, a)') 'mpi_fortran_', nranks, '.plan'
    la = make_layout(bc_dst)
    lb = make_layout(bc_src(RELAY_OP_T))
    call check_ok(relay_plan_transform(plan, nranks, la, lb, RELAY_OP_T, RELAY_DOUBLE), 'relay_plan_transform')
    if (rank == 0) call check_ok(relay_plan_save(plan, path), 'relay_plan_save')
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call check_ok(relay_plan_load(loaded, path, rank), 'relay_plan_load')
    call check_ok(relay_plan_file_nranks(path, planned), 'relay_plan_file_nranks')
    call check(planned == nranks, 'relay_plan_file_nranks: the plan''s rank count, from its header')
    call check(relay_plan_fingerprint(loaded) == relay_plan_fingerprint(plan), 'loaded plan: fingerprint')
    call replay_and_check(loaded, RELAY_OP_T, 'loaded plan')
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    if (rank == 0) then
      open (newunit=unit, file=path, status='old')
      close (unit, status='delete')
    end if

    call check_ok(relay_plan_encode(plan, bytes), 'relay_plan_encode')
    call check_ok(relay_plan_decode(decoded, bytes, -1), 'relay_plan_decode')
    call check(relay_plan_fingerprint(decoded) == relay_plan_fingerprint(plan), 'decoded plan: fingerprint')
    call replay_and_check(decoded, RELAY_OP_T, 'decoded plan')
    call relay_plan_free(plan)
    call relay_plan_free(loaded)
    call relay_plan_free(decoded)
    call relay_layout_free(la)
    call relay_layout_free(lb)
  end subroutine test_save_load

  ! Tuning: the op T plan timed every way it replays; an executor of the
  ! tuned plan replays the fastest, correctly.
  subroutine test_tune()
    type(relay_layout) :: la, lb
    type(relay_plan) :: plan
    type(relay_tuning) :: tuning
    type(relay_exec) :: exec
    integer(c_int) :: schedule
    logical :: packed
    la = make_layout(bc_dst)
    lb = make_layout(bc_src(RELAY_OP_T))
    call check_ok(relay_plan_transform(plan, nranks, la, lb, RELAY_OP_T, RELAY_DOUBLE), 'relay_plan_transform')
    call check_ok(relay_exec_tune(plan, MPI_COMM_WORLD, 2_c_int), 'relay_exec_tune')
    call check_ok(relay_plan_tuning(plan, tuning), 'relay_plan_tuning')
    call check(tuning%ntimed >= 3 .and. tuning%best >= 0 .and. tuning%best < tuning%ntimed .and. tuning%replays == 2, &
               'tuned: p2p, alltoallv and neighbor timed twice each')
    call check_ok(relay_exec_create(exec, plan, MPI_COMM_WORLD), 'relay_exec_create of the tuned plan')
    call check_ok(relay_exec_schedule(exec, schedule, packed), 'relay_exec_schedule')
    call check(schedule == tuning%choices(tuning%best + 1)%schedule, 'the executor replays the fastest choice')
    call relay_exec_free(exec)
    call replay_and_check(plan, RELAY_OP_T, 'tuned')
    tuning%best = tuning%ntimed
    call check_fails(relay_plan_set_tuning(plan, tuning), RELAY_ERR_ARG, 'a tuning whose best is no choice')
    call relay_plan_free(plan)
    call relay_layout_free(la)
    call relay_layout_free(lb)
  end subroutine test_tune

  ! Plan algebra: the op T plan, its inverse, the two composed (every
  ! element back in place: nothing crosses ranks) and concatenated.
  subroutine test_algebra()
    type(relay_layout) :: la, lb
    type(relay_plan) :: plan, back, round_trip, both
    type(relay_plan_stats) :: stats
    la = make_layout(bc_dst)
    lb = make_layout(bc_src(RELAY_OP_T))
    call check_ok(relay_plan_transform(plan, nranks, la, lb, RELAY_OP_T, RELAY_DOUBLE), 'relay_plan_transform')
    call check_ok(relay_plan_invert(back, plan), 'relay_plan_invert')
    call check_ok(relay_plan_compose(round_trip, plan, back), 'relay_plan_compose')
    call check_ok(relay_plan_get_stats(round_trip, stats), 'relay_plan_get_stats')
    call check(stats%bytes_remote == 0 .and. stats%bytes_total == m * n * 8, 'a plan and its inverse composed stay local')
    call check_ok(relay_plan_concat(both, plan, back), 'relay_plan_concat')
    call check(relay_plan_count(both) == 2, 'two plans concatenated: two pairs')
    call check_fails(relay_plan_compose(both, plan, plan), RELAY_ERR_MISMATCH, 'composing plans that do not chain')
    call relay_plan_free(plan)
    call relay_plan_free(back)
    call relay_plan_free(round_trip)
    call relay_plan_free(both)
    call relay_layout_free(la)
    call relay_layout_free(lb)
  end subroutine test_algebra

  ! Both pairs (op N and op T) in one batch, each rank planning its own
  ! section; the fingerprint is the whole batch's.
  subroutine test_batch_of_own_sections()
    type(relay_layout) :: la(2), lb(2)
    type(relay_plan) :: mine, whole
    type(relay_exec) :: exec
    real(c_double), allocatable, target :: an(:), at(:), bn(:), bt(:)
    integer(c_int), parameter :: ops(2) = [RELAY_OP_N, RELAY_OP_T]
    integer :: k
    do k = 1, 2
      la(k) = make_layout(bc_dst)
      lb(k) = make_layout(bc_src(ops(k)))
    end do
    call check_ok(relay_plan_transform_rank(mine, rank, nranks, 2, la, lb, ops, RELAY_DOUBLE), &
                  'relay_plan_transform_rank')
    call check_ok(relay_plan_transform_batch(whole, nranks, 2, la, lb, ops, RELAY_DOUBLE), &
                  'relay_plan_transform_batch')
    call check(relay_plan_fingerprint(mine) == relay_plan_fingerprint(whole), 'one section: the batch fingerprint')
    call check(relay_plan_count(mine) == 2, 'batch: two pairs')
    call check_ok(relay_exec_create(exec, mine, MPI_COMM_WORLD), 'batch: relay_exec_create')
    allocate (an(local_elems(bc_dst, rank)), at(local_elems(bc_dst, rank)))
    allocate (bn(local_elems(bc_src(RELAY_OP_N), rank)), bt(local_elems(bc_src(RELAY_OP_T), rank)))
    call fill(RELAY_OP_N, an, rank, bn, nan=.false.)
    call fill(RELAY_OP_T, at, rank, bt, nan=.false.)
    call check_ok(relay_exec_run_ptrs(exec, [c_loc(an), c_loc(at)], [c_loc(bn), c_loc(bt)], alpha, beta), &
                  'batch: relay_exec_run_ptrs')
    call check(wrong_elements(RELAY_OP_N, an, rank, alpha, beta) == 0, 'batch: pair 0 (op N)')
    call check(wrong_elements(RELAY_OP_T, at, rank, alpha, beta) == 0, 'batch: pair 1 (op T)')
    call check_fails(relay_exec_run(exec, an, bn), RELAY_ERR_ARG, 'a batch replayed as one pair')
    call relay_exec_free(exec)
    call relay_plan_free(mine)
    call relay_plan_free(whole)
    do k = 1, 2
      call relay_layout_free(la(k))
      call relay_layout_free(lb(k))
    end do
  end subroutine test_batch_of_own_sections

  ! ---- BMMC and HSUMMA ----------------------------------------------------

  ! The transpose of a 2^5 x 2^4 column-major matrix of 2^9 elements, held
  ! processor-major on P = 2^p ranks: element x = i + 32 j lands at y = j + 16 i.
  subroutine test_bmmc()
    integer(c_int), parameter :: rows_log = 5, cols_log = 4, bits = rows_log + cols_log
    type(relay_bmmc) :: perm
    type(relay_bmmc_info) :: info
    type(relay_plan) :: plan
    type(relay_exec) :: exec
    integer(c_int64_t), allocatable, target :: x_in(:), y_out(:)
    integer(c_int32_t), allocatable, target :: y_halves(:)
    integer(c_int64_t) :: local, k
    integer(c_int) :: p
    integer :: culprit
    p = int(log(real(nranks)) / log(2.0) + 0.5)
    if (2**p /= nranks) return
    local = 2_c_int64_t**(bits - p)
    call check_ok(relay_bmmc_transpose(perm, rows_log, cols_log), 'relay_bmmc_transpose')
    call check(relay_bmmc_apply(perm, 3_c_int64_t + 32 * 5) == 5 + 16 * 3, 'relay_bmmc_apply of one index')
    call check_ok(relay_plan_bmmc(plan, perm, p, bits - p, c_sizeof(k)), 'relay_plan_bmmc')
    call check_ok(relay_plan_bmmc_info(plan, info), 'relay_plan_bmmc_info')
    call check(info%n == bits .and. info%p == p .and. info%f == bits - p .and. info%elem_size == 8, &
               'relay_plan_bmmc_info fields')
    call check(relay_plan_get_kind(plan) == RELAY_PLAN_KIND_BMMC, 'BMMC plan kind')
    call check_ok(relay_exec_create(exec, plan, MPI_COMM_WORLD), 'BMMC: relay_exec_create')
    allocate (x_in(local), y_out(local))
    x_in = [(rank * local + k, k = 0, local - 1)]
    call check_ok(relay_exec_run(exec, y_out, x_in), 'BMMC: relay_exec_run')
    call check(bmmc_wrong(y_out, local) == 0, 'BMMC: every element at its transposed index')

    ! The last rank's output one element short is refused; the others get
    ! its elements as the stand-in's bytes.
    culprit = nranks - 1
    y_out = 0
    if (rank == culprit) then
      call check_fails(relay_exec_run(exec, y_out(2:), x_in), RELAY_ERR_ARG, 'BMMC: an output one element short')
      call check(names_sizes('dst', local - 1, 8, local, 8), 'BMMC: the message names the sizes: ' // relay_last_error())
      call check(all(y_out == 0), 'BMMC: the refused output is untouched')
    else
      call check_ok(relay_exec_run(exec, y_out, x_in), 'BMMC: relay_exec_run beside a refusing rank')
      call check(bmmc_wrong(y_out, local, culprit) == 0, 'BMMC: NaN bytes from the refusing rank, the rest transposed')
    end if
    ! Elements are opaque bytes, checked in bytes: twice as many 4-byte integers serve.
    allocate (y_halves(2 * local))
    call check_ok(relay_exec_run(exec, y_halves, x_in), 'BMMC: relay_exec_run into 4-byte integers')
    call check(bmmc_wrong(transfer(y_halves, y_out), local) == 0, 'BMMC: the transpose in 4-byte halves')
    call relay_exec_free(exec)
    call relay_plan_free(plan)
  end subroutine test_bmmc

  ! Elements of this rank's part of the transpose not at their transposed
  ! index (y = j + 16 i holds x = i + 32 j); those whose x rank nan_from
  ! holds must have every bit set (the refusing rank's stand-in) instead.
  integer function bmmc_wrong(y_out, local, nan_from) result(wrong)
    integer(c_int64_t), intent(in) :: y_out(:), local
    integer, intent(in), optional :: nan_from
    integer(c_int64_t) :: k, x, y
    integer :: refused
    refused = -1
    if (present(nan_from)) refused = nan_from
    wrong = 0
    do k = 0, local - 1
      y = rank * local + k
      x = y / 16 + 32 * mod(y, 16_c_int64_t)
      if (x / local == refused) then
        if (y_out(k + 1) /= -1) wrong = wrong + 1
      else if (y_out(k + 1) /= x) then
        wrong = wrong + 1
      end if
    end do
  end function bmmc_wrong

  ! First index and length of part `part` of `length` indices cut in `parts`
  ! (the checkerboard of relay/hsumma.h).
  subroutine part_of(length, parts, part, first, size)
    integer(c_int64_t), intent(in) :: length
    integer, intent(in) :: parts, part
    integer(c_int64_t), intent(out) :: first, size
    first = part * (length / parts) + min(int(part, c_int64_t), mod(length, int(parts, c_int64_t)))
    size = length / parts
    if (part < mod(length, int(parts, c_int64_t))) size = size + 1
  end subroutine part_of

  ! C := A B + 2 C with A(i, l) = mod(i + 2l, 7) - 3, B(l, j) = mod(3l + j, 5) - 2,
  ! C = 1 before; each rank holds its checkerboard part, column-major.
  subroutine test_hsumma()
    integer(c_int64_t), parameter :: hm = 40, hn = 36, hk = 28
    type(relay_hsumma_params) :: params
    type(relay_hsumma_info) :: info
    type(relay_plan) :: plan
    type(relay_exec) :: exec
    real(c_double), allocatable, target :: a(:, :), b(:, :), c(:, :)
    real(c_double) :: expected
    integer(c_int64_t) :: r0, nr, c0, nc, k0, nk_r, k1, nk_c, i, j, l
    integer :: s, t, wrong
    s = near_square_rows(nranks)
    t = nranks / s
    call check_ok(relay_hsumma_params_init(params, hm, hn, hk, s, t, RELAY_DOUBLE), 'relay_hsumma_params_init')
    params%group_rows = 1
    params%group_cols = 1
    params%inner_block = 4
    params%outer_block = 8
    call check_ok(relay_plan_hsumma(plan, params), 'relay_plan_hsumma')
    call check_ok(relay_plan_hsumma_info(plan, info), 'relay_plan_hsumma_info')
    call check(info%params%m == hm .and. info%params%n == hn .and. info%params%k == hk .and. &
               info%params%grid_rows == s .and. info%params%outer_block == 8 .and. &
               info%params%type == RELAY_DOUBLE .and. info%groups_from == RELAY_GROUPS_GIVEN, &
               'relay_plan_hsumma_info fields')
    call check_ok(relay_exec_create(exec, plan, MPI_COMM_WORLD), 'HSUMMA: relay_exec_create')
    call part_of(hm, s, rank / t, r0, nr)
    call part_of(hn, t, mod(rank, t), c0, nc)
    call part_of(hk, t, mod(rank, t), k0, nk_c)   ! A's columns
    call part_of(hk, s, rank / t, k1, nk_r)       ! B's rows
    allocate (a(nr, nk_c), b(nk_r, nc), c(nr, nc))
    a = reshape([((real(mod(r0 + i + 2 * (k0 + l), 7_c_int64_t) - 3, c_double), i = 0, nr - 1), l = 0, nk_c - 1)], &
                [nr, nk_c])
    b = reshape([((real(mod(3 * (k1 + l) + c0 + j, 5_c_int64_t) - 2, c_double), l = 0, nk_r - 1), j = 0, nc - 1)], &
                [nk_r, nc])
    c = 1
    call check_fails(relay_exec_run(exec, c, a), RELAY_ERR_ARG, 'HSUMMA replayed with one source')
    call check_fails(relay_exec_run_ptrs(exec, [c_loc(c)], [c_loc(a)]), RELAY_ERR_ARG, 'HSUMMA: one source address')
    call check_fails(relay_exec_run_ptrs(exec, [c_loc(c)], [c_loc(a), c_loc(b)], 1.0, 2.0), RELAY_ERR_ARG, &
                     'HSUMMA: default reals for alpha and beta of a double plan')
    call check(index(relay_last_error(), 'alpha is real(c_float)') > 0, 'HSUMMA: the message names alpha''s kind')
    call check(all(c == 1), 'HSUMMA: C untouched by the refused replays')
    call check_ok(relay_exec_run_ptrs(exec, [c_loc(c)], [c_loc(a), c_loc(b)], 1.0_c_double, 2.0_c_double), &
                  'HSUMMA: relay_exec_run_ptrs')
    wrong = 0
    do j = 0, nc - 1
      do i = 0, nr - 1
        expected = 2
        do l = 0, hk - 1
          expected = expected + real(mod(r0 + i + 2 * l, 7_c_int64_t) - 3, c_double) * &
                                real(mod(3 * l + c0 + j, 5_c_int64_t) - 2, c_double)
        end do
        if (c(i + 1, j + 1) /= expected) wrong = wrong + 1
      end do
    end do
    call check(wrong == 0, 'HSUMMA: C = A B + 2 C')
    call relay_exec_free(exec)
    call relay_plan_free(plan)
  end subroutine test_hsumma

  ! ---- one rank's arrays refused --------------------------------------------

  ! Op N over the arrays of every rank but `culprit`: culprit's destination
  ! is one element short, then its source is real(c_float).  Culprit gets
  ! RELAY_ERR_ARG naming the array and the sizes, and its arrays are
  ! untouched; the others complete, with NaN where B's elements are
  ! culprit's.  Then every rank replays with the right arrays.
  subroutine test_refused_buffers()
    type(relay_layout) :: la, lb
    type(relay_plan) :: plan
    type(relay_exec) :: exec
    real(c_double), allocatable, target :: a(:), b(:), before(:)
    real(c_float), allocatable, target :: b_float(:)
    integer(c_int64_t) :: na, nb
    integer(c_int) :: st
    integer :: culprit
    la = make_layout(bc_dst)
    lb = make_layout(bc_src(RELAY_OP_N))
    call check_ok(relay_plan_transform(plan, nranks, la, lb, RELAY_OP_N, RELAY_DOUBLE), 'relay_plan_transform')
    call check_ok(relay_exec_create(exec, plan, MPI_COMM_WORLD), 'refused buffers: relay_exec_create')
    na = local_elems(bc_dst, rank)
    nb = local_elems(bc_src(RELAY_OP_N), rank)
    allocate (a(na), b(nb))

    culprit = 0   ! holds part of A at every rank count
    call fill(RELAY_OP_N, a, rank, b, nan=.false.)
    before = a
    if (rank == culprit) then
      st = relay_exec_run(exec, a(2:), b, alpha, beta)
    else
      st = relay_exec_run(exec, a, b, alpha, beta)
    end if
    call check_refusal(st, culprit, a, before, 'a destination one element short', names_sizes('dst', na - 1, 8, na, 8))

    culprit = nranks - 1
    call fill(RELAY_OP_N, a, rank, b, nan=.false.)
    before = a
    if (rank == culprit) then
      b_float = real(b, c_float)
      st = relay_exec_run(exec, a, b_float, alpha, beta)
      call check(index(relay_last_error(), 'real(c_double)') > 0, 'a real(c_float) source: the message names the type')
    else
      st = relay_exec_run(exec, a, b, alpha, beta)
    end if
    call check_refusal(st, culprit, a, before, 'a real(c_float) source', names_sizes('src', nb, 4, nb, 8))

    culprit = nranks / 2
    call fill(RELAY_OP_N, a, rank, b, nan=.false.)
    before = a
    if (rank == culprit) then
      st = relay_exec_run(exec, a, b, 2.0, beta)
    else
      st = relay_exec_run(exec, a, b, alpha, beta)
    end if
    call check_refusal(st, culprit, a, before, 'a default real alpha', &
                       index(relay_last_error(), 'alpha is real(c_float); the plan''s elements are real(c_double)') > 0)

    call check_fails(relay_exec_set_deadline(exec, -1.0_c_double), RELAY_ERR_ARG, 'a negative deadline')
    call check_ok(relay_exec_set_deadline(exec, 60.0_c_double), 'a deadline of a minute')
    call fill(RELAY_OP_N, a, rank, b, nan=.false.)
    call check_ok(relay_exec_run(exec, a, b, alpha, beta), 'relay_exec_run after the refusals')
    call check(wrong_elements(RELAY_OP_N, a, rank, alpha, beta) == 0, 'after the refusals: A = alpha op(B) + beta A0')
    call relay_exec_free(exec)
    call relay_plan_free(plan)
    call relay_layout_free(la)
    call relay_layout_free(lb)
  end subroutine test_refused_buffers

  ! ---- alpha and beta of the plan's kind ------------------------------------

  ! For op N plans of each element type over the same values (complex ones
  ! with equal real and imaginary parts): alpha, then beta, of every other
  ! kind refused on every rank, the arrays untouched; the plan's own kind
  ! replays A = alpha op(B) + beta A0.
  subroutine test_scalar_kinds()
    type(relay_layout) :: la, lb
    type(relay_plan) :: plan
    type(relay_exec) :: exec
    real(c_double), allocatable :: a(:), b(:)
    real(c_float), allocatable, target :: af(:), bf(:)
    real(c_double), allocatable, target :: ad(:), bd(:)
    complex(c_float_complex), allocatable, target :: ac(:), bc(:)
    complex(c_double_complex), allocatable, target :: az(:), bz(:)
    integer(c_int) :: t
    la = make_layout(bc_dst)
    lb = make_layout(bc_src(RELAY_OP_N))
    allocate (a(local_elems(bc_dst, rank)), b(local_elems(bc_src(RELAY_OP_N), rank)))
    call fill(RELAY_OP_N, a, rank, b, nan=.false.)
    af = real(a, c_float)
    bf = real(b, c_float)
    ad = a
    bd = b
    ac = cmplx(a, a, c_float_complex)
    bc = cmplx(b, b, c_float_complex)
    az = cmplx(a, a, c_double_complex)
    bz = cmplx(b, b, c_double_complex)
    do t = RELAY_FLOAT, RELAY_CDOUBLE
      call check_ok(relay_plan_transform(plan, nranks, la, lb, RELAY_OP_N, t), 'relay_plan_transform')
      call check_ok(relay_exec_create(exec, plan, MPI_COMM_WORLD), 'scalar kinds: relay_exec_create')
      select case (t)
      case (RELAY_FLOAT)
        call refuse_other_kinds(exec, t, af, bf, c_loc(af), bytes_of(af))
        call check_ok(relay_exec_run(exec, af, bf, real(alpha, c_float), real(beta, c_float)), 'real(c_float) scalars')
        call check(wrong_elements(RELAY_OP_N, real(af, c_double), rank, alpha, beta) == 0, 'real(c_float) replay')
      case (RELAY_DOUBLE)
        call refuse_other_kinds(exec, t, ad, bd, c_loc(ad), bytes_of(ad))
        call check_ok(relay_exec_run(exec, ad, bd, alpha, beta), 'real(c_double) scalars')
        call check(wrong_elements(RELAY_OP_N, ad, rank, alpha, beta) == 0, 'real(c_double) replay')
      case (RELAY_CFLOAT)
        call refuse_other_kinds(exec, t, ac, bc, c_loc(ac), bytes_of(ac))
        call check_ok(relay_exec_run(exec, ac, bc, cmplx(alpha, 0, c_float_complex), cmplx(beta, 0, c_float_complex)), &
                      'complex(c_float_complex) scalars')
        call check(wrong_elements(RELAY_OP_N, real(real(ac), c_double), rank, alpha, beta) == 0, &
                   'complex(c_float_complex) replay, real parts')
        call check(wrong_elements(RELAY_OP_N, real(aimag(ac), c_double), rank, alpha, beta) == 0, &
                   'complex(c_float_complex) replay, imaginary parts')
      case (RELAY_CDOUBLE)
        call refuse_other_kinds(exec, t, az, bz, c_loc(az), bytes_of(az))
        call check_ok(relay_exec_run(exec, az, bz, cmplx(alpha, 0, c_double_complex), cmplx(beta, 0, c_double_complex)), &
                      'complex(c_double_complex) scalars')
        call check(wrong_elements(RELAY_OP_N, real(az), rank, alpha, beta) == 0, &
                   'complex(c_double_complex) replay, real parts')
        call check(wrong_elements(RELAY_OP_N, aimag(az), rank, alpha, beta) == 0, &
                   'complex(c_double_complex) replay, imaginary parts')
      end select
      call relay_exec_free(exec)
      call relay_plan_free(plan)
    end do
    call relay_layout_free(la)
    call relay_layout_free(lb)
  end subroutine test_scalar_kinds

  ! The bytes of array x.
  integer(c_size_t) function bytes_of(x)
    class(*), intent(in) :: x(:)
    bytes_of = size(x, kind=c_size_t) * storage_size(x) / 8
  end function bytes_of

    ! Every kind but the plan's, for alpha and then for beta, on the plan of
  ! elem_type that exec replays over a and b (a: a_bytes bytes at a_addr).
  subroutine refuse_other_kinds(exec, elem_type, a, b, a_addr, a_bytes)
    type(relay_exec), intent(in) :: exec
    integer(c_int), intent(in) :: elem_type
    type(*), dimension(..), intent(inout), target :: a
    type(*), dimension(..), intent(in), target :: b
    type(c_ptr), intent(in) :: a_addr
    integer(c_size_t), intent(in) :: a_bytes
    if (elem_type /= RELAY_FLOAT) call refuse_kind(exec, elem_type, a, b, a_addr, a_bytes, 2.0_c_float, 'real(c_float)')
    if (elem_type /= RELAY_DOUBLE) call refuse_kind(exec, elem_type, a, b, a_addr, a_bytes, 2.0_c_double, 'real(c_double)')
    if (elem_type /= RELAY_CFLOAT) call refuse_kind(exec, elem_type, a, b, a_addr, a_bytes, (2.0_c_float, 0.0_c_float), &
                                                    'complex(c_float_complex)')
    if (elem_type /= RELAY_CDOUBLE) call refuse_kind(exec, elem_type, a, b, a_addr, a_bytes, &
                                                     (2.0_c_double, 0.0_c_double), 'complex(c_double_complex)')
    call refuse_kind(exec, elem_type, a, b, a_addr, a_bytes, 2, 'integer(c_int32_t)')
    call refuse_kind(exec, elem_type, a, b, a_addr, a_bytes, 2_c_int64_t, 'integer(c_int64_t)')
    call refuse_kind(exec, elem_type, a, b, a_addr, a_bytes, .true., 'of another type')
    call refuse_kind(exec, elem_type, a, b, a_addr, a_bytes, [1.0_c_double, 2.0_c_double], 'an array')
  end subroutine refuse_other_kinds

  ! A replay with alpha = x, then one with beta = x, where x is `given`:
  ! refused on every rank, saying what x is and what the plan's elements
  ! are, a untouched.
  subroutine refuse_kind(exec, elem_type, a, b, a_addr, a_bytes, x, given)
    type(relay_exec), intent(in) :: exec
    integer(c_int), intent(in) :: elem_type
    type(*), dimension(..), intent(inout), target :: a
    type(*), dimension(..), intent(in), target :: b
    type(c_ptr), intent(in) :: a_addr
    integer(c_size_t), intent(in) :: a_bytes
    type(*), dimension(..), intent(in) :: x
    character(len=*), intent(in) :: given
    character(len=*), parameter :: plan_kinds(0:3) = [character(len=25) :: 'real(c_float)', 'real(c_double)', &
                                                       'complex(c_float_complex)', 'complex(c_double_complex)']
    integer(c_int8_t), pointer :: bytes(:)
    integer(c_int8_t), allocatable :: before(:)
    character(len=:), allocatable :: case, message
    call c_f_pointer(a_addr, bytes, [a_bytes])
    allocate (before, source=bytes)
    case = trim(plan_kinds(elem_type)) // ' plan, alpha ' // given
    call check_fails(relay_exec_run(exec, a, b, alpha=x), RELAY_ERR_ARG, case)
    message = relay_last_error()
    call check(index(message, 'alpha is ' // given) > 0 .and. index(message, 'elements are ' // &
               trim(plan_kinds(elem_type))) > 0, case // ': the message says what alpha is and what was needed: ' // message)
    case = trim(plan_kinds(elem_type)) // ' plan, beta ' // given
    call check_fails(relay_exec_run(exec, a, b, beta=x), RELAY_ERR_ARG, case)
    message = relay_last_error()
    call check(index(message, 'beta is ' // given) > 0, case // ': the message names beta: ' // message)
    call check(all(bytes == before), case // ': A untouched')
  end subroutine refuse_kind

  ! The outcome st of a replay of op N in which rank culprit passed
  ! something wrong (`case`): culprit refused, its message explained (as
  ! its caller found), its A as before; every other rank complete, with NaN
  ! where B's elements are culprit's and alpha op(B) + beta A0 elsewhere.
  subroutine check_refusal(st, culprit, a, before, case, explained)
    integer(c_int), intent(in) :: st
    integer, intent(in) :: culprit
    real(c_double), intent(in) :: a(:), before(:)
    character(len=*), intent(in) :: case
    logical, intent(in) :: explained
    character(len=64) :: named
    logical :: told
    if (rank == culprit) then
      call check_fails(st, RELAY_ERR_ARG, case)
      call check(explained, case // ': the message says what was given and needed: ' // relay_last_error())
      call check(all(a == before), case // ': A untouched')
    else
      write (named, '(a, i0, a)') 'the start of rank ', culprit, ' was refused'
      ! told where this rank receives from the culprit (RELAY_ERR_PEER), else right
      told = st == RELAY_ERR_PEER
      if (told) told = index(relay_last_error(), trim(named)) > 0
      call check(st == RELAY_OK .or. told, 'relay_exec_run beside ' // case // ': OK or RELAY_ERR_PEER naming the rank')
      call check(wrong_elements(RELAY_OP_N, a, rank, alpha, beta, nan_from=culprit) == 0, &
                 'beside ' // case // ': NaN from its rank, A = alpha op(B) + beta A0 elsewhere')
    end if
  end subroutine check_refusal

  ! Whether relay_last_error() says that `what` has `have` elements of
  ! have_bytes bytes where `need` of need_bytes are needed.
  logical function names_sizes(what, have, have_bytes, need, need_bytes)
    character(len=*), intent(in) :: what
    integer(c_int64_t), intent(in) :: have, need
    integer, intent(in) :: have_bytes, need_bytes
    character(len=160) :: has, needs
    character(len=:), allocatable :: message
    message = relay_last_error()
    write (has, '(2a, i0, a, i0, a)') what, ' has ', have, ' elements of ', have_bytes, ' bytes'
    write (needs, '(a, i0, a, i0, a)') 'needs ', need, ' elements of ', need_bytes, ' bytes'
    names_sizes = index(message, trim(has)) > 0 .and. index(message, trim(needs)) > 0
  end function names_sizes

  ! ---- errors -------------------------------------------------------------

  subroutine test_errors()
    type(relay_layout) :: bad, la, lb
    type(relay_plan) :: plan, wrong_size, missing
    type(relay_exec) :: exec
    integer(c_int) :: short_sigma(0)
    real(c_double), allocatable, target :: a(:, :), b(:)

    call check_fails(relay_layout_block_cyclic(bad, m, n, 0_c_int64_t, 32_c_int64_t, 1, 1, RELAY_ROW_MAJOR, 0, 0, &
                                               0_c_int64_t, RELAY_COL_MAJOR), RELAY_ERR_ARG, 'a block size of 0')
    call check(.not. c_associated(bad%ptr), 'a failed layout leaves the handle null')
    call check(relay_status_str(RELAY_ERR_MISMATCH) == 'RELAY_ERR_MISMATCH', 'relay_status_str')
    call check_fails(relay_plan_load(missing, 'no/such/dir/x.plan', rank), RELAY_ERR_IO, 'loading a missing file')

    la = make_layout(bc_dst)
    lb = make_layout(bc_src(RELAY_OP_N))
    call check_ok(relay_plan_transform(plan, nranks, la, lb, RELAY_OP_N, RELAY_DOUBLE), 'relay_plan_transform')
    call check_fails(relay_plan_relabeling(plan, short_sigma), RELAY_ERR_ARG, 'a sigma array too short')
    call check_fails(relay_exec_create(exec, plan, MPI_COMM_NULL), RELAY_ERR_ARG, 'MPI_COMM_NULL')
    call check_ok(relay_plan_transform(wrong_size, nranks + 1, la, lb, RELAY_OP_N, RELAY_DOUBLE), &
                  'relay_plan_transform')
    call check_fails(relay_exec_create(exec, wrong_size, MPI_COMM_WORLD), RELAY_ERR_MISMATCH, &
                     'a plan for P+1 ranks on P')
    call check(.not. c_associated(exec%ptr), 'a failed executor leaves the handle null')

    ! Every other row of a larger array is no contiguous buffer.
    call check_ok(relay_exec_create(exec, plan, MPI_COMM_WORLD), 'relay_exec_create')
    allocate (a(2, local_elems(bc_dst, rank)), b(local_elems(bc_src(RELAY_OP_N), rank)))
    call check_fails(relay_exec_run(exec, a(1, :), b), RELAY_ERR_ARG, 'a non-contiguous destination')
    call check(index(relay_last_error(), 'contiguous') > 0, 'the message names contiguity')
    call check_fails(run_assumed_size(exec, a, b), RELAY_ERR_ARG, 'an assumed-size destination')
    call check(index(relay_last_error(), 'assumed-size') > 0, 'the message names the assumed size')
    call relay_exec_free(exec)
    call relay_plan_free(plan)
    call relay_plan_free(wrong_size)
    call relay_layout_free(la)
    call relay_layout_free(lb)
  end subroutine test_errors

  ! relay_exec_run with a destination whose size only the caller knows.
  integer(c_int) function run_assumed_size(exec, a, b) result(st)
    type(relay_exec), intent(in) :: exec
    real(c_double), intent(inout), target :: a(*)
    real(c_double), intent(in), target :: b(:)
    st = relay_exec_run(exec, a, b)
  end function run_assumed_size

end program mpi_fortran
