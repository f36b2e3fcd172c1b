! hsumma.f90 — relay_hsumma_mod: relay/hsumma.h in Fortran.  SUMMA and
! hierarchical SUMMA plans for C := alpha*A*B + beta*C on an s x t grid, the
! layouts of their operands, and the cost model that picks the groups.
! Replays go through relay_exec (relay_exec_run_ptrs with C, and A and B).
module relay_hsumma_mod
  use, intrinsic :: iso_c_binding, only: c_double, c_int, c_int64_t, c_ptr
  use relay_layout_mod, only: relay_layout
  use relay_plan_mod, only: relay_plan
  implicit none
  private
  public :: RELAY_HSUMMA_CHECKERBOARD, RELAY_HSUMMA_BLOCK_CYCLIC
  public :: RELAY_GROUPS_GIVEN, RELAY_GROUPS_MODEL, RELAY_GROUPS_AT_BIND, RELAY_GROUPS_AUTOTUNE
  public :: RELAY_BCAST_VAN_DE_GEIJN, RELAY_BCAST_BINOMIAL
  public :: relay_hsumma_network, relay_hsumma_params, relay_hsumma_info
  public :: relay_hsumma_params_init, relay_hsumma_model, relay_hsumma_best_groups
  public :: relay_plan_hsumma, relay_plan_hsumma_info, relay_plan_hsumma_layout

  enum, bind(c)   ! relay_hsumma_dist
    enumerator :: RELAY_HSUMMA_CHECKERBOARD = 0, RELAY_HSUMMA_BLOCK_CYCLIC
  end enum
  enum, bind(c)   ! relay_hsumma_groups_from
    enumerator :: RELAY_GROUPS_GIVEN = 0, RELAY_GROUPS_MODEL, RELAY_GROUPS_AT_BIND, RELAY_GROUPS_AUTOTUNE
  end enum
  enum, bind(c)   ! relay_bcast_model
    enumerator :: RELAY_BCAST_VAN_DE_GEIJN = 0, RELAY_BCAST_BINOMIAL
  end enum

  ! Hockney's latency (s) and reciprocal bandwidth (s per byte), and the broadcast model.
  type, bind(C) :: relay_hsumma_network
    real(c_double) :: alpha, beta
    integer(c_int) :: bcast
  end type relay_hsumma_network

  ! The fields of C's relay_hsumma_params, in its order (relay/hsumma.h).
  type, bind(C) :: relay_hsumma_params
    integer(c_int64_t) :: m, n, k
    integer(c_int) :: grid_rows, grid_cols
    integer(c_int) :: group_rows, group_cols
    integer(c_int64_t) :: inner_block, outer_block
    integer(c_int) :: dist
    integer(c_int64_t) :: dist_block
    integer(c_int) :: type
    type(relay_hsumma_network) :: network
  end type relay_hsumma_params

  type, bind(C) :: relay_hsumma_info
    type(relay_hsumma_params) :: params
    integer(c_int) :: groups_from
    integer(c_int64_t) :: outer_steps, inner_steps
  end type relay_hsumma_info

  ! The parameters and the model take no handle: C's own functions.
  interface
    ! Defaults for an m x n x k product of elem_type on a grid_rows x grid_cols grid.
    function relay_hsumma_params_init(p, m, n, k, grid_rows, grid_cols, elem_type) &
        bind(C, name='relay_hsumma_params_init') result(st)
      import :: c_int, c_int64_t, relay_hsumma_params
      type(relay_hsumma_params), intent(inout) :: p
      integer(c_int64_t), value :: m, n, k
      integer(c_int), value :: grid_rows, grid_cols, elem_type
      integer(c_int) :: st
    end function relay_hsumma_params_init

    ! The model's communication time of one replay with group_rows x group_cols groups.
    function relay_hsumma_model(p, group_rows, group_cols, net, seconds, latency, bandwidth) &
        bind(C, name='relay_hsumma_model') result(st)
      import :: c_double, c_int, relay_hsumma_network, relay_hsumma_params
      type(relay_hsumma_params), intent(in) :: p
      integer(c_int), value :: group_rows, group_cols
      type(relay_hsumma_network), intent(in) :: net
      real(c_double), intent(inout) :: seconds
      real(c_double), intent(inout), optional :: latency, bandwidth
      integer(c_int) :: st
    end function relay_hsumma_model

    ! The groups that minimise the model.
    function relay_hsumma_best_groups(p, net, group_rows, group_cols) &
        bind(C, name='relay_hsumma_best_groups') result(st)
      import :: c_int, relay_hsumma_network, relay_hsumma_params
      type(relay_hsumma_params), intent(in) :: p
      type(relay_hsumma_network), intent(in) :: net
      integer(c_int), intent(inout) :: group_rows, group_cols
      integer(c_int) :: st
    end function relay_hsumma_best_groups
  end interface

  interface
    function c_plan_hsumma(out, params) bind(C, name='relay_plan_hsumma') result(st)
      import :: c_int, c_ptr, relay_hsumma_params
      type(c_ptr), intent(inout) :: out
      type(relay_hsumma_params), intent(in) :: params
      integer(c_int) :: st
    end function c_plan_hsumma

    function c_plan_hsumma_info(plan, info) bind(C, name='relay_plan_hsumma_info') result(st)
      import :: c_int, c_ptr, relay_hsumma_info
      type(c_ptr), value :: plan
      type(relay_hsumma_info), intent(inout) :: info
      integer(c_int) :: st
    end function c_plan_hsumma_info

    function c_plan_hsumma_layout(plan, which, out) bind(C, name='relay_plan_hsumma_layout') result(st)
      import :: c_int, c_ptr
      type(c_ptr), value :: plan
      integer(c_int), value :: which
      type(c_ptr), intent(inout) :: out
      integer(c_int) :: st
    end function c_plan_hsumma_layout
  end interface

contains

  ! Plans C := alpha*A*B + beta*C on grid_rows*grid_cols ranks.
  function relay_plan_hsumma(plan, params) result(st)
    type(relay_plan), intent(inout) :: plan
    type(relay_hsumma_params), intent(in) :: params
    integer(c_int) :: st
    st = c_plan_hsumma(plan%ptr, params)
  end function relay_plan_hsumma

  function relay_plan_hsumma_info(plan, info) result(st)
    type(relay_plan), intent(in) :: plan
    type(relay_hsumma_info), intent(inout) :: info
    integer(c_int) :: st
    st = c_plan_hsumma_info(plan%ptr, info)
  end function relay_plan_hsumma_info

  ! The layout of operand which (0 = A, 1 = B, 2 = C); free it with relay_layout_free.
  function relay_plan_hsumma_layout(plan, which, layout) result(st)
    type(relay_plan), intent(in) :: plan
    integer(c_int), intent(in) :: which
    type(relay_layout), intent(inout) :: layout
    integer(c_int) :: st
    st = c_plan_hsumma_layout(plan%ptr, which, layout%ptr)
  end function relay_plan_hsumma_layout

end module relay_hsumma_mod
