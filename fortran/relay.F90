! relay.F90 — `use relay`: relay's whole public API in Fortran (the
! umbrella, as relay/relay.h is in C).  One module per C header holds each
! part: relay_status_mod, relay_layout_mod, relay_plan_mod, relay_exec_mod,
! relay_bmmc_mod, relay_hsumma_mod, relay_nd_mod and, where relay_scalapack is built,
! relay_scalapack_mod.  Link relay::fortran (CMake) or relay-fortran
! (pkg-config); the .mod files are installed under include/relay/fortran.
!
! The design, one rule for the whole API:
! - Same names, same argument order and the same statuses as C: every
!   function returns integer(c_int), RELAY_OK (0) on success, and on
!   failure changes nothing; relay_last_error() is the message as a
!   Fortran string (character(len=:), allocatable).  Argument kinds are
!   C's: integer(c_int) for int and the enumerations (default integer with
!   gfortran), integer(c_int64_t) for sizes and indices, real(c_double);
!   `use relay` gives these kinds (iso_c_binding's, re-exported).
!   Ranks, pair indices and local buffer indices count from 0, as in C.
! - Handles are derived types holding the C pointer: type(relay_layout),
!   type(relay_plan), type(relay_exec); component ptr is c_null_ptr until
!   made, and relay_*_free resets it.  C structs are bind(C) types of the
!   same name and fields (relay_plan_options, relay_hsumma_params, ...).
! - Arrays whose length C implies (row splits, sigma, a batch's layouts)
!   are assumed-shape; too short an array fails with RELAY_ERR_ARG rather
!   than being read past.  Strings are character(*), trailing blanks
!   ignored.  Optional C pointers (opts, offsets and lds, alpha and beta,
!   latency and bandwidth) are OPTIONAL arguments.
! - Buffers: relay_exec_run / relay_exec_start take a one-pair plan's
!   destination and source arrays themselves (type(*), dimension(..): any
!   type and rank), contiguous and never copied; relay_exec_run_ptrs /
!   relay_exec_start_ptrs take arrays of c_loc addresses for plans with
!   more buffers (batches, HSUMMA).  alpha and beta must be of the plan's
!   kind, checked at every replay.  See relay_exec_mod.
! - ScaLAPACK descriptors: relay_layout_block_cyclic with comm takes each
!   process's own LLD (collective); relay_layout_block_cyclic_lds every
!   rank's.  See relay_layout_mod.
! - Communicators are MPI's Fortran handles: an integer from `use mpi` or
!   mpif.h, comm%MPI_VAL from mpi_f08.  A small C shim (shim.c) converts
!   them with MPI_Comm_f2c, so this module needs no MPI Fortran module and
!   works with any MPI whose C library relay was built with.
! - Fortran ignores case, so the plan kinds RELAY_PLAN_TRANSFORM, _BMMC and
!   _HSUMMA (the planning functions' names) are RELAY_PLAN_KIND_* here, and
!   the enumerations' type names (relay_type, relay_op, ...) are integers.
! - relay_plan_encode returns the bytes in an allocatable
!   integer(c_int8_t) array; relay_plan_decode takes such an array.
module relay
  use relay_status_mod
  use relay_layout_mod
  use relay_plan_mod
  use relay_exec_mod
  use relay_bmmc_mod
  use relay_hsumma_mod
  use relay_nd_mod
  ! The kinds relay's arguments are declared with, and what the _ptrs calls
  ! take: `use relay` alone is enough to call every procedure.
  use, intrinsic :: iso_c_binding, only: c_int, c_int8_t, c_int64_t, c_long_long, c_size_t, c_float, c_double, &
                                         c_float_complex, c_double_complex, c_ptr, c_null_ptr, c_loc, c_associated
#ifdef RELAY_FORTRAN_SCALAPACK
  use relay_scalapack_mod
#endif
  implicit none
  public

  ! relay/relay.h's version macros, from the project's version (CMake).
  integer, parameter :: RELAY_VERSION_MAJOR = RELAY_PROJECT_VERSION_MAJOR, &
                        RELAY_VERSION_MINOR = RELAY_PROJECT_VERSION_MINOR, &
                        RELAY_VERSION_PATCH = RELAY_PROJECT_VERSION_PATCH
end module relay
