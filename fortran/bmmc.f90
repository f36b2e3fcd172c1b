! bmmc.f90 — relay_bmmc_mod: relay/bmmc.h in Fortran.  BMMC permutations
! y = A x XOR c of 2^n elements on 2^p ranks: the standard permutations,
! their algebra, and BMMC plans (replayed by relay_exec like any plan).
!
! type(relay_bmmc) is C's relay_bmmc: columns(j) is A's column j (bit i =
! row i), for j = 0 .. n-1.  C's uint64_t values are integer(c_int64_t)
! here, the same 64 bits (use ibset, ibits, ieor on them).
module relay_bmmc_mod
  use, intrinsic :: iso_c_binding, only: c_int, c_int64_t, c_ptr, c_size_t
  use relay_plan_mod, only: relay_plan
  implicit none
  private
  public :: RELAY_BMMC_MAX_BITS
  public :: relay_bmmc, relay_bmmc_info
  public :: relay_bmmc_identity, relay_bmmc_transpose, relay_bmmc_bit_reversal, relay_bmmc_vector_reversal, &
            relay_bmmc_gray_code, relay_bmmc_shuffle, relay_bmmc_unshuffle, relay_bmmc_compose, &
            relay_bmmc_inverse, relay_bmmc_apply, relay_plan_bmmc, relay_plan_bmmc_info

  integer(c_int), parameter :: RELAY_BMMC_MAX_BITS = 62

  type, bind(C) :: relay_bmmc
    integer(c_int) :: n                    ! index bits, 1 .. RELAY_BMMC_MAX_BITS
    integer(c_int64_t) :: columns(0:63)    ! A's columns; entries n.. are ignored
    integer(c_int64_t) :: complement       ! c
  end type relay_bmmc

  ! The factors and facts of a BMMC plan: y = V (W x) ^ c_v.
  type, bind(C) :: relay_bmmc_info
    integer(c_int) :: n, p, f
    integer(c_size_t) :: elem_size
    integer(c_int) :: rank                 ! of the lower-left block: 2^rank partners per rank
    type(relay_bmmc) :: perm, v, w
  end type relay_bmmc_info

  ! The permutations and their algebra take no handle: C's own functions.
  interface
    function relay_bmmc_identity(out, n) bind(C, name='relay_bmmc_identity') result(st)
      import :: c_int, relay_bmmc
      type(relay_bmmc), intent(inout) :: out
      integer(c_int), value :: n
      integer(c_int) :: st
    end function relay_bmmc_identity

    ! A 2^rows_log x 2^cols_log column-major matrix to its column-major transpose.
    function relay_bmmc_transpose(out, rows_log, cols_log) bind(C, name='relay_bmmc_transpose') result(st)
      import :: c_int, relay_bmmc
      type(relay_bmmc), intent(inout) :: out
      integer(c_int), value :: rows_log, cols_log
      integer(c_int) :: st
    end function relay_bmmc_transpose

    function relay_bmmc_bit_reversal(out, n) bind(C, name='relay_bmmc_bit_reversal') result(st)
      import :: c_int, relay_bmmc
      type(relay_bmmc), intent(inout) :: out
      integer(c_int), value :: n
      integer(c_int) :: st
    end function relay_bmmc_bit_reversal

    function relay_bmmc_vector_reversal(out, n) bind(C, name='relay_bmmc_vector_reversal') result(st)
      import :: c_int, relay_bmmc
      type(relay_bmmc), intent(inout) :: out
      integer(c_int), value :: n
      integer(c_int) :: st
    end function relay_bmmc_vector_reversal

    function relay_bmmc_gray_code(out, n) bind(C, name='relay_bmmc_gray_code') result(st)
      import :: c_int, relay_bmmc
      type(relay_bmmc), intent(inout) :: out
      integer(c_int), value :: n
      integer(c_int) :: st
    end function relay_bmmc_gray_code

    function relay_bmmc_shuffle(out, n) bind(C, name='relay_bmmc_shuffle') result(st)
      import :: c_int, relay_bmmc
      type(relay_bmmc), intent(inout) :: out
      integer(c_int), value :: n
      integer(c_int) :: st
    end function relay_bmmc_shuffle

    function relay_bmmc_unshuffle(out, n) bind(C, name='relay_bmmc_unshuffle') result(st)
      import :: c_int, relay_bmmc
      type(relay_bmmc), intent(inout) :: out
      integer(c_int), value :: n
      integer(c_int) :: st
    end function relay_bmmc_unshuffle

    ! first, then second.
    function relay_bmmc_compose(out, first, second) bind(C, name='relay_bmmc_compose') result(st)
      import :: c_int, relay_bmmc
      type(relay_bmmc), intent(inout) :: out
      type(relay_bmmc), intent(in) :: first, second
      integer(c_int) :: st
    end function relay_bmmc_compose

    function relay_bmmc_inverse(out, perm) bind(C, name='relay_bmmc_inverse') result(st)
      import :: c_int, relay_bmmc
      type(relay_bmmc), intent(inout) :: out
      type(relay_bmmc), intent(in) :: perm
      integer(c_int) :: st
    end function relay_bmmc_inverse

    ! y for one index x (0-based).
    pure function relay_bmmc_apply(perm, x) bind(C, name='relay_bmmc_apply') result(y)
      import :: c_int64_t, relay_bmmc
      type(relay_bmmc), intent(in) :: perm
      integer(c_int64_t), value :: x
      integer(c_int64_t) :: y
    end function relay_bmmc_apply
  end interface

  interface
    function c_plan_bmmc(out, perm, p, f, elem_size) bind(C, name='relay_plan_bmmc') result(st)
      import :: c_int, c_ptr, c_size_t, relay_bmmc
      type(c_ptr), intent(inout) :: out
      type(relay_bmmc), intent(in) :: perm
      integer(c_int), value :: p, f
      integer(c_size_t), value :: elem_size
      integer(c_int) :: st
    end function c_plan_bmmc

    function c_plan_bmmc_info(plan, info) bind(C, name='relay_plan_bmmc_info') result(st)
      import :: c_int, c_ptr, relay_bmmc_info
      type(c_ptr), value :: plan
      type(relay_bmmc_info), intent(inout) :: info
      integer(c_int) :: st
    end function c_plan_bmmc_info
  end interface

contains

  ! Plans perm on 2^p ranks whose rank bits start at bit f, for elements of
  ! elem_size bytes (relay_type_size, or storage_size(x)/8).
  function relay_plan_bmmc(plan, perm, p, f, elem_size) result(st)
    type(relay_plan), intent(inout) :: plan
    type(relay_bmmc), intent(in) :: perm
    integer(c_int), intent(in) :: p, f
    integer(c_size_t), intent(in) :: elem_size
    integer(c_int) :: st
    st = c_plan_bmmc(plan%ptr, perm, p, f, elem_size)
  end function relay_plan_bmmc

  function relay_plan_bmmc_info(plan, info) result(st)
    type(relay_plan), intent(in) :: plan
    type(relay_bmmc_info), intent(inout) :: info
    integer(c_int) :: st
    st = c_plan_bmmc_info(plan%ptr, info)
  end function relay_plan_bmmc_info

end module relay_bmmc_mod
