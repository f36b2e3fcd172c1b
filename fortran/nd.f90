! nd.f90 — relay_nd_mod: relay/nd.h in Fortran.  N-D arrays on process
! meshes (type(relay_nd_layout)) and the N-D transform's plans.
!
! As in C, array dimensions, mesh positions and ranks count from 0: a
! placement relay_shard(0) cuts the first dimension, which in a Fortran
! array is the fastest one when the layout's order is RELAY_COL_MAJOR
! (Fortran order, the natural choice here).  A placement is built by
! relay_shard(dim [, block] [, splits]), relay_replicate() or
! relay_partial(); relay_nd_layout_create copies everything it is given.
module relay_nd_mod
  use, intrinsic :: iso_c_binding, only: c_int, c_int64_t, c_loc, c_null_ptr, c_ptr
  use relay_fortran_internal, only: check_length, fortran_fail
  use relay_plan_mod, only: relay_plan, relay_plan_options
  use relay_status_mod, only: RELAY_OK, RELAY_ERR_ARG
  implicit none
  private
  public :: relay_nd_layout, relay_placement, relay_shard, relay_replicate, relay_partial
  public :: RELAY_SHARD_KIND, RELAY_REPLICATE_KIND, RELAY_PARTIAL_KIND
  public :: relay_nd_layout_create, relay_nd_layout_free, relay_nd_layout_local_elems, relay_nd_layout_local_shape
  public :: relay_plan_nd

  ! relay_placement_kind (Fortran ignores case: RELAY_SHARD would clash
  ! with the constructor relay_shard).
  enum, bind(c)
    enumerator :: RELAY_SHARD_KIND = 0, RELAY_REPLICATE_KIND, RELAY_PARTIAL_KIND
  end enum

  ! An N-D layout handle: the C relay_nd_layout, c_null_ptr until built.
  type :: relay_nd_layout
    type(c_ptr) :: ptr = c_null_ptr
  end type relay_nd_layout

  ! One mesh dimension's placement (relay_placement in C).
  type :: relay_placement
    integer(c_int) :: kind = RELAY_REPLICATE_KIND, dim = 0
    integer(c_int64_t) :: block = 0
    integer(c_int64_t), allocatable :: splits(:)
  end type relay_placement

  ! C's relay_placement and relay_nd_desc, field for field.
  type, bind(C) :: c_placement
    integer(c_int) :: kind, dim
    integer(c_int64_t) :: block
    type(c_ptr) :: splits
  end type c_placement

  type, bind(C) :: c_nd_desc
    integer(c_int) :: ndims
    type(c_ptr) :: shape
    integer(c_int) :: mesh_ndims
    type(c_ptr) :: mesh_shape, mesh_ranks, placements
    integer(c_int) :: order
    type(c_ptr) :: padded
  end type c_nd_desc

  interface
    function c_create(out, d) bind(C, name='relay_nd_layout_create') result(st)
      import :: c_int, c_nd_desc, c_ptr
      type(c_ptr), intent(inout) :: out
      type(c_nd_desc), intent(in) :: d
      integer(c_int) :: st
    end function c_create

    subroutine c_free(l) bind(C, name='relay_nd_layout_free')
      import :: c_ptr
      type(c_ptr), value :: l
    end subroutine c_free

    pure function c_local_elems(l, rank) bind(C, name='relay_nd_layout_local_elems') result(elems)
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: l
      integer(c_int), value :: rank
      integer(c_int64_t) :: elems
    end function c_local_elems

    function c_local_shape(l, rank, extents) bind(C, name='relay_nd_layout_local_shape') result(st)
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: l
      integer(c_int), value :: rank
      integer(c_int64_t), intent(out) :: extents(*)
      integer(c_int) :: st
    end function c_local_shape

    pure function c_ndims(l) bind(C, name='relay_nd_layout_ndims') result(n)
      import :: c_int, c_ptr
      type(c_ptr), value :: l
      integer(c_int) :: n
    end function c_ndims

    function c_plan_nd(out, nranks, dst, src, op, perm, elem_type, opts) bind(C, name='relay_plan_nd') result(st)
      import :: c_int, c_ptr, relay_plan_options
      type(c_ptr), intent(inout) :: out
      integer(c_int), value :: nranks
      type(c_ptr), value :: dst, src
      integer(c_int), value :: op
      integer(c_int), intent(in), optional :: perm(*)
      integer(c_int), value :: elem_type
      type(relay_plan_options), intent(in), optional :: opts
      integer(c_int) :: st
    end function c_plan_nd
  end interface

contains

  ! Shards array dimension dim (0-based): even chunks, or blocks of
  ! `block` dealt round-robin, or the split points `splits` (p+1 entries).
  function relay_shard(dim, block, splits) result(p)
    integer, intent(in) :: dim
    integer(c_int64_t), intent(in), optional :: block
    integer(c_int64_t), intent(in), optional :: splits(:)
    type(relay_placement) :: p
    p%kind = RELAY_SHARD_KIND
    p%dim = dim
    if (present(block)) p%block = block
    if (present(splits)) p%splits = splits
  end function relay_shard

  function relay_replicate() result(p)
    type(relay_placement) :: p
    p%kind = RELAY_REPLICATE_KIND
  end function relay_replicate

  function relay_partial() result(p)
    type(relay_placement) :: p
    p%kind = RELAY_PARTIAL_KIND
  end function relay_partial

  ! The placements as C takes them; RELAY_ERR_ARG when a shard's splits
  ! are fewer than its mesh dimension's size + 1.
  function c_placements(places, mesh_shape, out) result(st)
    type(relay_placement), intent(in), target :: places(:)
    integer(c_int), intent(in) :: mesh_shape(:)
    type(c_placement), intent(out) :: out(:)
    integer(c_int) :: st
    integer :: m
    st = RELAY_OK
    do m = 1, size(places)
      out(m) = c_placement(places(m)%kind, places(m)%dim, places(m)%block, c_null_ptr)
      if (.not. allocated(places(m)%splits)) cycle
      st = check_length('relay_nd_layout_create', 'a placement''s splits', size(places(m)%splits), mesh_shape(m) + 1)
      if (st /= RELAY_OK) return
      out(m)%splits = c_loc(places(m)%splits)
    end do
  end function c_placements

  ! (The arrays C reads by address are CONTIGUOUS: a strided section
  ! arrives as a contiguous copy, not as every other element.)
  ! An N-D layout: shape (1-8 extents), a mesh of mesh_shape (1-4 sizes)
  ! over mesh_ranks (their product, mesh order: the last mesh dimension
  ! fastest), one placement per mesh dimension, local storage in `order`
  ! (RELAY_COL_MAJOR: Fortran order) and optional padded local extents.
  function relay_nd_layout_create(layout, shape, mesh_shape, mesh_ranks, placements, order, padded) result(st)
    type(relay_nd_layout), intent(inout) :: layout
    integer(c_int64_t), intent(in), target, contiguous :: shape(:)
    integer(c_int), intent(in), target, contiguous :: mesh_shape(:), mesh_ranks(:)
    type(relay_placement), intent(in), target :: placements(:)
    integer(c_int), intent(in) :: order
    integer(c_int64_t), intent(in), target, contiguous, optional :: padded(:)
    integer(c_int) :: st
    type(c_placement), allocatable, target :: places(:)
    type(c_nd_desc) :: d
    st = check_length('relay_nd_layout_create', 'placements', size(placements), size(mesh_shape))
    if (st == RELAY_OK .and. present(padded)) st = check_length('relay_nd_layout_create', 'padded', size(padded), size(shape))
    if (st == RELAY_OK .and. size(mesh_ranks) < product(int(mesh_shape, c_int64_t))) &
      st = fortran_fail(RELAY_ERR_ARG, 'relay_nd_layout_create: mesh_ranks holds fewer ranks than the mesh has')
    if (st /= RELAY_OK) return
    allocate (places(size(placements)))
    st = c_placements(placements, mesh_shape, places)
    if (st /= RELAY_OK) return
    d = c_nd_desc(size(shape), c_loc(shape), size(mesh_shape), c_loc(mesh_shape), c_loc(mesh_ranks), c_loc(places), &
                  order, c_null_ptr)
    if (present(padded)) d%padded = c_loc(padded)
    st = c_create(layout%ptr, d)
  end function relay_nd_layout_create

  subroutine relay_nd_layout_free(layout)
    type(relay_nd_layout), intent(inout) :: layout
    call c_free(layout%ptr)
    layout%ptr = c_null_ptr
  end subroutine relay_nd_layout_free

  ! Elements rank's local buffer must hold (0 if it is not on the mesh).
  pure function relay_nd_layout_local_elems(layout, rank) result(elems)
    type(relay_nd_layout), intent(in) :: layout
    integer(c_int), intent(in) :: rank
    integer(c_int64_t) :: elems
    elems = c_local_elems(layout%ptr, rank)
  end function relay_nd_layout_local_elems

  ! The extents of rank's local array (as many entries as dimensions).
  function relay_nd_layout_local_shape(layout, rank, extents) result(st)
    type(relay_nd_layout), intent(in) :: layout
    integer(c_int), intent(in) :: rank
    integer(c_int64_t), intent(out) :: extents(:)
    integer(c_int) :: st
    st = check_length('relay_nd_layout_local_shape', 'extents', size(extents), int(c_ndims(layout%ptr)))
    if (st == RELAY_OK) st = c_local_shape(layout%ptr, rank, extents)
  end function relay_nd_layout_local_shape

  ! Plans A := alpha * permute(B) + beta * A (A's dimension k is B's
  ! perm(k+1), 0-based entries; absent: as op implies).
  function relay_plan_nd(plan, nranks, dst, src, op, elem_type, perm, opts) result(st)
    type(relay_plan), intent(inout) :: plan
    integer(c_int), intent(in) :: nranks, op, elem_type
    type(relay_nd_layout), intent(in) :: dst, src
    integer(c_int), intent(in), optional :: perm(:)
    type(relay_plan_options), intent(in), optional :: opts
    integer(c_int) :: st
    st = RELAY_OK
    if (present(perm)) st = check_length('relay_plan_nd', 'perm', size(perm), int(c_ndims(dst%ptr)))
    if (st == RELAY_OK) st = c_plan_nd(plan%ptr, nranks, dst%ptr, src%ptr, op, perm, elem_type, opts)
  end function relay_plan_nd

end module relay_nd_mod
