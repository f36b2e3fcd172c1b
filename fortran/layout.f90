! layout.f90 — relay_layout_mod: relay/layout.h in Fortran.  How a global
! m x n matrix is cut into blocks and stored on ranks: ScaLAPACK's
! block-cyclic layouts and arbitrary grids, held by type(relay_layout).
!
! As in C, ranks, block indices and local buffer indices count from 0 (a
! local index k is element k+1 of a Fortran array), and sizes are
! integer(c_int64_t).  A ScaLAPACK descriptor's LLD is its process's own:
! pass it with the plan's communicator (relay_layout_block_cyclic's comm),
! and the processes gather each other's.
module relay_layout_mod
  use, intrinsic :: iso_c_binding, only: c_int, c_int64_t, c_null_ptr, c_ptr
  use relay_fortran_internal, only: check_length
  use relay_status_mod, only: RELAY_OK
  implicit none
  private
  public :: relay_layout
  public :: relay_layout_block_cyclic, relay_layout_block_cyclic_lds, relay_layout_grid, relay_layout_local_elems, &
            relay_layout_local_shape, &
            relay_layout_nranks, relay_layout_rows, relay_layout_cols, relay_layout_locate, relay_layout_free

  ! A layout handle: the C relay_layout, c_null_ptr until built.
  type :: relay_layout
    type(c_ptr) :: ptr = c_null_ptr
  end type relay_layout

  interface
    function c_block_cyclic(out, m, n, mb, nb, nprow, npcol, grid_order, rsrc, csrc, lld, elem_order) &
        bind(C, name='relay_layout_block_cyclic') result(st)
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), intent(inout) :: out
      integer(c_int64_t), value :: m, n, mb, nb
      integer(c_int), value :: nprow, npcol, grid_order, rsrc, csrc
      integer(c_int64_t), value :: lld
      integer(c_int), value :: elem_order
      integer(c_int) :: st
    end function c_block_cyclic

    function c_block_cyclic_lds(out, m, n, mb, nb, nprow, npcol, grid_order, rsrc, csrc, lds, elem_order) &
        bind(C, name='relay_layout_block_cyclic_lds') result(st)
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), intent(inout) :: out
      integer(c_int64_t), value :: m, n, mb, nb
      integer(c_int), value :: nprow, npcol, grid_order, rsrc, csrc
      integer(c_int64_t), intent(in) :: lds(*)
      integer(c_int), value :: elem_order
      integer(c_int) :: st
    end function c_block_cyclic_lds

    function c_block_cyclic_gathered(out, m, n, mb, nb, nprow, npcol, grid_order, rsrc, csrc, lld, elem_order, comm) &
        bind(C, name='relay_fortran_layout_block_cyclic_gathered') result(st)
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), intent(inout) :: out
      integer(c_int64_t), value :: m, n, mb, nb
      integer(c_int), value :: nprow, npcol, grid_order, rsrc, csrc
      integer(c_int64_t), value :: lld
      integer(c_int), value :: elem_order, comm
      integer(c_int) :: st
    end function c_block_cyclic_gathered

    function c_grid(out, nranks, m, n, nbr, row_splits, nbc, col_splits, owners, offsets, lds, elem_order) &
        bind(C, name='relay_layout_grid') result(st)
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), intent(inout) :: out
      integer(c_int), value :: nranks
      integer(c_int64_t), value :: m, n
      integer(c_int), value :: nbr
      integer(c_int64_t), intent(in) :: row_splits(*)
      integer(c_int), value :: nbc
      integer(c_int64_t), intent(in) :: col_splits(*)
      integer(c_int), intent(in) :: owners(*)
      integer(c_int64_t), intent(in), optional :: offsets(*), lds(*)
      integer(c_int), value :: elem_order
      integer(c_int) :: st
    end function c_grid

    pure function c_local_elems(l, rank) bind(C, name='relay_layout_local_elems') result(elems)
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: l
      integer(c_int), value :: rank
      integer(c_int64_t) :: elems
    end function c_local_elems

    function c_local_shape(l, rank, rows, cols, ld) bind(C, name='relay_layout_local_shape') result(st)
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: l
      integer(c_int), value :: rank
      integer(c_int64_t), intent(out) :: rows, cols, ld
      integer(c_int) :: st
    end function c_local_shape

    pure function c_nranks(l) bind(C, name='relay_layout_nranks') result(nranks)
      import :: c_int, c_ptr
      type(c_ptr), value :: l
      integer(c_int) :: nranks
    end function c_nranks

    pure function c_rows(l) bind(C, name='relay_layout_rows') result(rows)
      import :: c_int64_t, c_ptr
      type(c_ptr), value :: l
      integer(c_int64_t) :: rows
    end function c_rows

    pure function c_cols(l) bind(C, name='relay_layout_cols') result(cols)
      import :: c_int64_t, c_ptr
      type(c_ptr), value :: l
      integer(c_int64_t) :: cols
    end function c_cols

    function c_locate(l, i, j, rank, index) bind(C, name='relay_layout_locate') result(st)
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: l
      integer(c_int64_t), value :: i, j
      integer(c_int), intent(inout) :: rank
      integer(c_int64_t), intent(inout) :: index
      integer(c_int) :: st
    end function c_locate

    subroutine c_free(l) bind(C, name='relay_layout_free')
      import :: c_ptr
      type(c_ptr), value :: l
    end subroutine c_free
  end interface

contains

  ! ScaLAPACK's block-cyclic layout of an m x n matrix in mb x nb blocks on
  ! an nprow x npcol grid (relay/layout.h).  Without comm, lld is every
  ! rank's (0: each rank's smallest).  With comm, the communicator the plan
  ! will replay on (collective over it), lld is this process's own, the LLD
  ! of its ScaLAPACK descriptor (desc(9)), which may differ between
  ! processes: they gather each other's arguments and make the layout of
  ! every rank's LLD (relay_layout_block_cyclic_lds) on all of them, or fail
  ! on all of them (RELAY_ERR_MISMATCH where an argument other than lld
  ! differs between processes).
  function relay_layout_block_cyclic(layout, m, n, mb, nb, nprow, npcol, grid_order, rsrc, csrc, lld, &
                                     elem_order, comm) result(st)
    type(relay_layout), intent(inout) :: layout
    integer(c_int64_t), intent(in) :: m, n, mb, nb, lld
    integer(c_int), intent(in) :: nprow, npcol, grid_order, rsrc, csrc, elem_order
    integer, intent(in), optional :: comm
    integer(c_int) :: st
    if (present(comm)) then
      st = c_block_cyclic_gathered(layout%ptr, m, n, mb, nb, nprow, npcol, grid_order, rsrc, csrc, lld, elem_order, comm)
    else
      st = c_block_cyclic(layout%ptr, m, n, mb, nb, nprow, npcol, grid_order, rsrc, csrc, lld, elem_order)
    end if
  end function relay_layout_block_cyclic

  ! The same with every rank's leading dimension: lds(r+1) for rank r,
  ! nprow*npcol entries, the same array on every rank.
  function relay_layout_block_cyclic_lds(layout, m, n, mb, nb, nprow, npcol, grid_order, rsrc, csrc, lds, &
                                         elem_order) result(st)
    type(relay_layout), intent(inout) :: layout
    integer(c_int64_t), intent(in) :: m, n, mb, nb
    integer(c_int), intent(in) :: nprow, npcol, grid_order, rsrc, csrc, elem_order
    integer(c_int64_t), intent(in) :: lds(:)
    integer(c_int) :: st
    integer(c_int64_t) :: ranks
    ranks = min(int(max(nprow, 0), c_int64_t) * max(npcol, 0), int(huge(0), c_int64_t))
    st = check_length('relay_layout_block_cyclic_lds', 'lds', size(lds), int(ranks))
    if (st == RELAY_OK) st = c_block_cyclic_lds(layout%ptr, m, n, mb, nb, nprow, npcol, grid_order, rsrc, csrc, lds, &
                                                elem_order)
  end function relay_layout_block_cyclic_lds

  ! An arbitrary grid over nranks ranks: row_splits(1:nbr+1),
  ! col_splits(1:nbc+1), owners(1:nbr*nbc) row-major over blocks; offsets
  ! and lds (nbr*nbc each) both or neither.
  function relay_layout_grid(layout, nranks, m, n, nbr, row_splits, nbc, col_splits, owners, offsets, lds, &
                             elem_order) result(st)
    type(relay_layout), intent(inout) :: layout
    integer(c_int), intent(in) :: nranks, nbr, nbc, elem_order
    integer(c_int64_t), intent(in) :: m, n
    integer(c_int64_t), intent(in) :: row_splits(:), col_splits(:)
    integer(c_int), intent(in) :: owners(:)
    integer(c_int64_t), intent(in), optional :: offsets(:), lds(:)
    integer(c_int) :: st
    integer :: blocks
    blocks = max(nbr, 0) * max(nbc, 0)
    st = check_length('relay_layout_grid', 'row_splits', size(row_splits), nbr + 1)
    if (st == RELAY_OK) st = check_length('relay_layout_grid', 'col_splits', size(col_splits), nbc + 1)
    if (st == RELAY_OK) st = check_length('relay_layout_grid', 'owners', size(owners), blocks)
    if (st == RELAY_OK .and. present(offsets)) &
      st = check_length('relay_layout_grid', 'offsets', size(offsets), blocks)
    if (st == RELAY_OK .and. present(lds)) st = check_length('relay_layout_grid', 'lds', size(lds), blocks)
    if (st /= RELAY_OK) return
    st = c_grid(layout%ptr, nranks, m, n, nbr, row_splits, nbc, col_splits, owners, offsets, lds, elem_order)
  end function relay_layout_grid

  ! Elements rank's local buffer must hold (0 if it owns nothing).
  pure function relay_layout_local_elems(layout, rank) result(elems)
    type(relay_layout), intent(in) :: layout
    integer(c_int), intent(in) :: rank
    integer(c_int64_t) :: elems
    elems = c_local_elems(layout%ptr, rank)
  end function relay_layout_local_elems

  ! Rank's local matrix of a block-cyclic layout: rows x cols with leading
  ! dimension ld, in the layout's element order (0 x 0 where it holds
  ! nothing); RELAY_ERR_UNSUPPORTED for grid layouts, whose buffer is flat.
  function relay_layout_local_shape(layout, rank, rows, cols, ld) result(st)
    type(relay_layout), intent(in) :: layout
    integer(c_int), intent(in) :: rank
    integer(c_int64_t), intent(out) :: rows, cols, ld
    integer(c_int) :: st
    st = c_local_shape(layout%ptr, rank, rows, cols, ld)
  end function relay_layout_local_shape

  pure function relay_layout_nranks(layout) result(nranks)
    type(relay_layout), intent(in) :: layout
    integer(c_int) :: nranks
    nranks = c_nranks(layout%ptr)
  end function relay_layout_nranks

  pure function relay_layout_rows(layout) result(rows)
    type(relay_layout), intent(in) :: layout
    integer(c_int64_t) :: rows
    rows = c_rows(layout%ptr)
  end function relay_layout_rows

  pure function relay_layout_cols(layout) result(cols)
    type(relay_layout), intent(in) :: layout
    integer(c_int64_t) :: cols
    cols = c_cols(layout%ptr)
  end function relay_layout_cols

  ! The owner rank of global element (i, j) (0-based) and its 0-based index
  ! in the owner's local buffer.
  function relay_layout_locate(layout, i, j, rank, index) result(st)
    type(relay_layout), intent(in) :: layout
    integer(c_int64_t), intent(in) :: i, j
    integer(c_int), intent(inout) :: rank
    integer(c_int64_t), intent(inout) :: index
    integer(c_int) :: st
    st = c_locate(layout%ptr, i, j, rank, index)
  end function relay_layout_locate

  ! Frees the layout (plans made from it keep their own copy) and resets the handle.
  subroutine relay_layout_free(layout)
    type(relay_layout), intent(inout) :: layout
    call c_free(layout%ptr)
    layout%ptr = c_null_ptr
  end subroutine relay_layout_free

end module relay_layout_mod
