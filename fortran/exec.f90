! exec.f90 — relay_exec_mod: relay/exec.h in Fortran.  Binding a plan to a
! communicator and replaying it over the caller's arrays; where a
! transform replay's time goes (relay_exec_time, relay_exec_timings); the
! choice of how to replay it (relay_exec_tune, relay_exec_schedule); the
! HSUMMA executor's network measurement, autotuner and report; where the
! buffers live (relay_exec_create_with: host or CUDA device memory).
!
! Communicators are MPI's Fortran handles (`use mpi`: an integer; mpi_f08:
! comm%MPI_VAL), turned into MPI_Comm by MPI_Comm_f2c in shim.c (in
! buffers.c for relay_exec_create).
!
! Buffers.  relay_exec_run and relay_exec_start take the destination and
! source arrays of a one-pair plan (transform or BMMC) as they are: any
! type and rank (`type(*), dimension(..)`), contiguous, of the plan's
! element type.  Plans with more buffers (batched transforms, HSUMMA's
! sources A and B) use relay_exec_run_ptrs / relay_exec_start_ptrs with
! arrays of c_loc addresses, as C takes them.  alpha and beta (none for
! BMMC plans, which move elements as they are) are optional
! (absent: 1 and 0), one value each of the plan's element type: the kind
! matters, 2.0_c_double for a RELAY_DOUBLE plan (2.0 and 2 are other
! kinds).  They are declared `dimension(..)` too, so that they reach C with
! their descriptors, as the arrays do (buffers.c): it refuses, with
! RELAY_ERR_ARG and a message naming what was given and what the plan
! takes, an array that is smaller than this rank's part of the plan, of
! another type than the plan's or assumed-size, and one that is not
! contiguous: never copied, because between relay_exec_start and
! relay_exec_wait relay writes into the caller's own memory, which a
! compiler's temporary copy would not be (give such arrays the TARGET
! attribute); an alpha or beta of another type or kind than the plan's
! (or an array of them); arrays of addresses shorter than the plan's
! buffer count.  The refusing rank still takes part in the exchange, so
! that the others complete (with NaN from it).  The addresses of the
! _ptrs calls are bare, and nobody can check their buffers' sizes.
module relay_exec_mod
  use, intrinsic :: iso_c_binding, only: c_int, c_int64_t, c_double, c_null_ptr, c_ptr
  use relay_hsumma_mod, only: relay_hsumma_network
  use relay_plan_mod, only: relay_plan
  use relay_status_mod, only: RELAY_OK
  implicit none
  private
  public :: relay_exec, relay_exec_memory, relay_hsumma_report, relay_exec_timing
  public :: RELAY_TIMING_SEND, RELAY_TIMING_RECV, RELAY_TIMING_LOCAL, RELAY_TIMING_COMPLETION
  public :: relay_exec_create, relay_exec_run, relay_exec_start, relay_exec_run_ptrs, relay_exec_start_ptrs, &
            relay_exec_wait, relay_exec_get_memory, relay_exec_hsumma_report, relay_exec_free
  public :: relay_exec_time, relay_exec_timings, relay_exec_tune, relay_exec_schedule
  public :: relay_exec_set_deadline
  public :: relay_hsumma_measure_network, relay_hsumma_autotune
  public :: relay_exec_options, relay_exec_create_with, relay_exec_options_get, relay_memory_supported
  public :: RELAY_MEMORY_HOST, RELAY_MEMORY_CUDA, RELAY_TRANSPORT_AUTO, RELAY_TRANSPORT_STAGED, RELAY_TRANSPORT_DIRECT

  ! What a replay takes on this rank, recorded at relay_exec_create:
  ! buffers.c's relay_fortran_buffers, field for field.
  type, bind(C) :: exec_buffers
    integer(c_int) :: dst_buffers = 0, src_buffers = 0   ! pointers per replay
    integer(c_int) :: opaque = 0                         ! a BMMC plan: checked in bytes
    integer(c_int) :: type = 0                           ! a transform's or HSUMMA's element type
    integer(c_int64_t) :: dst_elems = 0, src_elems = 0   ! a one-pair plan's buffers
    integer(c_int64_t) :: elem_bytes = 0
  end type exec_buffers

  ! An executor handle: the C relay_exec, and what each replay takes (so
  ! that short arrays are refused rather than read past).
  type :: relay_exec
    type(c_ptr) :: ptr = c_null_ptr
    type(exec_buffers), private :: buffers
  end type relay_exec

  type, bind(C) :: relay_exec_memory
    integer(c_int64_t) :: extra_bytes, remote_bytes
  end type relay_exec_memory

  ! Where the buffers live (relay/exec.h's relay_exec_options): the
  ! defaults are host memory, the default stream, the transport settled at
  ! binding.
  enum, bind(c)
    enumerator :: RELAY_MEMORY_HOST = 0, RELAY_MEMORY_CUDA = 1
  end enum
  enum, bind(c)
    enumerator :: RELAY_TRANSPORT_AUTO = 0, RELAY_TRANSPORT_STAGED, RELAY_TRANSPORT_DIRECT
  end enum
  type, bind(C) :: relay_exec_options
    integer(c_int) :: memory = RELAY_MEMORY_HOST
    type(c_ptr) :: stream = c_null_ptr
    integer(c_int) :: transport = RELAY_TRANSPORT_AUTO
  end type relay_exec_options

  enum, bind(c)
    enumerator :: RELAY_TIMING_SEND = 0, RELAY_TIMING_RECV, RELAY_TIMING_LOCAL, RELAY_TIMING_COMPLETION
  end enum

  ! One row of relay_exec_timings (relay/exec.h).
  type, bind(C) :: relay_exec_timing
    integer(c_int) :: kind, peer
    integer(c_int64_t) :: bytes
    real(c_double) :: pack_s, wait_s, unpack_s
  end type relay_exec_timing

  type, bind(C) :: relay_hsumma_report
    integer(c_int) :: group_rows, group_cols
    type(relay_hsumma_network) :: measured
    real(c_double) :: comm_seconds, compute_seconds
  end type relay_hsumma_report

  interface
    function c_exec_create(out, plan, comm, options, buffers) bind(C, name='relay_fortran_exec_create') result(st)
      import :: c_int, c_ptr, exec_buffers, relay_exec_options
      type(c_ptr), intent(inout) :: out
      type(c_ptr), value :: plan
      integer(c_int), value :: comm
      type(relay_exec_options), intent(in), optional :: options
      type(exec_buffers), intent(inout) :: buffers
      integer(c_int) :: st
    end function c_exec_create

    function c_exec_options_get(e, options) bind(C, name='relay_exec_options_get') result(st)
      import :: c_int, c_ptr, relay_exec_options
      type(c_ptr), value :: e
      type(relay_exec_options), intent(inout) :: options
      integer(c_int) :: st
    end function c_exec_options_get

    function c_memory_supported(memory, yes) bind(C, name='relay_memory_supported') result(st)
      import :: c_int
      integer(c_int), value :: memory
      integer(c_int), intent(out) :: yes
      integer(c_int) :: st
    end function c_memory_supported

    function c_exec_start_arrays(e, buffers, dst, src, alpha, beta) bind(C, name='relay_fortran_exec_start') &
        result(st)
      import :: c_int, c_ptr, exec_buffers
      type(c_ptr), value :: e
      type(exec_buffers), intent(in) :: buffers
      type(*), dimension(..), intent(inout), target :: dst
      type(*), dimension(..), intent(in), target :: src
      type(*), dimension(..), intent(in), optional :: alpha, beta
      integer(c_int) :: st
    end function c_exec_start_arrays

    function c_exec_start_ptrs(e, buffers, ndst, dst, nsrc, src, alpha, beta) &
        bind(C, name='relay_fortran_exec_start_ptrs') result(st)
      import :: c_int, c_ptr, exec_buffers
      type(c_ptr), value :: e
      type(exec_buffers), intent(in) :: buffers
      integer(c_int), value :: ndst, nsrc
      type(c_ptr), intent(in) :: dst(*), src(*)
      type(*), dimension(..), intent(in), optional :: alpha, beta
      integer(c_int) :: st
    end function c_exec_start_ptrs

    function c_exec_wait(e) bind(C, name='relay_exec_wait') result(st)
      import :: c_int, c_ptr
      type(c_ptr), value :: e
      integer(c_int) :: st
    end function c_exec_wait

    function c_exec_get_memory(e, m) bind(C, name='relay_exec_get_memory') result(st)
      import :: c_int, c_ptr, relay_exec_memory
      type(c_ptr), value :: e
      type(relay_exec_memory), intent(inout) :: m
      integer(c_int) :: st
    end function c_exec_get_memory

    function c_exec_time(e, on) bind(C, name='relay_exec_time') result(st)
      import :: c_int, c_ptr
      type(c_ptr), value :: e
      integer(c_int), value :: on
      integer(c_int) :: st
    end function c_exec_time

    function c_exec_set_deadline(e, seconds) bind(C, name='relay_exec_set_deadline') result(st)
      import :: c_double, c_int, c_ptr
      type(c_ptr), value :: e
      real(c_double), value :: seconds
      integer(c_int) :: st
    end function c_exec_set_deadline

    function c_exec_timings(e, replays, rows, count) bind(C, name='relay_exec_timings') result(st)
      import :: c_int, c_int64_t, c_ptr, relay_exec_timing
      type(c_ptr), value :: e
      integer(c_int64_t), intent(out) :: replays
      type(relay_exec_timing), intent(inout) :: rows(*)
      integer(c_int), intent(inout) :: count
      integer(c_int) :: st
    end function c_exec_timings

    function c_exec_hsumma_report(e, r) bind(C, name='relay_exec_hsumma_report') result(st)
      import :: c_int, c_ptr, relay_hsumma_report
      type(c_ptr), value :: e
      type(relay_hsumma_report), intent(inout) :: r
      integer(c_int) :: st
    end function c_exec_hsumma_report

    subroutine c_exec_free(e) bind(C, name='relay_exec_free')
      import :: c_ptr
      type(c_ptr), value :: e
    end subroutine c_exec_free

    function c_measure_network(comm, net) bind(C, name='relay_fortran_hsumma_measure_network') result(st)
      import :: c_int, relay_hsumma_network
      integer(c_int), value :: comm
      type(relay_hsumma_network), intent(inout) :: net
      integer(c_int) :: st
    end function c_measure_network

    function c_exec_tune(plan, comm, replays) bind(C, name='relay_fortran_exec_tune') result(st)
      import :: c_int, c_ptr
      type(c_ptr), value :: plan
      integer(c_int), value :: comm, replays
      integer(c_int) :: st
    end function c_exec_tune

    function c_exec_schedule(e, schedule, packed) bind(C, name='relay_exec_schedule') result(st)
      import :: c_int, c_ptr
      type(c_ptr), value :: e
      integer(c_int), intent(out) :: schedule, packed
      integer(c_int) :: st
    end function c_exec_schedule

    function c_autotune(out, plan, comm, outer_steps) bind(C, name='relay_fortran_hsumma_autotune') result(st)
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: out
      type(c_ptr), value :: plan
      integer(c_int), value :: comm, outer_steps
      integer(c_int) :: st
    end function c_autotune
  end interface

contains

  ! Binds plan to comm (collective): RELAY_ERR_MISMATCH on every rank when
  ! the sizes or the plans differ.  The plan may be freed afterwards.
  function relay_exec_create(exec, plan, comm) result(st)
    type(relay_exec), intent(inout) :: exec
    type(relay_plan), intent(in) :: plan
    integer, intent(in) :: comm
    integer(c_int) :: st
    st = c_exec_create(exec%ptr, plan%ptr, comm, buffers=exec%buffers)
  end function relay_exec_create

  ! relay_exec_create binding buffers of options%memory: RELAY_MEMORY_CUDA
  ! (device memory, replays ordered on options%stream, a cudaStream_t as a
  ! c_ptr; c_null_ptr: the default stream) where relay was built with its
  ! CUDA backend.  Device buffers travel as addresses: replay them with
  ! relay_exec_run_ptrs / relay_exec_start_ptrs (c_loc of a CUDA Fortran
  ! device array, or an address from cudaMalloc), since their descriptors
  ! cannot be checked from the host.
  function relay_exec_create_with(exec, plan, comm, options) result(st)
    type(relay_exec), intent(inout) :: exec
    type(relay_plan), intent(in) :: plan
    integer, intent(in) :: comm
    type(relay_exec_options), intent(in) :: options
    integer(c_int) :: st
    st = c_exec_create(exec%ptr, plan%ptr, comm, options, exec%buffers)
  end function relay_exec_create_with

  ! The options as bound: the memory kind, the stream and the transport
  ! settled (RELAY_TRANSPORT_STAGED or _DIRECT on device memory).
  function relay_exec_options_get(exec, options) result(st)
    type(relay_exec), intent(in) :: exec
    type(relay_exec_options), intent(out) :: options
    integer(c_int) :: st
    st = c_exec_options_get(exec%ptr, options)
  end function relay_exec_options_get

  ! Whether buffers of kind memory can be bound here (yes = .true.).
  function relay_memory_supported(memory, yes) result(st)
    integer(c_int), intent(in) :: memory
    logical, intent(out) :: yes
    integer(c_int) :: st, y
    st = c_memory_supported(memory, y)
    yes = y /= 0
  end function relay_memory_supported

  ! One replay of a one-pair plan: dst := alpha*op(src) + beta*dst.
  function relay_exec_run(exec, dst, src, alpha, beta) result(st)
    type(relay_exec), intent(in) :: exec
    type(*), dimension(..), intent(inout), target :: dst
    type(*), dimension(..), intent(in), target :: src
    type(*), dimension(..), intent(in), optional :: alpha, beta
    integer(c_int) :: st
    st = relay_exec_start(exec, dst, src, alpha, beta)
    if (st == RELAY_OK) st = relay_exec_wait(exec)
  end function relay_exec_run

  ! Starts a replay of a one-pair plan; dst and src belong to relay until
  ! relay_exec_wait.  Arrays that cannot be this rank's buffers are refused
  ! (see the header).
  function relay_exec_start(exec, dst, src, alpha, beta) result(st)
    type(relay_exec), intent(in) :: exec
    type(*), dimension(..), intent(inout), target :: dst
    type(*), dimension(..), intent(in), target :: src
    type(*), dimension(..), intent(in), optional :: alpha, beta
    integer(c_int) :: st
    st = c_exec_start_arrays(exec%ptr, exec%buffers, dst, src, alpha, beta)
  end function relay_exec_start

  ! One replay with C's arrays of buffer addresses (c_loc of each array):
  ! a pair's destination and source per transform pair; C, and A and B for
  ! HSUMMA.
  function relay_exec_run_ptrs(exec, dst, src, alpha, beta) result(st)
    type(relay_exec), intent(in) :: exec
    type(c_ptr), intent(in) :: dst(:), src(:)
    type(*), dimension(..), intent(in), optional :: alpha, beta
    integer(c_int) :: st
    st = relay_exec_start_ptrs(exec, dst, src, alpha, beta)
    if (st == RELAY_OK) st = relay_exec_wait(exec)
  end function relay_exec_run_ptrs

  ! Starts a replay with C's arrays of buffer addresses.
  function relay_exec_start_ptrs(exec, dst, src, alpha, beta) result(st)
    type(relay_exec), intent(in) :: exec
    type(c_ptr), intent(in) :: dst(:), src(:)
    type(*), dimension(..), intent(in), optional :: alpha, beta
    integer(c_int) :: st
    st = c_exec_start_ptrs(exec%ptr, exec%buffers, int(size(dst), c_int), dst, int(size(src), c_int), src, alpha, beta)
  end function relay_exec_start_ptrs

  ! Completes the replay relay_exec_start began.
  function relay_exec_wait(exec) result(st)
    type(relay_exec), intent(in) :: exec
    integer(c_int) :: st
    st = c_exec_wait(exec%ptr)
  end function relay_exec_wait

  ! Memory this rank's executor holds beyond the caller's buffers, and the
  ! bytes it sends plus receives per replay.
  function relay_exec_get_memory(exec, m) result(st)
    type(relay_exec), intent(in) :: exec
    type(relay_exec_memory), intent(inout) :: m
    integer(c_int) :: st
    st = c_exec_get_memory(exec%ptr, m)
  end function relay_exec_get_memory

  ! Starts (on, the sums restarted) or stops timing a transform executor's
  ! replays.
  function relay_exec_time(exec, on) result(st)
    type(relay_exec), intent(in) :: exec
    logical, intent(in) :: on
    integer(c_int) :: st
    st = c_exec_time(exec%ptr, merge(1_c_int, 0_c_int, on))
  end function relay_exec_time

  ! Seconds each replay from the next may take (0: none): past them the
  ! wait returns RELAY_ERR_TIMEOUT, relay_last_error() naming the peers
  ! not heard from, and the executor can only be freed (transform plans).
  function relay_exec_set_deadline(exec, seconds) result(st)
    type(relay_exec), intent(in) :: exec
    real(c_double), intent(in) :: seconds
    integer(c_int) :: st
    st = c_exec_set_deadline(exec%ptr, seconds)
  end function relay_exec_set_deadline

  ! The timings' rows into rows(1:count) (count: how many there are, which
  ! may exceed size(rows): then the first size(rows) are filled).
  function relay_exec_timings(exec, replays, rows, count) result(st)
    type(relay_exec), intent(in) :: exec
    integer(c_int64_t), intent(out) :: replays
    type(relay_exec_timing), intent(inout) :: rows(:)
    integer(c_int), intent(out) :: count
    integer(c_int) :: st
    type(relay_exec_timing) :: none(1)
    count = int(size(rows), c_int)
    if (count > 0) then
      st = c_exec_timings(exec%ptr, replays, rows, count)
    else
      st = c_exec_timings(exec%ptr, replays, none, count)
    end if
  end function relay_exec_timings

  ! What an HSUMMA executor did in its last replay.
  function relay_exec_hsumma_report(exec, r) result(st)
    type(relay_exec), intent(in) :: exec
    type(relay_hsumma_report), intent(inout) :: r
    integer(c_int) :: st
    st = c_exec_hsumma_report(exec%ptr, r)
  end function relay_exec_hsumma_report

  ! Frees the executor and its communicator: on every rank, after its last
  ! replay (MPI_Comm_free is collective).  Resets the handle.
  subroutine relay_exec_free(exec)
    type(relay_exec), intent(inout) :: exec
    call c_exec_free(exec%ptr)
    exec = relay_exec()
  end subroutine relay_exec_free

  ! Latency and reciprocal bandwidth by ping-pong between ranks 0 and 1 of
  ! comm (collective).
  function relay_hsumma_measure_network(comm, net) result(st)
    integer, intent(in) :: comm
    type(relay_hsumma_network), intent(inout) :: net
    integer(c_int) :: st
    st = c_measure_network(comm, net)
  end function relay_hsumma_measure_network

  ! A copy of an HSUMMA plan whose groups are the fastest measured on comm
  ! over outer_steps outer steps (collective).
  function relay_hsumma_autotune(plan_out, plan, comm, outer_steps) result(st)
    type(relay_plan), intent(inout) :: plan_out
    type(relay_plan), intent(in) :: plan
    integer, intent(in) :: comm
    integer(c_int), intent(in) :: outer_steps
    integer(c_int) :: st
    st = c_autotune(plan_out%ptr, plan%ptr, comm, outer_steps)
  end function relay_hsumma_autotune

  ! Times every way to replay a transform plan on comm and records them,
  ! with the fastest, in the plan (collective; relay/exec.h).
  function relay_exec_tune(plan, comm, replays) result(st)
    type(relay_plan), intent(inout) :: plan
    integer, intent(in) :: comm
    integer(c_int), intent(in) :: replays
    integer(c_int) :: st
    st = c_exec_tune(plan%ptr, comm, replays)
  end function relay_exec_tune

  ! The schedule the executor replays (a RELAY_SCHED_ value) and, under
  ! p2p, whether this rank's messages are all packed.
  function relay_exec_schedule(exec, schedule, packed) result(st)
    type(relay_exec), intent(in) :: exec
    integer(c_int), intent(out) :: schedule
    logical, intent(out) :: packed
    integer(c_int) :: st, p
    st = c_exec_schedule(exec%ptr, schedule, p)
    packed = p /= 0
  end function relay_exec_schedule

end module relay_exec_mod
