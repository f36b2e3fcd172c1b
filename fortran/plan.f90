! plan.f90 — relay_plan_mod: relay/plan.h in Fortran.  Planning
! A := alpha*op(B) + beta*A once (one pair, a batch, or one rank's section
! alone), plan files and buffers, and what a plan can be asked; plans are
! held by type(relay_plan).
!
! Fortran does not tell case apart, so relay_plan_kind's RELAY_PLAN_TRANSFORM,
! _BMMC and _HSUMMA, which would be the planning functions' names, are
! RELAY_PLAN_KIND_TRANSFORM, _BMMC and _HSUMMA here.
module relay_plan_mod
  use, intrinsic :: iso_c_binding, only: c_char, c_double, c_f_pointer, c_int, c_int8_t, c_int64_t, &
                                         c_null_char, c_null_ptr, c_ptr, c_size_t
  use relay_fortran_internal, only: check_length
  use relay_layout_mod, only: relay_layout
  use relay_status_mod, only: RELAY_OK
  implicit none
  private
  public :: RELAY_RELABEL_NONE, RELAY_RELABEL_GREEDY, RELAY_RELABEL_OPTIMAL
  public :: RELAY_SCHED_AUTO, RELAY_SCHED_P2P, RELAY_SCHED_ROUNDS, RELAY_SCHED_ALLTOALLV, RELAY_SCHED_NEIGHBOR
  public :: RELAY_REPLICAS_AUTO, RELAY_REPLICAS_DIRECT, RELAY_REPLICAS_FORWARD
  public :: RELAY_PLAN_KIND_TRANSFORM, RELAY_PLAN_KIND_BMMC, RELAY_PLAN_KIND_HSUMMA, RELAY_PLAN_KIND_ND
  public :: relay_plan, relay_plan_options, relay_plan_stats
  public :: relay_plan_options_init, relay_plan_transform, relay_plan_transform_batch, relay_plan_transform_rank
  public :: relay_plan_compose, relay_plan_invert, relay_plan_concat
  public :: relay_plan_save, relay_plan_load, relay_plan_file_nranks, relay_plan_encode, relay_plan_decode
  public :: relay_plan_nranks, relay_plan_get_kind, relay_plan_type, relay_plan_count, relay_plan_fingerprint, &
            relay_plan_schedule, relay_plan_rounds, relay_plan_max_buffer_bytes, relay_plan_relabeling, &
            relay_plan_dst_layout, &
            relay_plan_src_layout, relay_plan_buffer_elems, relay_plan_get_stats, relay_plan_free
  public :: relay_tuning_choice, relay_tuning, RELAY_TUNING_MAX_CHOICES, RELAY_TUNING_MACHINE_MAX
  public :: relay_plan_tuning, relay_plan_set_tuning

  enum, bind(c)
    enumerator :: RELAY_RELABEL_NONE = 0, RELAY_RELABEL_GREEDY, RELAY_RELABEL_OPTIMAL
  end enum
  enum, bind(c)
    enumerator :: RELAY_SCHED_AUTO = 0, RELAY_SCHED_P2P, RELAY_SCHED_ROUNDS, RELAY_SCHED_ALLTOALLV, RELAY_SCHED_NEIGHBOR
  end enum
  enum, bind(c)
    enumerator :: RELAY_REPLICAS_AUTO = 0, RELAY_REPLICAS_DIRECT, RELAY_REPLICAS_FORWARD
  end enum
  enum, bind(c)
    enumerator :: RELAY_PLAN_KIND_TRANSFORM = 0, RELAY_PLAN_KIND_BMMC, RELAY_PLAN_KIND_HSUMMA, RELAY_PLAN_KIND_ND
  end enum

  ! A plan handle: the C relay_plan, c_null_ptr until planned or loaded.
  type :: relay_plan
    type(c_ptr) :: ptr = c_null_ptr
  end type relay_plan

  ! relay_plan_options; fill with relay_plan_options_init.  node_of_rank is
  ! c_loc of an integer(c_int) array of nranks entries (with TARGET), or
  ! c_null_ptr.
  type, bind(C) :: relay_plan_options
    integer(c_int) :: relabel
    integer(c_int) :: schedule
    type(c_ptr) :: node_of_rank
    real(c_double) :: inter_node_weight
    integer(c_int64_t) :: max_buffer_bytes
    integer(c_int) :: replicas
  end type relay_plan_options

  type, bind(C) :: relay_plan_stats
    integer(c_int64_t) :: bytes_total, bytes_remote, bytes_remote_identity, messages, pieces
  end type relay_plan_stats

  ! A plan's tuning (relay/plan.h): what relay_exec_tune measured, or what
  ! relay_predict_tuning predicted on the machine model `machine` (NUL-ended;
  ! all NULs for a timed tuning).
  integer, parameter :: RELAY_TUNING_MAX_CHOICES = 8, RELAY_TUNING_MACHINE_MAX = 32
  type, bind(C) :: relay_tuning_choice
    integer(c_int) :: schedule = 0, packed = 0
    real(c_double) :: seconds = 0
    integer(c_int) :: forward = 0
    integer(c_int) :: window = 0  ! p2p: on-node messages through a shared-memory window
  end type relay_tuning_choice
  type, bind(C) :: relay_tuning
    integer(c_int) :: ntimed = 0, best = 0, ranks_per_node_min = 0, ranks_per_node_max = 0, replays = 0
    type(relay_tuning_choice) :: choices(RELAY_TUNING_MAX_CHOICES)
    character(kind=c_char) :: machine(RELAY_TUNING_MACHINE_MAX) = achar(0)
  end type relay_tuning

  interface
    subroutine relay_plan_options_init(o) bind(C, name='relay_plan_options_init')
      import :: relay_plan_options
      type(relay_plan_options), intent(out) :: o
    end subroutine relay_plan_options_init

    function c_transform(out, nranks, dst, src, op, elem_type, opts) bind(C, name='relay_plan_transform') result(st)
      import :: c_int, c_ptr, relay_plan_options
      type(c_ptr), intent(inout) :: out
      integer(c_int), value :: nranks
      type(c_ptr), value :: dst, src
      integer(c_int), value :: op, elem_type
      type(relay_plan_options), intent(in), optional :: opts
      integer(c_int) :: st
    end function c_transform

    function c_transform_batch(out, nranks, count, dst, src, ops, elem_type, opts) &
        bind(C, name='relay_plan_transform_batch') result(st)
      import :: c_int, c_ptr, relay_plan_options
      type(c_ptr), intent(inout) :: out
      integer(c_int), value :: nranks, count
      type(c_ptr), intent(in) :: dst(*), src(*)
      integer(c_int), intent(in) :: ops(*)
      integer(c_int), value :: elem_type
      type(relay_plan_options), intent(in), optional :: opts
      integer(c_int) :: st
    end function c_transform_batch

    function c_transform_rank(out, rank, nranks, count, dst, src, ops, elem_type, opts) &
        bind(C, name='relay_plan_transform_rank') result(st)
      import :: c_int, c_ptr, relay_plan_options
      type(c_ptr), intent(inout) :: out
      integer(c_int), value :: rank, nranks, count
      type(c_ptr), intent(in) :: dst(*), src(*)
      integer(c_int), intent(in) :: ops(*)
      integer(c_int), value :: elem_type
      type(relay_plan_options), intent(in), optional :: opts
      integer(c_int) :: st
    end function c_transform_rank

    function c_compose(out, first, second) bind(C, name='relay_plan_compose') result(st)
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: out
      type(c_ptr), value :: first, second
      integer(c_int) :: st
    end function c_compose

    function c_invert(out, p) bind(C, name='relay_plan_invert') result(st)
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: out
      type(c_ptr), value :: p
      integer(c_int) :: st
    end function c_invert

    function c_concat(out, x, y) bind(C, name='relay_plan_concat') result(st)
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: out
      type(c_ptr), value :: x, y
      integer(c_int) :: st
    end function c_concat

    function c_save(p, path) bind(C, name='relay_plan_save') result(st)
      import :: c_char, c_int, c_ptr
      type(c_ptr), value :: p
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int) :: st
    end function c_save

    function c_load(out, path, rank) bind(C, name='relay_plan_load') result(st)
      import :: c_char, c_int, c_ptr
      type(c_ptr), intent(inout) :: out
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int), value :: rank
      integer(c_int) :: st
    end function c_load

    function c_file_nranks(path, nranks) bind(C, name='relay_plan_file_nranks') result(st)
      import :: c_char, c_int
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int), intent(out) :: nranks
      integer(c_int) :: st
    end function c_file_nranks

    function c_encode(p, buf, len) bind(C, name='relay_plan_encode') result(st)
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: p
      type(c_ptr), intent(inout) :: buf
      integer(c_size_t), intent(inout) :: len
      integer(c_int) :: st
    end function c_encode

    function c_decode(out, buf, len, rank) bind(C, name='relay_plan_decode') result(st)
      import :: c_int, c_int8_t, c_ptr, c_size_t
      type(c_ptr), intent(inout) :: out
      integer(c_int8_t), intent(in) :: buf(*)
      integer(c_size_t), value :: len
      integer(c_int), value :: rank
      integer(c_int) :: st
    end function c_decode

    subroutine c_free_memory(p) bind(C, name='free')
      import :: c_ptr
      type(c_ptr), value :: p
    end subroutine c_free_memory

    ! The queries that take only the plan and return an int.
    pure function c_nranks(p) bind(C, name='relay_plan_nranks') result(v)
      import :: c_int, c_ptr
      type(c_ptr), value :: p
      integer(c_int) :: v
    end function c_nranks
    pure function c_get_kind(p) bind(C, name='relay_plan_get_kind') result(v)
      import :: c_int, c_ptr
      type(c_ptr), value :: p
      integer(c_int) :: v
    end function c_get_kind
    pure function c_type(p) bind(C, name='relay_plan_type') result(v)
      import :: c_int, c_ptr
      type(c_ptr), value :: p
      integer(c_int) :: v
    end function c_type
    pure function c_count(p) bind(C, name='relay_plan_count') result(v)
      import :: c_int, c_ptr
      type(c_ptr), value :: p
      integer(c_int) :: v
    end function c_count
    pure function c_schedule(p) bind(C, name='relay_plan_schedule') result(v)
      import :: c_int, c_ptr
      type(c_ptr), value :: p
      integer(c_int) :: v
    end function c_schedule
    pure function c_rounds(p) bind(C, name='relay_plan_rounds') result(v)
      import :: c_int, c_ptr
      type(c_ptr), value :: p
      integer(c_int) :: v
    end function c_rounds
    pure function c_max_buffer_bytes(p) bind(C, name='relay_plan_max_buffer_bytes') result(v)
      import :: c_int64_t, c_ptr
      type(c_ptr), value :: p
      integer(c_int64_t) :: v
    end function c_max_buffer_bytes

    pure function c_fingerprint(p) bind(C, name='relay_plan_fingerprint') result(v)
      import :: c_int64_t, c_ptr
      type(c_ptr), value :: p
      integer(c_int64_t) :: v
    end function c_fingerprint

    function c_relabeling(p, sigma) bind(C, name='relay_plan_relabeling') result(st)
      import :: c_int, c_ptr
      type(c_ptr), value :: p
      integer(c_int), intent(inout) :: sigma(*)
      integer(c_int) :: st
    end function c_relabeling

    function c_dst_layout(p, index) bind(C, name='relay_plan_dst_layout') result(l)
      import :: c_int, c_ptr
      type(c_ptr), value :: p
      integer(c_int), value :: index
      type(c_ptr) :: l
    end function c_dst_layout

    function c_src_layout(p, index) bind(C, name='relay_plan_src_layout') result(l)
      import :: c_int, c_ptr
      type(c_ptr), value :: p
      integer(c_int), value :: index
      type(c_ptr) :: l
    end function c_src_layout

    function c_buffer_elems(p, is_dst, index, rank) bind(C, name='relay_plan_buffer_elems') result(elems)
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: p
      integer(c_int), value :: is_dst, index, rank
      integer(c_int64_t) :: elems
    end function c_buffer_elems

    function c_get_stats(p, stats) bind(C, name='relay_plan_get_stats') result(st)
      import :: c_int, c_ptr, relay_plan_stats
      type(c_ptr), value :: p
      type(relay_plan_stats), intent(inout) :: stats
      integer(c_int) :: st
    end function c_get_stats

    function c_tuning(p, t) bind(C, name='relay_plan_tuning') result(st)
      import :: c_int, c_ptr, relay_tuning
      type(c_ptr), value :: p
      type(relay_tuning), intent(inout) :: t
      integer(c_int) :: st
    end function c_tuning

    function c_set_tuning(p, t) bind(C, name='relay_plan_set_tuning') result(st)
      import :: c_int, c_ptr, relay_tuning
      type(c_ptr), value :: p
      type(relay_tuning), intent(in) :: t
      integer(c_int) :: st
    end function c_set_tuning

    subroutine c_free(p) bind(C, name='relay_plan_free')
      import :: c_ptr
      type(c_ptr), value :: p
    end subroutine c_free
  end interface

contains

  ! Plans A := alpha*op(B) + beta*A on nranks ranks; dst is A's layout, src B's.
  function relay_plan_transform(plan, nranks, dst, src, op, elem_type, opts) result(st)
    type(relay_plan), intent(inout) :: plan
    integer(c_int), intent(in) :: nranks, op, elem_type
    type(relay_layout), intent(in) :: dst, src
    type(relay_plan_options), intent(in), optional :: opts
    integer(c_int) :: st
    st = c_transform(plan%ptr, nranks, dst%ptr, src%ptr, op, elem_type, opts)
  end function relay_plan_transform

  ! Plans count pairs (dst(k), src(k), ops(k)) that move in one round.
  function relay_plan_transform_batch(plan, nranks, count, dst, src, ops, elem_type, opts) result(st)
    type(relay_plan), intent(inout) :: plan
    integer(c_int), intent(in) :: nranks, count, elem_type
    type(relay_layout), intent(in) :: dst(:), src(:)
    integer(c_int), intent(in) :: ops(:)
    type(relay_plan_options), intent(in), optional :: opts
    integer(c_int) :: st
    st = check_pairs('relay_plan_transform_batch', count, dst, src, ops)
    if (st == RELAY_OK) st = c_transform_batch(plan%ptr, nranks, count, dst%ptr, src%ptr, ops, elem_type, opts)
  end function relay_plan_transform_batch

  ! The same plan as relay_plan_transform_batch, holding rank's section alone.
  function relay_plan_transform_rank(plan, rank, nranks, count, dst, src, ops, elem_type, opts) result(st)
    type(relay_plan), intent(inout) :: plan
    integer(c_int), intent(in) :: rank, nranks, count, elem_type
    type(relay_layout), intent(in) :: dst(:), src(:)
    integer(c_int), intent(in) :: ops(:)
    type(relay_plan_options), intent(in), optional :: opts
    integer(c_int) :: st
    st = check_pairs('relay_plan_transform_rank', count, dst, src, ops)
    if (st == RELAY_OK) &
      st = c_transform_rank(plan%ptr, rank, nranks, count, dst%ptr, src%ptr, ops, elem_type, opts)
  end function relay_plan_transform_rank

  ! RELAY_OK when the arrays of a batch hold the count pairs C reads.
  function check_pairs(who, count, dst, src, ops) result(st)
    character(len=*), intent(in) :: who
    integer(c_int), intent(in) :: count
    type(relay_layout), intent(in) :: dst(:), src(:)
    integer(c_int), intent(in) :: ops(:)
    integer(c_int) :: st
    st = check_length(who, 'dst', size(dst), count)
    if (st == RELAY_OK) st = check_length(who, 'src', size(src), count)
    if (st == RELAY_OK) st = check_length(who, 'ops', size(ops), count)
  end function check_pairs

  ! Plan algebra (relay/plan.h): first then second as one plan, the plan
  ! that moves the data back, two plans as one batch.
  function relay_plan_compose(plan, first, second) result(st)
    type(relay_plan), intent(inout) :: plan
    type(relay_plan), intent(in) :: first, second
    integer(c_int) :: st
    st = c_compose(plan%ptr, first%ptr, second%ptr)
  end function relay_plan_compose

  function relay_plan_invert(plan, p) result(st)
    type(relay_plan), intent(inout) :: plan
    type(relay_plan), intent(in) :: p
    integer(c_int) :: st
    st = c_invert(plan%ptr, p%ptr)
  end function relay_plan_invert

  function relay_plan_concat(plan, x, y) result(st)
    type(relay_plan), intent(inout) :: plan
    type(relay_plan), intent(in) :: x, y
    integer(c_int) :: st
    st = c_concat(plan%ptr, x%ptr, y%ptr)
  end function relay_plan_concat

  ! Writes the plan file (trailing blanks of path are not part of the name).
  function relay_plan_save(plan, path) result(st)
    type(relay_plan), intent(in) :: plan
    character(len=*), intent(in) :: path
    integer(c_int) :: st
    st = c_save(plan%ptr, trim(path) // c_null_char)
  end function relay_plan_save

  ! Reads a plan file; rank >= 0 keeps that rank's section only, -1 all.
  function relay_plan_load(plan, path, rank) result(st)
    type(relay_plan), intent(inout) :: plan
    character(len=*), intent(in) :: path
    integer(c_int), intent(in) :: rank
    integer(c_int) :: st
    st = c_load(plan%ptr, trim(path) // c_null_char, rank)
  end function relay_plan_load

  ! The rank count of the plan in a file, from its header alone.
  function relay_plan_file_nranks(path, nranks) result(st)
    character(len=*), intent(in) :: path
    integer(c_int), intent(out) :: nranks
    integer(c_int) :: st
    st = c_file_nranks(trim(path) // c_null_char, nranks)
  end function relay_plan_file_nranks

  ! The plan file's bytes, in memory.
  function relay_plan_encode(plan, bytes) result(st)
    type(relay_plan), intent(in) :: plan
    integer(c_int8_t), allocatable, intent(inout) :: bytes(:)
    integer(c_int) :: st
    type(c_ptr) :: buf
    integer(c_size_t) :: len
    integer(c_int8_t), pointer :: encoded(:)
    buf = c_null_ptr
    len = 0
    st = c_encode(plan%ptr, buf, len)
    if (st /= RELAY_OK) return
    call c_f_pointer(buf, encoded, [len])
    bytes = encoded
    call c_free_memory(buf)
  end function relay_plan_encode

  ! A plan from bytes relay_plan_encode gave; rank as for relay_plan_load.
  function relay_plan_decode(plan, bytes, rank) result(st)
    type(relay_plan), intent(inout) :: plan
    integer(c_int8_t), intent(in) :: bytes(:)
    integer(c_int), intent(in) :: rank
    integer(c_int) :: st
    st = c_decode(plan%ptr, bytes, size(bytes, kind=c_size_t), rank)
  end function relay_plan_decode

  pure function relay_plan_nranks(plan) result(nranks)
    type(relay_plan), intent(in) :: plan
    integer(c_int) :: nranks
    nranks = c_nranks(plan%ptr)
  end function relay_plan_nranks

  ! RELAY_PLAN_KIND_TRANSFORM, _BMMC or _HSUMMA.
  pure function relay_plan_get_kind(plan) result(kind)
    type(relay_plan), intent(in) :: plan
    integer(c_int) :: kind
    kind = c_get_kind(plan%ptr)
  end function relay_plan_get_kind

  ! The element type, RELAY_FLOAT .. RELAY_CDOUBLE.
  pure function relay_plan_type(plan) result(elem_type)
    type(relay_plan), intent(in) :: plan
    integer(c_int) :: elem_type
    elem_type = c_type(plan%ptr)
  end function relay_plan_type

  ! Transform pairs (1 unless batched; 0 for BMMC and HSUMMA plans).
  pure function relay_plan_count(plan) result(count)
    type(relay_plan), intent(in) :: plan
    integer(c_int) :: count
    count = c_count(plan%ptr)
  end function relay_plan_count

  ! The plan's 64-bit fingerprint (C's uint64_t, bit for bit).
  pure function relay_plan_fingerprint(plan) result(fingerprint)
    type(relay_plan), intent(in) :: plan
    integer(c_int64_t) :: fingerprint
    fingerprint = c_fingerprint(plan%ptr)
  end function relay_plan_fingerprint

  ! The schedule as planned (never RELAY_SCHED_AUTO).
  pure function relay_plan_schedule(plan) result(schedule)
    type(relay_plan), intent(in) :: plan
    integer(c_int) :: schedule
    schedule = c_schedule(plan%ptr)
  end function relay_plan_schedule

  ! Communication steps of one replay.
  pure function relay_plan_rounds(plan) result(rounds)
    type(relay_plan), intent(in) :: plan
    integer(c_int) :: rounds
    rounds = c_rounds(plan%ptr)
  end function relay_plan_rounds

  ! The plan's memory cap in bytes, 0 if none.
  pure function relay_plan_max_buffer_bytes(plan) result(bytes)
    type(relay_plan), intent(in) :: plan
    integer(c_int64_t) :: bytes
    bytes = c_max_buffer_bytes(plan%ptr)
  end function relay_plan_max_buffer_bytes

  ! sigma(j+1) = the rank that receives what the destination layout assigns
  ! to rank j; sigma needs relay_plan_nranks(plan) entries.
  function relay_plan_relabeling(plan, sigma) result(st)
    type(relay_plan), intent(in) :: plan
    integer(c_int), intent(inout) :: sigma(:)
    integer(c_int) :: st
    st = check_length('relay_plan_relabeling', 'sigma', size(sigma), c_nranks(plan%ptr))
    if (st == RELAY_OK) st = c_relabeling(plan%ptr, sigma)
  end function relay_plan_relabeling

  ! The destination layout of pair index (0-based), sigma applied.  It
  ! belongs to the plan: valid while the plan lives, never freed by the caller.
  function relay_plan_dst_layout(plan, index) result(layout)
    type(relay_plan), intent(in) :: plan
    integer(c_int), intent(in) :: index
    type(relay_layout) :: layout
    layout%ptr = c_dst_layout(plan%ptr, index)
  end function relay_plan_dst_layout

  ! The source layout of pair index (0-based); it belongs to the plan.
  function relay_plan_src_layout(plan, index) result(layout)
    type(relay_plan), intent(in) :: plan
    integer(c_int), intent(in) :: index
    type(relay_layout) :: layout
    layout%ptr = c_src_layout(plan%ptr, index)
  end function relay_plan_src_layout

  ! Elements rank's buffer for pair index must hold: the destination buffer
  ! when is_dst is nonzero, the source buffer otherwise; -1 on bad arguments.
  function relay_plan_buffer_elems(plan, is_dst, index, rank) result(elems)
    type(relay_plan), intent(in) :: plan
    integer(c_int), intent(in) :: is_dst, index, rank
    integer(c_int64_t) :: elems
    elems = c_buffer_elems(plan%ptr, is_dst, index, rank)
  end function relay_plan_buffer_elems

  function relay_plan_get_stats(plan, stats) result(st)
    type(relay_plan), intent(in) :: plan
    type(relay_plan_stats), intent(inout) :: stats
    integer(c_int) :: st
    st = c_get_stats(plan%ptr, stats)
  end function relay_plan_get_stats

  ! The plan's tuning (ntimed 0: none).
  function relay_plan_tuning(plan, tuning) result(st)
    type(relay_plan), intent(in) :: plan
    type(relay_tuning), intent(inout) :: tuning
    integer(c_int) :: st
    st = c_tuning(plan%ptr, tuning)
  end function relay_plan_tuning

  ! Records a tuning in the plan (ntimed 0: removes it).
  function relay_plan_set_tuning(plan, tuning) result(st)
    type(relay_plan), intent(inout) :: plan
    type(relay_tuning), intent(in) :: tuning
    integer(c_int) :: st
    st = c_set_tuning(plan%ptr, tuning)
  end function relay_plan_set_tuning

  ! Frees the plan (executors made from it keep what they need) and resets the handle.
  subroutine relay_plan_free(plan)
    type(relay_plan), intent(inout) :: plan
    call c_free(plan%ptr)
    plan%ptr = c_null_ptr
  end subroutine relay_plan_free

end module relay_plan_mod
