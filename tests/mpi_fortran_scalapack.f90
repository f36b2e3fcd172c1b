! mpi_fortran_scalapack.f90 — relay's ScaLAPACK-compatible calls from
! Fortran (`use relay`, built with relay_scalapack), checked against
! ScaLAPACK's own routines on the same arguments: each relay_p?gemr2d /
! relay_p?tran* must give bit for bit what p?gemr2d / p?tran* give.  One
! call of each argument convention: real and complex arrays, real scalars
! by value in both precisions, complex scalars by reference, submatrix
! origins; the source of the redistribution on a 1 x P grid, its
! destination and the transposes on a near-square one.  A repeated call
! must hit the plan cache.
!
! And ScaLAPACK's descriptors as `use relay` layouts: each process passes
! its own LLD, the one its descriptor carries, with the communicator
! (relay_layout_block_cyclic's comm).  Descriptors from descinit whose LLDs
! differ between processes, descinit's own and padded ones, give a plan
! whose replay is bit for bit pdtran's on the same descriptors; an LLD below
! one process's rows is refused on every process, and so are arguments on
! which the processes disagree.
program mpi_fortran_scalapack
  use, intrinsic :: iso_c_binding
  use mpi
  use relay
  use fortran_checks
  implicit none

  integer, parameter :: m = 90, n = 70
  integer :: rank, nranks, ierr, failed, pr, pc
  integer :: row_grid, square_grid, column_grid   ! BLACS contexts: 1 x P, pr x pc and P x 1
  integer :: desc_row(9), desc_sq(9), desc_sq_t(9)
  external :: blacs_get, blacs_gridinit, blacs_gridinfo, blacs_gridexit, descinit
  external :: psgemr2d, pdgemr2d, pcgemr2d, pzgemr2d, pstran, pdtran, pctranu, pztranc

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  pr = near_square_rows(nranks)
  pc = nranks / pr
  call blacs_get(-1, 0, row_grid)
  call blacs_gridinit(row_grid, 'R', 1, nranks)
  call blacs_get(-1, 0, square_grid)
  call blacs_gridinit(square_grid, 'R', pr, pc)
  call blacs_get(-1, 0, column_grid)
  call blacs_gridinit(column_grid, 'R', nranks, 1)
  ! m x n in 32 x 32 blocks on 1 x P; m x n in 128 x 128 and n x m in 16 x 8 on pr x pc.
  call describe(desc_row, m, n, 32, 32, row_grid, 1, nranks)
  call describe(desc_sq, m, n, 128, 128, square_grid, pr, pc)
  call describe(desc_sq_t, n, m, 16, 8, square_grid, pr, pc)

  call test_gemr2d()
  call test_tran()
  call test_cache()
  call test_descriptor_llds()

  call blacs_gridexit(row_grid)
  call blacs_gridexit(square_grid)
  call blacs_gridexit(column_grid)
  failed = verdict('mpi_fortran_scalapack')
  call MPI_Finalize(ierr)
  if (failed /= 0) stop 1

contains

  ! A descriptor of rows x cols in mb x nb blocks on the npr x npc grid ctxt,
  ! with this process's smallest leading dimension.
  subroutine describe(desc, rows, cols, mb, nb, ctxt, npr, npc)
    integer, intent(out) :: desc(9)
    integer, intent(in) :: rows, cols, mb, nb, ctxt, npr, npc
    integer :: myrow, info
    integer, external :: numroc
    myrow = rank / npc
    call descinit(desc, rows, cols, mb, nb, 0, 0, ctxt, max(1, numroc(rows, mb, myrow, 0, npr)), info)
    call check(info == 0, 'descinit')
  end subroutine describe

  ! Local elements of a descriptor's matrix on this process.
  integer function local_size(desc)
    integer, intent(in) :: desc(9)
    integer :: npr, npc, myrow, mycol
    integer, external :: numroc
    call blacs_gridinfo(desc(2), npr, npc, myrow, mycol)
    local_size = desc(9) * numroc(desc(4), desc(6), mycol, 0, npc)
  end function local_size

  ! Distinct values on every process and position.
  subroutine values(x)
    real(c_double), intent(out) :: x(:)
    integer :: k
    x = [(real(rank * 100000 + k, c_double) / 8, k = 1, size(x))]
  end subroutine values

  ! B(3:m, 2:n-3) := A(1:m-2, 4:n-1) from 1 x P to pr x pc, in each type.
  subroutine test_gemr2d()
    real(c_double), allocatable :: a(:), b(:), ref(:)
    real(c_float), allocatable :: as(:), bs(:), refs(:)
    complex(c_float_complex), allocatable :: ac(:), bc(:), refc(:)
    complex(c_double_complex), allocatable :: az(:), bz(:), refz(:)
    allocate (a(local_size(desc_row)), b(local_size(desc_sq)))
    call values(a)
    as = real(a, c_float)
    ac = cmplx(a, -a, c_float_complex)
    az = cmplx(a, 2 * a, c_double_complex)
    b = -1
    ref = b
    bs = real(b, c_float)
    refs = bs
    bc = bs
    refc = bc
    bz = b
    refz = bz
    call check_ok(relay_pdgemr2d(m - 2, n - 4, a, 1, 4, desc_row, b, 3, 2, desc_sq, row_grid), 'relay_pdgemr2d')
    call pdgemr2d(m - 2, n - 4, a, 1, 4, desc_row, ref, 3, 2, desc_sq, row_grid)
    call check(all(b == ref), 'relay_pdgemr2d = pdgemr2d')
    call check_ok(relay_psgemr2d(m - 2, n - 4, as, 1, 4, desc_row, bs, 3, 2, desc_sq, row_grid), 'relay_psgemr2d')
    call psgemr2d(m - 2, n - 4, as, 1, 4, desc_row, refs, 3, 2, desc_sq, row_grid)
    call check(all(bs == refs), 'relay_psgemr2d = psgemr2d')
    call check_ok(relay_pcgemr2d(m - 2, n - 4, ac, 1, 4, desc_row, bc, 3, 2, desc_sq, row_grid), 'relay_pcgemr2d')
    call pcgemr2d(m - 2, n - 4, ac, 1, 4, desc_row, refc, 3, 2, desc_sq, row_grid)
    call check(all(bc == refc), 'relay_pcgemr2d = pcgemr2d')
    call check_ok(relay_pzgemr2d(m - 2, n - 4, az, 1, 4, desc_row, bz, 3, 2, desc_sq, row_grid), 'relay_pzgemr2d')
    call pzgemr2d(m - 2, n - 4, az, 1, 4, desc_row, refz, 3, 2, desc_sq, row_grid)
    call check(all(bz == refz), 'relay_pzgemr2d = pzgemr2d')
  end subroutine test_gemr2d

  ! C(1:m, 1:n) := beta C + alpha op(A(1:n, 1:m)) on the square grid: real
  ! scalars by value (single and double), complex ones by reference.
  subroutine test_tran()
    real(c_double), allocatable :: a(:), c(:), ref(:)
    real(c_float), allocatable :: as(:), cs(:), refs(:)
    complex(c_float_complex), allocatable :: ac(:), cc(:), refc(:)
    complex(c_double_complex), allocatable :: az(:), cz(:), refz(:)
    allocate (a(local_size(desc_sq_t)), c(local_size(desc_sq)))
    call values(a)
    call values(c)
    as = real(a, c_float)
    ac = cmplx(a, 3 * a, c_float_complex)
    az = cmplx(-a, a, c_double_complex)
    ref = c
    cs = real(c, c_float)
    refs = cs
    cc = cmplx(c, c - 1, c_float_complex)
    refc = cc
    cz = cmplx(c + 1, c, c_double_complex)
    refz = cz
    call check_ok(relay_pdtran(m, n, 2.0_c_double, a, 1, 1, desc_sq_t, 0.5_c_double, c, 1, 1, desc_sq), &
                  'relay_pdtran')
    call pdtran(m, n, 2.0_c_double, a, 1, 1, desc_sq_t, 0.5_c_double, ref, 1, 1, desc_sq)
    call check(all(c == ref), 'relay_pdtran = pdtran')
    call check_ok(relay_pstran(m, n, 2.0_c_float, as, 1, 1, desc_sq_t, 0.5_c_float, cs, 1, 1, desc_sq), &
                  'relay_pstran')
    call pstran(m, n, 2.0_c_float, as, 1, 1, desc_sq_t, 0.5_c_float, refs, 1, 1, desc_sq)
    call check(all(cs == refs), 'relay_pstran = pstran')
    call check_ok(relay_pctranu(m, n, (1.0_c_float, 2.0_c_float), ac, 1, 1, desc_sq_t, (0.5_c_float, 0.0_c_float), &
                                cc, 1, 1, desc_sq), 'relay_pctranu')
    call pctranu(m, n, (1.0_c_float, 2.0_c_float), ac, 1, 1, desc_sq_t, (0.5_c_float, 0.0_c_float), refc, 1, 1, desc_sq)
    call check(all(cc == refc), 'relay_pctranu = pctranu')
    call check_ok(relay_pztranc(m, n, (0.0_c_double, 1.0_c_double), az, 1, 1, desc_sq_t, (2.0_c_double, 0.0_c_double), &
                                cz, 1, 1, desc_sq), 'relay_pztranc')
    call pztranc(m, n, (0.0_c_double, 1.0_c_double), az, 1, 1, desc_sq_t, (2.0_c_double, 0.0_c_double), refz, 1, 1, &
                 desc_sq)
    call check(all(cz == refz), 'relay_pztranc = pztranc')
  end subroutine test_tran

  ! The same redistribution again is a hit; clearing empties the cache.
  subroutine test_cache()
    real(c_double), allocatable :: a(:), b(:)
    type(relay_scalapack_cache_stats) :: before, after
    allocate (a(local_size(desc_row)), b(local_size(desc_sq)))
    call values(a)
    call check_ok(relay_scalapack_cache_get_stats(before), 'relay_scalapack_cache_get_stats')
    call check_ok(relay_pdgemr2d(m - 2, n - 4, a, 1, 4, desc_row, b, 3, 2, desc_sq, row_grid), 'relay_pdgemr2d again')
    call check_ok(relay_scalapack_cache_get_stats(after), 'relay_scalapack_cache_get_stats')
    call check(after%hits == before%hits + 1 .and. after%misses == before%misses, 'a repeated call hits the cache')
    call check(after%entries > 0, 'the cache holds plans')
    call check_ok(relay_scalapack_cache_clear(), 'relay_scalapack_cache_clear')
    call check_ok(relay_scalapack_cache_get_stats(after), 'relay_scalapack_cache_get_stats')
    call check(after%entries == 0 .and. after%contexts == 0, 'clearing empties the cache')
    call check(relay_scalapack_cache_set_limit(0) /= 0, 'a limit of 0 plans refused')
    call check_ok(relay_scalapack_cache_set_limit(64), 'relay_scalapack_cache_set_limit')
  end subroutine test_cache

  ! ---- descriptors as layouts, each process's own LLD --------------------------

  ! The layout of desc's matrix on its npr x npc grid, this process passing
  ! its LLD, desc(9), and its mb plus extra_mb (collective).
  integer(c_int) function descriptor_layout(layout, desc, npr, npc, lld, extra_mb) result(st)
    type(relay_layout), intent(inout) :: layout
    integer, intent(in) :: desc(9), npr, npc, lld, extra_mb
    st = relay_layout_block_cyclic(layout, int(desc(3), c_int64_t), int(desc(4), c_int64_t), &
                                   int(desc(5) + extra_mb, c_int64_t), int(desc(6), c_int64_t), npr, npc, &
                                   RELAY_ROW_MAJOR, desc(7), desc(8), int(lld, c_int64_t), RELAY_COL_MAJOR, &
                                   comm=MPI_COMM_WORLD)
  end function descriptor_layout

  ! B: n x m in 16 x 8 blocks on P x 1 at descinit's smallest LLDs (one per
  ! process row: they differ); C: m x n in 8 x 16 blocks on pr x pc at an
  ! LLD padded by 1 + rank.  C := 0.5 C + 2 B^T through relay_exec_run is
  ! ScaLAPACK's (pdgemr2d to the square grid, then pdtran), and so is
  ! relay_pdtran's from B's grid to C's (which pdtran itself refuses: two
  ! contexts).  The plan over descinit's own LLDs can be saved, the padded
  ! one cannot (but at one process, where its LLD is one for all).  Refused
  ! on every process: the last process's LLD one below its rows; process
  ! 0's mb differing from the others'.
  subroutine test_descriptor_llds()
    integer :: desc_b(9), desc_b_square(9), desc_c(9), info
    integer, external :: numroc
    type(relay_layout) :: lb, lc, bad
    type(relay_plan) :: plan, own_llds
    type(relay_exec) :: exec
    real(c_double), allocatable, target :: b(:), c(:), ref(:), b_square(:)
    integer(c_int8_t), allocatable :: bytes(:)
    call describe(desc_b, n, m, 16, 8, column_grid, nranks, 1)
    call descinit(desc_c, m, n, 8, 16, 0, 0, square_grid, max(1, numroc(m, 8, rank / pc, 0, pr)) + 1 + rank, info)
    call check(info == 0, 'descinit of a padded LLD')
    call check_ok(descriptor_layout(lb, desc_b, nranks, 1, desc_b(9), 0), 'the layout of descinit''s own LLDs')
    call check_ok(descriptor_layout(lc, desc_c, pr, pc, desc_c(9), 0), 'the layout of padded LLDs')
    call check_ok(relay_plan_transform(own_llds, nranks, lb, lb, RELAY_OP_N, RELAY_DOUBLE), 'a plan over own LLDs')
    call check_ok(relay_plan_encode(own_llds, bytes), 'a plan over descinit''s own LLDs is saved')
    call check_ok(relay_plan_transform(plan, nranks, lc, lb, RELAY_OP_T, RELAY_DOUBLE), 'a plan over padded LLDs')
    if (nranks > 1) then
      call check_fails(relay_plan_encode(plan, bytes), RELAY_ERR_ARG, 'a plan over padded LLDs is not saved')
      call check(index(relay_last_error(), 'leading dimension per rank') > 0, 'the refusal says why: ' // relay_last_error())
    else
      call check_ok(relay_plan_encode(plan, bytes), 'a plan over one process''s padded LLD, one for all, is saved')
    end if

    allocate (b(local_size(desc_b)), c(local_size(desc_c)))
    call values(b)
    call values(c)
    ref = c
    call check(relay_plan_buffer_elems(plan, 0, 0, rank) <= size(b), 'B''s part of the plan fits the local array')
    call check(relay_plan_buffer_elems(plan, 1, 0, rank) <= size(c), 'C''s part of the plan fits the local array')
    call check_ok(relay_exec_create(exec, plan, MPI_COMM_WORLD), 'relay_exec_create over per-process LLDs')
    call check_ok(relay_exec_run(exec, c, b, 2.0_c_double, 0.5_c_double), 'relay_exec_run over per-process LLDs')
    ! pdtran takes A and C on one grid: B moves to the square grid first.
    call describe(desc_b_square, n, m, 16, 8, square_grid, pr, pc)
    allocate (b_square(local_size(desc_b_square)))
    call pdgemr2d(n, m, b, 1, 1, desc_b, b_square, 1, 1, desc_b_square, column_grid)
    call pdtran(m, n, 2.0_c_double, b_square, 1, 1, desc_b_square, 0.5_c_double, ref, 1, 1, desc_c)
    call check(all(c == ref), 'per-process LLDs: relay''s replay = pdgemr2d then pdtran')
    call relay_exec_free(exec)
    call values(c)
    call check_ok(relay_pdtran(m, n, 2.0_c_double, b, 1, 1, desc_b, 0.5_c_double, c, 1, 1, desc_c), &
                  'relay_pdtran between two grids')
    call check(all(c == ref), 'relay_pdtran between two grids = pdgemr2d then pdtran')

    call check_fails(descriptor_layout(bad, desc_b, nranks, 1, desc_b(9) - merge(1, 0, rank == nranks - 1), 0), &
                     RELAY_ERR_ARG, 'the last process''s LLD below its rows, on every process')
    call check(.not. c_associated(bad%ptr), 'a refused layout is not made')
    if (nranks > 1) then
      call check_fails(descriptor_layout(bad, desc_b, nranks, 1, desc_b(9), merge(1, 0, rank == 0)), &
                       RELAY_ERR_MISMATCH, 'process 0''s mb differing, on every process')
      call check(.not. c_associated(bad%ptr), 'a layout the processes disagree on is not made')
    end if
    call relay_plan_free(plan)
    call relay_plan_free(own_llds)
    call relay_layout_free(lb)
    call relay_layout_free(lc)
  end subroutine test_descriptor_llds

end program mpi_fortran_scalapack
