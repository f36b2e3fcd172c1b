! scalapack.f90 — relay_scalapack_mod: relay/scalapack.h in Fortran, built
! when relay_scalapack is (relay::fortran then brings relay::scalapack).
!
! relay's ScaLAPACK-compatible p?gemr2d and p?tran*, declared as the C
! functions they are: ScaLAPACK's argument lists with integers and real
! scalars by value, complex scalars by reference, the local arrays as
! ScaLAPACK takes them (any array of the type, by sequence association), the
! 9-integer descriptors, and BLACS contexts as BLACS's Fortran calls give
! them.  Each returns a status instead of stopping the program.  (To make
! unchanged calls of pdgemr2d, pdtran, ... go through relay, link the
! drop-in library instead.)
module relay_scalapack_mod
  use, intrinsic :: iso_c_binding, only: c_double, c_double_complex, c_float, c_float_complex, c_int, c_long_long
  implicit none
  private
  public :: RELAY_SCALAPACK_CACHE_SIZE, relay_scalapack_cache_stats
  public :: relay_psgemr2d, relay_pdgemr2d, relay_pcgemr2d, relay_pzgemr2d
  public :: relay_pstran, relay_pdtran, relay_pctranu, relay_pztranu, relay_pctranc, relay_pztranc
  public :: relay_scalapack_cache_get_stats, relay_scalapack_cache_set_limit, relay_scalapack_cache_clear

  integer(c_int), parameter :: RELAY_SCALAPACK_CACHE_SIZE = 32

  type, bind(C) :: relay_scalapack_cache_stats
    integer(c_long_long) :: hits, misses, entries, contexts
  end type relay_scalapack_cache_stats

  ! B(ib:ib+m-1, jb:jb+n-1) := A(ia:ia+m-1, ja:ja+n-1), collective over ictxt.
  interface
    function relay_psgemr2d(m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt) bind(C, name='relay_psgemr2d') result(st)
      import :: c_float, c_int
      integer(c_int), value :: m, n, ia, ja, ib, jb, ictxt
      real(c_float), intent(in) :: a(*)
      real(c_float), intent(inout) :: b(*)
      integer(c_int), intent(in) :: desca(9), descb(9)
      integer(c_int) :: st
    end function relay_psgemr2d

    function relay_pdgemr2d(m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt) bind(C, name='relay_pdgemr2d') result(st)
      import :: c_double, c_int
      integer(c_int), value :: m, n, ia, ja, ib, jb, ictxt
      real(c_double), intent(in) :: a(*)
      real(c_double), intent(inout) :: b(*)
      integer(c_int), intent(in) :: desca(9), descb(9)
      integer(c_int) :: st
    end function relay_pdgemr2d

    function relay_pcgemr2d(m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt) bind(C, name='relay_pcgemr2d') result(st)
      import :: c_float_complex, c_int
      integer(c_int), value :: m, n, ia, ja, ib, jb, ictxt
      complex(c_float_complex), intent(in) :: a(*)
      complex(c_float_complex), intent(inout) :: b(*)
      integer(c_int), intent(in) :: desca(9), descb(9)
      integer(c_int) :: st
    end function relay_pcgemr2d

    function relay_pzgemr2d(m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt) bind(C, name='relay_pzgemr2d') result(st)
      import :: c_double_complex, c_int
      integer(c_int), value :: m, n, ia, ja, ib, jb, ictxt
      complex(c_double_complex), intent(in) :: a(*)
      complex(c_double_complex), intent(inout) :: b(*)
      integer(c_int), intent(in) :: desca(9), descb(9)
      integer(c_int) :: st
    end function relay_pzgemr2d
  end interface

  ! C(ic:ic+m-1, jc:jc+n-1) := beta*C + alpha*op(A(ia:ia+n-1, ja:ja+m-1)),
  ! op = transpose (tran, tranu) or conjugate transpose (tranc); beta = 0
  ! never reads C.  Collective over the descriptors' context.
  interface
    function relay_pstran(m, n, alpha, a, ia, ja, desca, beta, c, ic, jc, descc) bind(C, name='relay_pstran') result(st)
      import :: c_float, c_int
      integer(c_int), value :: m, n, ia, ja, ic, jc
      real(c_float), value :: alpha, beta
      real(c_float), intent(in) :: a(*)
      real(c_float), intent(inout) :: c(*)
      integer(c_int), intent(in) :: desca(9), descc(9)
      integer(c_int) :: st
    end function relay_pstran

    function relay_pdtran(m, n, alpha, a, ia, ja, desca, beta, c, ic, jc, descc) bind(C, name='relay_pdtran') result(st)
      import :: c_double, c_int
      integer(c_int), value :: m, n, ia, ja, ic, jc
      real(c_double), value :: alpha, beta
      real(c_double), intent(in) :: a(*)
      real(c_double), intent(inout) :: c(*)
      integer(c_int), intent(in) :: desca(9), descc(9)
      integer(c_int) :: st
    end function relay_pdtran

    function relay_pctranu(m, n, alpha, a, ia, ja, desca, beta, c, ic, jc, descc) &
        bind(C, name='relay_pctranu') result(st)
      import :: c_float_complex, c_int
      integer(c_int), value :: m, n, ia, ja, ic, jc
      complex(c_float_complex), intent(in) :: alpha, beta
      complex(c_float_complex), intent(in) :: a(*)
      complex(c_float_complex), intent(inout) :: c(*)
      integer(c_int), intent(in) :: desca(9), descc(9)
      integer(c_int) :: st
    end function relay_pctranu

    function relay_pztranu(m, n, alpha, a, ia, ja, desca, beta, c, ic, jc, descc) &
        bind(C, name='relay_pztranu') result(st)
      import :: c_double_complex, c_int
      integer(c_int), value :: m, n, ia, ja, ic, jc
      complex(c_double_complex), intent(in) :: alpha, beta
      complex(c_double_complex), intent(in) :: a(*)
      complex(c_double_complex), intent(inout) :: c(*)
      integer(c_int), intent(in) :: desca(9), descc(9)
      integer(c_int) :: st
    end function relay_pztranu

    function relay_pctranc(m, n, alpha, a, ia, ja, desca, beta, c, ic, jc, descc) &
        bind(C, name='relay_pctranc') result(st)
      import :: c_float_complex, c_int
      integer(c_int), value :: m, n, ia, ja, ic, jc
      complex(c_float_complex), intent(in) :: alpha, beta
      complex(c_float_complex), intent(in) :: a(*)
      complex(c_float_complex), intent(inout) :: c(*)
      integer(c_int), intent(in) :: desca(9), descc(9)
      integer(c_int) :: st
    end function relay_pctranc

    function relay_pztranc(m, n, alpha, a, ia, ja, desca, beta, c, ic, jc, descc) &
        bind(C, name='relay_pztranc') result(st)
      import :: c_double_complex, c_int
      integer(c_int), value :: m, n, ia, ja, ic, jc
      complex(c_double_complex), intent(in) :: alpha, beta
      complex(c_double_complex), intent(in) :: a(*)
      complex(c_double_complex), intent(inout) :: c(*)
      integer(c_int), intent(in) :: desca(9), descc(9)
      integer(c_int) :: st
    end function relay_pztranc
  end interface

  ! The plan cache behind these calls: what relay holds for a BLACS grid is
  ! freed with the grid (blacs_gridexit); each process keeps at most its
  ! limit of plans (64 unless set, or RELAY_SCALAPACK_CACHE_PLANS).
  ! Clearing is collective over every process that made calls.
  interface
    function relay_scalapack_cache_get_stats(stats) bind(C, name='relay_scalapack_cache_get_stats') result(st)
      import :: c_int, relay_scalapack_cache_stats
      type(relay_scalapack_cache_stats), intent(inout) :: stats
      integer(c_int) :: st
    end function relay_scalapack_cache_get_stats

    function relay_scalapack_cache_set_limit(plans) bind(C, name='relay_scalapack_cache_set_limit') result(st)
      import :: c_int
      integer(c_int), value :: plans
      integer(c_int) :: st
    end function relay_scalapack_cache_set_limit

    function relay_scalapack_cache_clear() bind(C, name='relay_scalapack_cache_clear') result(st)
      import :: c_int
      integer(c_int) :: st
    end function relay_scalapack_cache_clear
  end interface

end module relay_scalapack_mod
