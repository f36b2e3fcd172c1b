! mpi_dropin_fortran.f90 — the drop-in library (librelay_scalapack_dropin)
! called from Fortran the way an application calls ScaLAPACK, CALL
! PDGEMR2D(...), CALL PZTRANC(...), against ScaLAPACK's own routines in the
! same run (tests/dropin_reference.c finds them after the drop-in).
!
! Random cases from fixed seeds, each on identical local arrays, whole
! arrays compared bit for bit (padding and untouched parts included):
!   P?GEMR2D (s, d, c, z): A and B on grids of different shapes (row- and
!     column-major, a shuffled process map, grids that leave processes
!     out), submatrix origins, block sizes, source processes, padded LLD,
!     and what P?GEMR2D accepts without reading: DTYPE left unset, LLD = 0
!     where a process holds no rows;
!   PSTRAN, PDTRAN, PCTRANU, PZTRANU, PCTRANC, PZTRANC: alpha and beta of
!     full precision (0, 1 and others), NaN in C where beta = 0 and in A
!     where alpha = 0 (neither may be read), on every grid.
! Each case runs twice on fresh data; relay's cache must count the first
! call (a hit or a miss) and a hit for the second — or nothing where
! ScaLAPACK answers alone (alpha = 0) or the process makes no call.
! Rank 0 prints "mpi_dropin_fortran: N passed, M failed".
program mpi_dropin_fortran
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int32, int64
  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan
  use mpi
  implicit none

  integer, parameter :: TYPE_S = 1, TYPE_D = 2, TYPE_C = 3, TYPE_Z = 4
  integer, parameter :: NCASES = 150, MAXGRIDS = 10

  type grid
    integer :: ctxt = -1, nprow = 0, npcol = 0, myrow = -1, mycol = -1
    character(len=20) :: name = ''
  end type

  ! A distributed matrix: its descriptor, the origin of the submatrix a
  ! call uses, and this process's local array in the component of its type.
  type matrix
    integer :: t = TYPE_D, desc(9) = 0, i = 1, j = 1, lrows = 0, lcols = 0, elems = 1
    real(c_float), allocatable :: s(:)
    real(c_double), allocatable :: d(:)
    complex(c_float_complex), allocatable :: c(:)
    complex(c_double_complex), allocatable :: z(:)
  end type

  type, bind(C) :: cache_stats
    integer(c_long_long) :: hits, misses, entries, contexts
  end type

  abstract interface
    ! ScaLAPACK's Cp?gemr2d: its Fortran spelling forwards to Cp?gemr2d by
    ! name, which in this program is the drop-in's.
    subroutine c_gemr2d(m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt) bind(C)
      import :: c_int
      integer(c_int), value :: m, n, ia, ja, ib, jb, ictxt
      type(*), dimension(*) :: a, b
      integer(c_int) :: desca(*), descb(*)
    end subroutine
    ! PBLAS's p?tran*, every argument by reference.
    subroutine f_tran(m, n, alpha, a, ia, ja, desca, beta, c, ic, jc, descc) bind(C)
      import :: c_int
      integer(c_int) :: m, n, ia, ja, ic, jc, desca(*), descc(*)
      type(*) :: alpha, beta
      type(*), dimension(*) :: a, c
    end subroutine
  end interface

  interface
    type(c_funptr) function dropin_reference(name) bind(C)
      import :: c_funptr, c_char
      character(kind=c_char), dimension(*) :: name
    end function
    integer(c_int) function relay_scalapack_cache_get_stats(stats) bind(C)
      import :: c_int, cache_stats
      type(cache_stats) :: stats
    end function
  end interface

  procedure(c_gemr2d), pointer :: ref_sgemr2d, ref_dgemr2d, ref_cgemr2d, ref_zgemr2d
  procedure(f_tran), pointer :: ref_stran, ref_dtran, ref_ctranu, ref_ztranu, ref_ctranc, ref_ztranc
  type(grid) :: grids(MAXGRIDS)
  integer :: ngrids = 0, rank, nprocs, all_ctxt, ierr, passed = 0, failed = 0, fills = 0, k
  integer(int64) :: rng_state

  call MPI_Init(ierr)
  call blacs_pinfo(rank, nprocs)
  call blacs_get(-1, 0, all_ctxt)
  call blacs_gridinit(all_ctxt, 'R', 1, nprocs)
  call make_grids()
  call check(find_references(), 'ScaLAPACK''s own routines found after the drop-in')
  if (failed == 0) then
    do k = 1, NCASES
      call random_case(k)
    end do
  end if
  if (rank == 0) print '(a, i0, a, i0, a)', 'mpi_dropin_fortran: ', passed, ' passed, ', failed, ' failed'
  do k = 1, ngrids
    if (grids(k)%ctxt >= 0) call blacs_gridexit(grids(k)%ctxt)
  end do
  call blacs_gridexit(all_ctxt)
  call MPI_Finalize(ierr)
  if (failed > 0) stop 1

contains

  ! ---- checking ------------------------------------------------------------

  ! A check passes when it passes on every process.
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    logical :: all_ok
    call MPI_Allreduce(ok, all_ok, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
    if (all_ok) then
      passed = passed + 1
    else
      failed = failed + 1
      if (rank == 0 .and. failed <= 10) print '(2a)', 'FAIL: ', what
    end if
  end subroutine

  type(cache_stats) function cache_now()
    if (relay_scalapack_cache_get_stats(cache_now) /= 0) cache_now = cache_stats(-1, -1, -1, -1)
  end function

  ! Whether relay's cache counted `hits` hits and `misses` misses since
  ! before (hits = -1: one call, a hit or a miss).
  logical function cache_moved(before, hits, misses)
    type(cache_stats), intent(in) :: before
    integer, intent(in) :: hits, misses
    type(cache_stats) :: now
    now = cache_now()
    if (hits < 0) then
      cache_moved = now%hits + now%misses == before%hits + before%misses + 1
    else
      cache_moved = now%hits - before%hits == hits .and. now%misses - before%misses == misses
    end if
  end function

  logical function same_bits(x, y)
    type(matrix), intent(in) :: x, y
    select case (x%t)
    case (TYPE_S)
      same_bits = all(transfer(x%s, 0_int32, x%elems) == transfer(y%s, 0_int32, y%elems))
    case (TYPE_D)
      same_bits = all(transfer(x%d, 0_int64, x%elems) == transfer(y%d, 0_int64, y%elems))
    case (TYPE_C)
      same_bits = all(transfer(x%c, 0_int32, 2 * x%elems) == transfer(y%c, 0_int32, 2 * y%elems))
    case default
      same_bits = all(transfer(x%z, 0_int64, 2 * x%elems) == transfer(y%z, 0_int64, 2 * y%elems))
    end select
  end function

  ! Equal within 16 ulps of max(1, |y|), part by part: where ScaLAPACK's
  ! own result depends on the BLAS (see tran_case).
  logical function close_values(x, y)
    type(matrix), intent(in) :: x, y
    select case (x%t)
    case (TYPE_S)
      close_values = all(abs(x%s - y%s) <= 16 * epsilon(1.0_c_float) * max(1.0_c_float, abs(y%s)))
    case (TYPE_D)
      close_values = all(abs(x%d - y%d) <= 16 * epsilon(1.0_c_double) * max(1.0_c_double, abs(y%d)))
    case (TYPE_C)
      close_values = all(abs(x%c%re - y%c%re) <= 16 * epsilon(1.0_c_float) * max(1.0_c_float, abs(y%c%re)) .and. &
                         abs(x%c%im - y%c%im) <= 16 * epsilon(1.0_c_float) * max(1.0_c_float, abs(y%c%im)))
    case default
      close_values = all(abs(x%z%re - y%z%re) <= 16 * epsilon(1.0_c_double) * max(1.0_c_double, abs(y%z%re)) .and. &
                         abs(x%z%im - y%z%im) <= 16 * epsilon(1.0_c_double) * max(1.0_c_double, abs(y%z%im)))
    end select
  end function

  logical function find_references()
    call c_f_procpointer(dropin_reference('Cpsgemr2d' // c_null_char), ref_sgemr2d)
    call c_f_procpointer(dropin_reference('Cpdgemr2d' // c_null_char), ref_dgemr2d)
    call c_f_procpointer(dropin_reference('Cpcgemr2d' // c_null_char), ref_cgemr2d)
    call c_f_procpointer(dropin_reference('Cpzgemr2d' // c_null_char), ref_zgemr2d)
    call c_f_procpointer(dropin_reference('pstran_' // c_null_char), ref_stran)
    call c_f_procpointer(dropin_reference('pdtran_' // c_null_char), ref_dtran)
    call c_f_procpointer(dropin_reference('pctranu_' // c_null_char), ref_ctranu)
    call c_f_procpointer(dropin_reference('pztranu_' // c_null_char), ref_ztranu)
    call c_f_procpointer(dropin_reference('pctranc_' // c_null_char), ref_ctranc)
    call c_f_procpointer(dropin_reference('pztranc_' // c_null_char), ref_ztranc)
    find_references = associated(ref_sgemr2d) .and. associated(ref_dgemr2d) .and. associated(ref_cgemr2d) .and. &
                      associated(ref_zgemr2d) .and. associated(ref_stran) .and. associated(ref_dtran) .and. &
                      associated(ref_ctranu) .and. associated(ref_ztranu) .and. associated(ref_ctranc) .and. &
                      associated(ref_ztranc)
  end function

  ! ---- random draws ----------------------------------------------------------

  ! The draws that shape a case: the same on every process (a Lehmer
  ! generator, exact in 64-bit integers).
  integer function uniform(lo, hi)
    integer, intent(in) :: lo, hi
    rng_state = mod(rng_state * 48271_int64, 2147483647_int64)
    uniform = lo + int(mod(rng_state, int(hi - lo + 1, int64)))
  end function

  ! Values of full precision in [-1, 1), from a seed of this process's own.
  subroutine fill(a, with_nan)
    type(matrix), intent(inout) :: a
    logical, intent(in) :: with_nan
    real(c_double) :: re(a%elems), im(a%elems)
    integer, allocatable :: seed(:)
    integer :: n, q
    fills = fills + 1
    call random_seed(size=n)
    seed = [(fills * 7919 + rank * 104729 + q * 31, q = 1, n)]
    call random_seed(put=seed)
    call random_number(re)
    call random_number(im)
    re = 2 * re - 1
    im = 2 * im - 1
    if (with_nan) re = ieee_value(re, ieee_quiet_nan)
    select case (a%t)
    case (TYPE_S)
      a%s = real(re, c_float)
    case (TYPE_D)
      a%d = re
    case (TYPE_C)
      a%c = cmplx(re, im, c_float_complex)
    case default
      a%z = cmplx(re, im, c_double_complex)
    end select
  end subroutine

  ! ---- grids and matrices ------------------------------------------------------

  ! A pr x pc grid, BLACS-ordered by order, or over a shuffled process map.
  subroutine add_grid(order, pr, pc, shuffled)
    character, intent(in) :: order
    integer, intent(in) :: pr, pc
    logical, intent(in) :: shuffled
    integer :: perm(nprocs), map(pr, pc), q, r, t
    if (pr * pc > nprocs .or. ngrids == MAXGRIDS) return
    ngrids = ngrids + 1
    associate (g => grids(ngrids))
      call blacs_get(-1, 0, g%ctxt)
      if (shuffled) then
        perm = [(q - 1, q = 1, nprocs)]
        do q = nprocs, 2, -1 ! the same shuffle on every process
          r = uniform(1, q)
          t = perm(q)
          perm(q) = perm(r)
          perm(r) = t
        end do
        map = reshape(perm(1:pr * pc), [pr, pc])
        call blacs_gridmap(g%ctxt, map, pr, pr, pc)
        write (g%name, '(i0, a, i0, a)') pr, 'x', pc, ' shuffled'
      else
        call blacs_gridinit(g%ctxt, order, pr, pc)
        write (g%name, '(i0, a, i0, 1x, a)') pr, 'x', pc, order
      end if
      if (g%ctxt >= 0) call blacs_gridinfo(g%ctxt, g%nprow, g%npcol, g%myrow, g%mycol)
      g%nprow = pr
      g%npcol = pc
    end associate
  end subroutine

  subroutine make_grids()
    integer :: half
    half = max(1, nprocs / 2)
    rng_state = 16
    call add_grid('R', 1, 1, .false.)
    call add_grid('R', 1, nprocs, .false.)
    call add_grid('C', nprocs, 1, .false.)
    call add_grid('R', 2, half, .false.)
    call add_grid('C', half, 2, .false.)
    call add_grid('R', 1, 2, .false.)                   ! leaves processes out from 3 on
    call add_grid('R', max(1, nprocs - 1), 1, .false.)  ! leaves the last process out
    call add_grid('R', 2, half, .true.)
  end subroutine

  ! A random t matrix on g holding a rows x cols submatrix; liberties: what
  ! P?GEMR2D accepts without reading (DTYPE unset, LLD = 0 without rows).
  ! Outside the grid the descriptor is garbage but for CTXT = -1.
  function random_matrix(g, t, rows, cols, liberties) result(a)
    type(grid), intent(in) :: g
    integer, intent(in) :: t, rows, cols
    logical, intent(in) :: liberties
    type(matrix) :: a
    integer :: big_m, big_n, mb, nb, rsrc, csrc, pad, dtype, lld, numroc
    logical :: lld_zero
    a%t = t
    a%i = uniform(1, 4)
    a%j = uniform(1, 4)
    big_m = a%i - 1 + rows + uniform(0, 3)
    big_n = a%j - 1 + cols + uniform(0, 3)
    mb = uniform(1, 8)
    nb = uniform(1, 8)
    rsrc = uniform(0, g%nprow - 1)
    csrc = uniform(0, g%npcol - 1)
    pad = uniform(0, 2)
    dtype = uniform(-20, 9)                ! a third of the time 0 .. 9: as if unset
    if (.not. liberties .or. dtype < 0) dtype = 1
    lld_zero = uniform(0, 1) == 1 .and. liberties
    a%desc = [-5, -1, -5, -5, -5, -5, -5, -5, -5]
    if (g%myrow >= 0) then
      a%lrows = numroc(big_m, mb, g%myrow, rsrc, g%nprow)
      a%lcols = numroc(big_n, nb, g%mycol, csrc, g%npcol)
      lld = max(1, a%lrows) + pad
      if (a%lrows == 0 .and. lld_zero) lld = 0
      a%desc = [dtype, g%ctxt, big_m, big_n, mb, nb, rsrc, csrc, lld]
      a%elems = max(1, lld) * max(1, a%lcols)
    end if
  end function

  ! ---- the cases -------------------------------------------------------------

  subroutine random_case(number)
    integer, intent(in) :: number
    integer :: t, m, n, ga, gb
    rng_state = 1600 + number
    t = uniform(TYPE_S, TYPE_Z)
    ga = uniform(1, ngrids)
    gb = uniform(1, ngrids)
    m = uniform(1, 50)
    n = uniform(1, 50)
    if (mod(number, 2) == 0) then
      call gemr2d_case(number, t, grids(ga), grids(gb), m, n)
    else
      call tran_case(number, t, uniform(0, 1) == 1, grids(gb), m, n)
    end if
  end subroutine

  ! B(ib.., jb..) := A(ia.., ja..), m x n, twice on fresh data.
  subroutine gemr2d_case(number, t, ga, gb, m, n)
    integer, intent(in) :: number, t, m, n
    type(grid), intent(in) :: ga, gb
    type(matrix) :: a, b1, b2
    type(cache_stats) :: before
    character(len=160) :: what
    integer :: round
    logical :: counted
    a = random_matrix(ga, t, m, n, .true.)
    b1 = random_matrix(gb, t, m, n, .true.)
    write (what, '(a, i0, 3a, i0, a, i0, 4a)') 'case ', number, ': P', 'SDCZ'(t:t), 'GEMR2D ', m, 'x', n, ' from ', &
      trim(ga%name), ' to ', trim(gb%name)
    do round = 1, 2
      call fill(a, .false.)
      call fill(b1, .false.)
      b2 = b1
      before = cache_now()
      call gemr2d_by_dropin(m, n, a, b1)
      counted = cache_moved(before, merge(-1, 1, round == 1), 0)
      call gemr2d_by_scalapack(m, n, a, b2)
      call check(counted, trim(what) // ': cache counts')
      call check(same_bits(b1, b2), trim(what) // ': results differ')
    end do
  end subroutine

  subroutine gemr2d_by_dropin(m, n, a, b)
    integer, intent(in) :: m, n
    type(matrix), intent(inout) :: a, b
    select case (a%t)
    case (TYPE_S)
      call psgemr2d(m, n, a%s, a%i, a%j, a%desc, b%s, b%i, b%j, b%desc, all_ctxt)
    case (TYPE_D)
      call pdgemr2d(m, n, a%d, a%i, a%j, a%desc, b%d, b%i, b%j, b%desc, all_ctxt)
    case (TYPE_C)
      call pcgemr2d(m, n, a%c, a%i, a%j, a%desc, b%c, b%i, b%j, b%desc, all_ctxt)
    case default
      call pzgemr2d(m, n, a%z, a%i, a%j, a%desc, b%z, b%i, b%j, b%desc, all_ctxt)
    end select
  end subroutine

  subroutine gemr2d_by_scalapack(m, n, a, b)
    integer, intent(in) :: m, n
    type(matrix), intent(inout) :: a, b
    select case (a%t)
    case (TYPE_S)
      call ref_sgemr2d(m, n, a%s, a%i, a%j, a%desc, b%s, b%i, b%j, b%desc, all_ctxt)
    case (TYPE_D)
      call ref_dgemr2d(m, n, a%d, a%i, a%j, a%desc, b%d, b%i, b%j, b%desc, all_ctxt)
    case (TYPE_C)
      call ref_cgemr2d(m, n, a%c, a%i, a%j, a%desc, b%c, b%i, b%j, b%desc, all_ctxt)
    case default
      call ref_zgemr2d(m, n, a%z, a%i, a%j, a%desc, b%z, b%i, b%j, b%desc, all_ctxt)
    end select
  end subroutine

  ! C(ic.., jc..) := beta C + alpha op(A(ia.., ja..)), C m x n, on g's
  ! processes, twice on fresh data.  Bit for bit ScaLAPACK's, but where
  ! beta = 1 and alpha is neither 0 nor 1: there PBLAS's P?MMADD calls the
  ! BLAS's ?AXPY, whose result depends on the BLAS (OpenBLAS fuses the
  ! multiply and the add, rounding once; relay, like PBLAS's own loops for
  ! other betas, rounds the product and the sum), so it is compared within
  ! a few ulps.
  subroutine tran_case(number, t, conj, g, m, n)
    integer, intent(in) :: number, t, m, n
    logical, intent(in) :: conj
    type(grid), intent(in) :: g
    type(matrix) :: a, c1, c2
    type(cache_stats) :: before
    complex(c_double_complex) :: alpha, beta
    character(len=160) :: what
    integer :: round
    logical :: counted, relay_serves, by_axpy
    a = random_matrix(g, t, n, m, .false.)
    c1 = random_matrix(g, t, m, n, .false.)
    alpha = scalar(t)
    beta = scalar(t)
    relay_serves = abs(alpha) > 0 .and. g%myrow >= 0
    by_axpy = .not. abs(beta - 1) > 0 .and. abs(alpha) > 0 .and. abs(alpha - 1) > 0
    write (what, '(a, i0, 4a, i0, a, i0, 2a, 4(a, g0.3))') 'case ', number, ': P', 'SDCZ'(t:t), 'TRAN', &
      trim(merge('C', ' ', conj .and. t >= TYPE_C)), m, 'x', n, ' on ', trim(g%name), ', alpha ', alpha%re, ' ', alpha%im, &
      ', beta ', beta%re, ' ', beta%im
    do round = 1, 2
      call fill(a, .not. abs(alpha) > 0)
      call fill(c1, .not. abs(beta) > 0)
      c2 = c1
      before = cache_now()
      if (g%myrow >= 0) call tran_by_dropin(conj, m, n, alpha, a, beta, c1)
      if (relay_serves) then
        counted = cache_moved(before, merge(-1, 1, round == 1), 0)
      else
        counted = cache_moved(before, 0, 0)
      end if
      if (g%myrow >= 0) call tran_by_scalapack(conj, m, n, alpha, a, beta, c2)
      call check(counted, trim(what) // ': cache counts')
      if (by_axpy) then
        call check(close_values(c1, c2), trim(what) // ': results differ by more than a few ulps')
      else
        call check(same_bits(c1, c2), trim(what) // ': results differ')
      end if
    end do
  end subroutine

  ! alpha or beta: 0, 1, or of full precision in [-2, 2) (real for S and D).
  complex(c_double_complex) function scalar(t)
    integer, intent(in) :: t
    real(c_double) :: re, im
    select case (uniform(0, 5))
    case (0)
      scalar = 0
    case (1)
      scalar = 1
    case default
      re = 4 * global_real() - 2
      im = 4 * global_real() - 2
      scalar = cmplx(re, im, c_double_complex)
    end select
    if (t <= TYPE_D) scalar = scalar%re
  end function

  ! A value in [0, 1) of 60 random bits, the same on every process.
  real(c_double) function global_real()
    integer :: high, low
    high = uniform(0, 2**30 - 1)
    low = uniform(0, 2**30 - 1)
    global_real = (high + low * 2.0_c_double**(-30)) * 2.0_c_double**(-30)
  end function

  subroutine tran_by_dropin(conj, m, n, alpha, a, beta, c)
    logical, intent(in) :: conj
    integer, intent(in) :: m, n
    complex(c_double_complex), intent(in) :: alpha, beta
    type(matrix), intent(inout) :: a, c
    select case (a%t)
    case (TYPE_S)
      call pstran(m, n, real(alpha, c_float), a%s, a%i, a%j, a%desc, real(beta, c_float), c%s, c%i, c%j, c%desc)
    case (TYPE_D)
      call pdtran(m, n, real(alpha, c_double), a%d, a%i, a%j, a%desc, real(beta, c_double), c%d, c%i, c%j, c%desc)
    case (TYPE_C)
      if (conj) then
        call pctranc(m, n, cmplx(alpha, kind=c_float_complex), a%c, a%i, a%j, a%desc, cmplx(beta, kind=c_float_complex), &
                     c%c, c%i, c%j, c%desc)
      else
        call pctranu(m, n, cmplx(alpha, kind=c_float_complex), a%c, a%i, a%j, a%desc, cmplx(beta, kind=c_float_complex), &
                     c%c, c%i, c%j, c%desc)
      end if
    case default
      if (conj) then
        call pztranc(m, n, alpha, a%z, a%i, a%j, a%desc, beta, c%z, c%i, c%j, c%desc)
      else
        call pztranu(m, n, alpha, a%z, a%i, a%j, a%desc, beta, c%z, c%i, c%j, c%desc)
      end if
    end select
  end subroutine

  subroutine tran_by_scalapack(conj, m, n, alpha, a, beta, c)
    logical, intent(in) :: conj
    integer, intent(in) :: m, n
    complex(c_double_complex), intent(in) :: alpha, beta
    type(matrix), intent(inout) :: a, c
    real(c_float) :: alpha_s, beta_s
    real(c_double) :: alpha_d, beta_d
    complex(c_float_complex) :: alpha_c, beta_c
    complex(c_double_complex) :: alpha_z, beta_z
    alpha_s = real(alpha, c_float)
    beta_s = real(beta, c_float)
    alpha_d = real(alpha, c_double)
    beta_d = real(beta, c_double)
    alpha_c = cmplx(alpha, kind=c_float_complex)
    beta_c = cmplx(beta, kind=c_float_complex)
    alpha_z = alpha
    beta_z = beta
    select case (a%t)
    case (TYPE_S)
      call ref_stran(m, n, alpha_s, a%s, a%i, a%j, a%desc, beta_s, c%s, c%i, c%j, c%desc)
    case (TYPE_D)
      call ref_dtran(m, n, alpha_d, a%d, a%i, a%j, a%desc, beta_d, c%d, c%i, c%j, c%desc)
    case (TYPE_C)
      if (conj) then
        call ref_ctranc(m, n, alpha_c, a%c, a%i, a%j, a%desc, beta_c, c%c, c%i, c%j, c%desc)
      else
        call ref_ctranu(m, n, alpha_c, a%c, a%i, a%j, a%desc, beta_c, c%c, c%i, c%j, c%desc)
      end if
    case default
      if (conj) then
        call ref_ztranc(m, n, alpha_z, a%z, a%i, a%j, a%desc, beta_z, c%z, c%i, c%j, c%desc)
      else
        call ref_ztranu(m, n, alpha_z, a%z, a%i, a%j, a%desc, beta_z, c%z, c%i, c%j, c%desc)
      end if
    end select
  end subroutine

end program
