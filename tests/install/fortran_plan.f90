! fortran_plan.f90 — planning needs no MPI: a program built with the plain
! Fortran compiler and `pkg-config --cflags --libs relay-fortran` plans
! A (200 x 300, 64 x 32 blocks on 2 x 2) := B^T (B 300 x 200, 16 x 16
! blocks on 1 x 4) for 4 ranks and saves the plan for fortran_replay.f90.
! Built against the installed package by tests/install/install.sh.
!
!   fortran_plan FILE
program fortran_plan
  use, intrinsic :: iso_c_binding, only: c_int, c_int64_t
  use relay
  implicit none
  type(relay_layout) :: a, b
  type(relay_plan) :: plan
  type(relay_plan_stats) :: stats
  character(len=1024) :: path

  call get_command_argument(1, path)
  call ok(relay_layout_block_cyclic(b, 300_c_int64_t, 200_c_int64_t, 16_c_int64_t, 16_c_int64_t, 1, 4, &
                                    RELAY_ROW_MAJOR, 0, 0, 0_c_int64_t, RELAY_COL_MAJOR), 'layout of B')
  call ok(relay_layout_block_cyclic(a, 200_c_int64_t, 300_c_int64_t, 64_c_int64_t, 32_c_int64_t, 2, 2, &
                                    RELAY_ROW_MAJOR, 0, 0, 0_c_int64_t, RELAY_COL_MAJOR), 'layout of A')
  call ok(relay_plan_transform(plan, 4, a, b, RELAY_OP_T, RELAY_DOUBLE), 'relay_plan_transform')
  call ok(relay_plan_save(plan, path), 'relay_plan_save')
  call ok(relay_plan_get_stats(plan, stats), 'relay_plan_get_stats')
  print '(a, i0, a)', 'planned: ', stats%bytes_remote, ' remote bytes'
  call relay_plan_free(plan)
  call relay_layout_free(a)
  call relay_layout_free(b)

contains

  subroutine ok(st, what)
    integer(c_int), intent(in) :: st
    character(len=*), intent(in) :: what
    if (st == RELAY_OK) return
    print '(5a)', 'fortran_plan: ', what, ': ', relay_status_str(st), ': ' // relay_last_error()
    error stop 1
  end subroutine ok

end program fortran_plan
