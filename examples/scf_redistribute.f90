! scf_redistribute.f90 — an iterative program in the style of an
! electronic-structure code, written with plain ScaLAPACK calls and nothing
! of relay's.  The application keeps an N x N matrix in 32 x 32 blocks on a
! BLACS process grid; every iteration
!   1. PDGEMR2D redistributes it into 128 x 128 blocks, the layout of the
!      "solver" (here a local update of every element);
!   2. PDTRAN mixes the solver's result back in, transposed, into the
!      32 x 32 layout: A := (1 - w) A + w B' (linear mixing, as SCF loops do).
! It prints the time per iteration and a checksum of A.
!
! examples/CMakeLists.txt builds it twice: relay-scf-scalapack against
! ScaLAPACK alone, relay-scf-dropin with librelay_scalapack_dropin linked
! ahead of ScaLAPACK.  Both print the same checksum; the drop-in build,
! run with RELAY_SCALAPACK_STATS=1, prints relay's cache hits at the end.
!   usage: mpiexec -n P relay-scf-scalapack|relay-scf-dropin [N [ITERATIONS]]
program scf_redistribute
  ! mpi_f08: its interfaces take any buffer, where MPICH's `use mpi` declares
  ! none and gfortran warns at a routine called with two buffer types.
  use mpi_f08
  implicit none
  integer, parameter :: dp = kind(1.0d0), APP_BLOCK = 32, SOLVER_BLOCK = 128
  real(dp), parameter :: MIXING = 0.3_dp
  integer :: n, iterations, me, nprocs, ictxt, nprow, npcol, myrow, mycol, iter, ierr
  integer :: desc_a(9), desc_b(9)
  real(dp), allocatable :: a(:, :), b(:, :)
  real(dp) :: started, seconds

  call MPI_Init(ierr)
  call read_arguments(n, iterations)
  call blacs_pinfo(me, nprocs)
  call squarest_grid(nprocs, nprow, npcol)
  call blacs_get(-1, 0, ictxt)
  call blacs_gridinit(ictxt, 'R', nprow, npcol)
  call blacs_gridinfo(ictxt, nprow, npcol, myrow, mycol)
  call distribute(a, desc_a, APP_BLOCK)
  call distribute(b, desc_b, SOLVER_BLOCK)
  call initial_values(a, desc_a)

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  started = MPI_Wtime()
  do iter = 1, iterations
    call pdgemr2d(n, n, a, 1, 1, desc_a, b, 1, 1, desc_b, ictxt)
    b = b / (1 + abs(b)) + 1.0_dp / iter
    call pdtran(n, n, MIXING, b, 1, 1, desc_b, 1 - MIXING, a, 1, 1, desc_a)
  end do
  seconds = MPI_Wtime() - started
  call MPI_Allreduce(MPI_IN_PLACE, seconds, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)

  if (me == 0) print '(a, i0, a, i0, a, i0, a, i0, a)', 'scf_redistribute: ', n, ' x ', n, ' on a ', nprow, ' x ', &
    npcol, ' grid, blocks 32 -> 128 and back'
  if (me == 0) print '(a, i0, a, f10.3, a)', 'iterations: ', iterations, ', time per iteration: ', &
    1000 * seconds / iterations, ' ms'
  call print_checksum(a)
  call blacs_gridexit(ictxt)
  call blacs_exit(1)
  call MPI_Finalize(ierr)

contains

  subroutine read_arguments(n, iterations)
    integer, intent(out) :: n, iterations
    character(len=32) :: arg
    n = 1000
    iterations = 20
    if (command_argument_count() >= 1) then
      call get_command_argument(1, arg)
      read (arg, *) n
    end if
    if (command_argument_count() >= 2) then
      call get_command_argument(2, arg)
      read (arg, *) iterations
    end if
  end subroutine

  ! nprow x npcol = nprocs with nprow <= npcol as close as can be.
  subroutine squarest_grid(nprocs, nprow, npcol)
    integer, intent(in) :: nprocs
    integer, intent(out) :: nprow, npcol
    nprow = int(sqrt(real(nprocs)))
    do while (mod(nprocs, nprow) /= 0)
      nprow = nprow - 1
    end do
    npcol = nprocs / nprow
  end subroutine

  ! The local array and descriptor of an N x N matrix in nb x nb blocks.
  subroutine distribute(x, desc, nb)
    real(dp), allocatable, intent(out) :: x(:, :)
    integer, intent(out) :: desc(9)
    integer, intent(in) :: nb
    integer :: rows, cols, info, numroc
    rows = numroc(n, nb, myrow, 0, nprow)
    cols = numroc(n, nb, mycol, 0, npcol)
    call descinit(desc, n, n, nb, nb, 0, 0, ictxt, max(1, rows), info)
    allocate (x(max(1, rows), max(1, cols)))
    x = 0
  end subroutine

  ! A(i, j) = 1 / (i + 2 j), a smooth start, from each element's global index.
  subroutine initial_values(x, desc)
    real(dp), intent(inout) :: x(:, :)
    integer, intent(in) :: desc(9)
    integer :: li, lj, indxl2g
    do lj = 1, local_count(desc(4), desc(6), mycol, npcol)
      do li = 1, local_count(desc(3), desc(5), myrow, nprow)
        x(li, lj) = 1.0_dp / (indxl2g(li, desc(5), myrow, 0, nprow) + 2 * indxl2g(lj, desc(6), mycol, 0, npcol))
      end do
    end do
  end subroutine

  integer function local_count(extent, nb, me_in_dim, procs)
    integer, intent(in) :: extent, nb, me_in_dim, procs
    integer :: numroc
    local_count = numroc(extent, nb, me_in_dim, 0, procs)
  end function

  ! The sum of A's elements, and an exact checksum of their bits (a sum of
  ! 32-bit halves, which no order of summation changes).
  subroutine print_checksum(x)
    real(dp), intent(in) :: x(:, :)
    integer(8) :: bits, total_bits, word
    real(dp) :: total
    integer :: li, lj
    bits = 0
    do lj = 1, local_count(n, APP_BLOCK, mycol, npcol)
      do li = 1, local_count(n, APP_BLOCK, myrow, nprow)
        word = transfer(x(li, lj), word)
        bits = bits + iand(word, int(z'FFFFFFFF', 8)) + ishft(word, -32)
      end do
    end do
    call MPI_Reduce(sum(x(1:local_count(n, APP_BLOCK, myrow, nprow), 1:local_count(n, APP_BLOCK, mycol, npcol))), total, 1, &
                    MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
    call MPI_Reduce(bits, total_bits, 1, MPI_INTEGER8, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
    if (me == 0) print '(a, i0, a, es24.16)', 'checksum: ', total_bits, ', sum of A: ', total
  end subroutine

end program
