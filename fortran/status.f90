! status.f90 — relay_status_mod: relay/status.h in Fortran.  The one error
! convention (every relay function returns an integer(c_int) status,
! RELAY_OK = 0; relay_last_error() says in words what was wrong) and the
! element vocabulary (types, op, element and grid order).
module relay_status_mod
  use, intrinsic :: iso_c_binding, only: c_char, c_f_pointer, c_int, c_associated, c_ptr, c_size_t
  implicit none
  private
  public :: RELAY_OK, RELAY_ERR_ARG, RELAY_ERR_NOMEM, RELAY_ERR_IO, RELAY_ERR_FORMAT, RELAY_ERR_VERSION, &
            RELAY_ERR_MISMATCH, RELAY_ERR_MPI, RELAY_ERR_UNSUPPORTED, RELAY_ERR_TIMEOUT, RELAY_ERR_PEER
  public :: RELAY_FLOAT, RELAY_DOUBLE, RELAY_CFLOAT, RELAY_CDOUBLE
  public :: RELAY_OP_N, RELAY_OP_T, RELAY_OP_C
  public :: RELAY_COL_MAJOR, RELAY_ROW_MAJOR
  public :: relay_status_str, relay_last_error, relay_type_size

  enum, bind(c)   ! relay_status
    enumerator :: RELAY_OK = 0, RELAY_ERR_ARG, RELAY_ERR_NOMEM, RELAY_ERR_IO, RELAY_ERR_FORMAT, &
                  RELAY_ERR_VERSION, RELAY_ERR_MISMATCH, RELAY_ERR_MPI, RELAY_ERR_UNSUPPORTED, &
                  RELAY_ERR_TIMEOUT, RELAY_ERR_PEER
  end enum
  enum, bind(c)   ! relay_type: real(c_float), real(c_double), complex(c_float_complex), complex(c_double_complex)
    enumerator :: RELAY_FLOAT = 0, RELAY_DOUBLE, RELAY_CFLOAT, RELAY_CDOUBLE
  end enum
  enum, bind(c)   ! relay_op: op(B) = B, B^T, B^H
    enumerator :: RELAY_OP_N = 0, RELAY_OP_T, RELAY_OP_C
  end enum
  enum, bind(c)   ! relay_order: element order in a block, process numbering of a grid
    enumerator :: RELAY_COL_MAJOR = 0, RELAY_ROW_MAJOR
  end enum

  interface
    ! Bytes of one element of type t (0 for an invalid type).
    pure function relay_type_size(t) bind(C, name='relay_type_size') result(bytes)
      import :: c_int, c_size_t
      integer(c_int), value :: t
      integer(c_size_t) :: bytes
    end function relay_type_size

    function c_status_str(s) bind(C, name='relay_status_str') result(name)
      import :: c_int, c_ptr
      integer(c_int), value :: s
      type(c_ptr) :: name
    end function c_status_str

    function c_last_error() bind(C, name='relay_last_error') result(message)
      import :: c_ptr
      type(c_ptr) :: message
    end function c_last_error

    function c_strlen(s) bind(C, name='strlen') result(length)
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
      integer(c_size_t) :: length
    end function c_strlen
  end interface

contains

  ! The constant's name of a status, e.g. 'RELAY_ERR_ARG'.
  function relay_status_str(s) result(name)
    integer(c_int), intent(in) :: s
    character(len=:), allocatable :: name
    name = fortran_string(c_status_str(s))
  end function relay_status_str

  ! The message of the last failing relay call on this thread ('' if none).
  function relay_last_error() result(message)
    character(len=:), allocatable :: message
    message = fortran_string(c_last_error())
  end function relay_last_error

  ! A copy of a NUL-terminated C string.
  function fortran_string(c_string) result(s)
    type(c_ptr), intent(in) :: c_string
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: i
    if (.not. c_associated(c_string)) then
      s = ''
      return
    end if
    call c_f_pointer(c_string, chars, [c_strlen(c_string)])
    allocate (character(len=size(chars)) :: s)
    do i = 1, size(chars)
      s(i:i) = chars(i)
    end do
  end function fortran_string

end module relay_status_mod
