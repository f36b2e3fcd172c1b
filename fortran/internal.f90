! internal.f90 — relay_fortran_internal: what the module's wrappers share
! and users do not see (the umbrella module `relay` does not re-export it).
!
! Where a Fortran wrapper knows more than the C function it calls (the
! length of an array C would read without a bound), it checks and fails the
! way relay does: a status, and a message that relay_last_error() returns.
! (The replay's buffers are checked in C, from their descriptors: buffers.c.)  relay_internal_fail is variadic,
! which Fortran cannot call, so shim.c records the message.
module relay_fortran_internal
  use, intrinsic :: iso_c_binding, only: c_char, c_int, c_null_char
  use relay_status_mod, only: RELAY_OK, RELAY_ERR_ARG
  implicit none
  private
  public :: fortran_fail, check_length

  interface
    function c_fortran_fail(status, message) bind(C, name='relay_fortran_fail') result(st)
      import :: c_char, c_int
      integer(c_int), value :: status
      character(kind=c_char), intent(in) :: message(*)
      integer(c_int) :: st
    end function c_fortran_fail
  end interface

contains

  ! Records message as relay's last error and returns status.
  function fortran_fail(status, message) result(st)
    integer(c_int), intent(in) :: status
    character(len=*), intent(in) :: message
    integer(c_int) :: st
    st = c_fortran_fail(status, message // c_null_char)
  end function fortran_fail

  ! RELAY_OK when an array of `have` entries holds the `need` that C reads;
  ! RELAY_ERR_ARG naming the function and the array otherwise.
  function check_length(who, what, have, need) result(st)
    character(len=*), intent(in) :: who, what
    integer, intent(in) :: have, need
    integer(c_int) :: st
    character(len=24) :: have_s, need_s
    st = RELAY_OK
    if (have >= need) return
    write (have_s, '(i0)') have
    write (need_s, '(i0)') need
    st = fortran_fail(RELAY_ERR_ARG, who // ': ' // what // ' has ' // trim(have_s) // ' entries, ' // &
                      trim(need_s) // ' needed')
  end function check_length

end module relay_fortran_internal
