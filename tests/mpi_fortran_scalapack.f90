! mpi_fortran_scalapack.f90 — relay's ScaLAPACK-compatible calls from
! Fortran (`use relay`, built with relay_scalapack), checked against
! ScaLAPACK's own routines on the same arguments: each relay_p?gemr2d /
! relay_p?tran* must give bit for bit what p?gemr2d / p?tran* give.  One
! call of each argument convention: real and complex arrays, real scalars
! by value in both precisions, complex scalars by reference, submatrix
! origins; the source of the redistribution on a 1 x P grid, its
! destination and the transposes on a near-square one.  A repeated call
! must hit the plan cache.
program mpi_fortran_scalapack
  use, intrinsic :: iso_c_binding
  use mpi
  use relay
  use fortran_checks
  implicit none

  integer, parameter :: m = 90, n = 70
  integer :: rank, nranks, ierr, failed, pr, pc
  integer :: row_grid, square_grid     ! BLACS contexts: 1 x P and pr x pc
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
  ! m x n in 32 x 32 blocks on 1 x P; m x n in 128 x 128 and n x m in 16 x 8 on pr x pc.
  call describe(desc_row, m, n, 32, 32, row_grid, 1, nranks)
  call describe(desc_sq, m, n, 128, 128, square_grid, pr, pc)
  call describe(desc_sq_t, n, m, 16, 8, square_grid, pr, pc)

  call test_gemr2d()
  call test_tran()
  call test_cache()

  call blacs_gridexit(row_grid)
  call blacs_gridexit(square_grid)
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

end program mpi_fortran_scalapack
