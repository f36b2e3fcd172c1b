! ranks: 4
! scalapack_loop.f90 — the frame of docs/scalapack-fortran.md's example:
! B, an n x n matrix in 32 x 32 blocks on a 1 x p grid, and A, in
! 128 x 128 blocks on pr x pc, as ScaLAPACK lays them out (grids numbered
! row-major, block (0, 0) on process (0, 0)), each process's LLD in its
! descriptor, descb(9) and desca(9): the smallest plus 1 on odd ranks, so
! that they differ from process to process.  The example, an internal
! subroutine of the frame, runs A := 2 B^T `iterations` times; the frame
! gives it n, p, pr, pc, the descriptors' LLDs, the local arrays a and b,
! st and iter, fills B by ScaLAPACK's index arithmetic and checks every
! element of A.  Its kinds come from iso_fortran_env: c_int64_t and
! c_double must come from the example's own `use relay`.
program doc_scalapack_loop
  use, intrinsic :: iso_fortran_env, only: int64, real64
  use mpi
  implicit none
  integer(int64), parameter :: n = 300
  integer :: p, pr, pc, iterations, rank, ierr, st, iter, desca(9), descb(9), total
  real(real64), allocatable :: a(:), b(:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, p, ierr)
  pr = 2
  pc = p / pr
  iterations = 3
  descb = 0
  desca = 0
  descb(9) = max(1, numroc(n, 32_int64, 0, 1)) + mod(rank, 2)
  desca(9) = max(1, numroc(n, 128_int64, rank / pc, pr)) + mod(rank, 2)
  allocate (a(desca(9) * numroc(n, 128_int64, mod(rank, pc), pc)), b(descb(9) * numroc(n, 32_int64, rank, p)))
  call fill_b()
  a = -1
  call example()
  call MPI_Allreduce(wrong_elements(), total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a, i0, a)', 'docs/scalapack-fortran.md''s example: ', total, ' wrong elements'
  call MPI_Finalize(ierr)
  if (total /= 0) stop 1

contains

  subroutine example()
    @EXAMPLE@
  end subroutine example

  ! ScaLAPACK's NUMROC for block 0 on process 0.
  integer function numroc(length, nb, proc, procs)
    integer(int64), intent(in) :: length, nb
    integer, intent(in) :: proc, procs
    integer(int64) :: blocks
    blocks = length / nb
    numroc = int(blocks / procs * nb)
    if (proc < mod(blocks, int(procs, int64))) then
      numroc = numroc + int(nb)
    else if (proc == mod(blocks, int(procs, int64))) then
      numroc = numroc + int(mod(length, nb))
    end if
  end function numroc

  ! The rank holding element (i, j) (0-based) in mb x mb blocks on an
  ! npr x npc grid, and its 1-based index in that rank's array at lld.
  subroutine locate(i, j, mb, npr, npc, lld, owner, k)
    integer(int64), intent(in) :: i, j, mb
    integer, intent(in) :: npr, npc, lld
    integer, intent(out) :: owner
    integer(int64), intent(out) :: k
    owner = int(mod(i / mb, int(npr, int64))) * npc + int(mod(j / mb, int(npc, int64)))
    k = 1 + (i / (mb * npr)) * mb + mod(i, mb) + ((j / (mb * npc)) * mb + mod(j, mb)) * lld
  end subroutine locate

  real(real64) function b_value(i, j)
    integer(int64), intent(in) :: i, j
    b_value = real(1000 * i + j, real64)
  end function b_value

  subroutine fill_b()
    integer(int64) :: i, j, k
    integer :: owner
    do j = 0, n - 1
      do i = 0, n - 1
        call locate(i, j, 32_int64, 1, p, descb(9), owner, k)
        if (owner == rank) b(k) = b_value(i, j)
      end do
    end do
  end subroutine fill_b

  ! Elements of this rank's part of A other than 2 B(j, i).
  integer function wrong_elements() result(wrong)
    integer(int64) :: i, j, k
    integer :: owner
    wrong = 0
    do j = 0, n - 1
      do i = 0, n - 1
        call locate(i, j, 128_int64, pr, pc, desca(9), owner, k)
        if (owner == rank .and. a(k) /= 2 * b_value(j, i)) wrong = wrong + 1
      end do
    end do
  end function wrong_elements

end program doc_scalapack_loop
