#!/usr/bin/env bash
# fortran_tran_kinds.sh — relay_p?tran* through `use relay` take alpha and
# beta of their own kind only: a program passing, to each of relay_pstran,
# relay_pdtran, relay_pctranu and relay_pztranc, alpha or beta of any other
# real or complex kind or an integer does not compile (gfortran: "Type
# mismatch"), and the same program with the routine's own kind does.
# (relay_exec_run checks its alpha and beta when it runs: mpi_fortran.f90.)
#   usage: bash fortran_tran_kinds.sh FC MODULE_DIR
set -u
[ $# -eq 2 ] || { echo "usage: $0 FC MODULE_DIR" >&2; exit 2; }
FC=$1 MODDIR=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
failures=0

# compiles ROUTINE TYPE ALPHA BETA: whether the call compiles.
compiles() {
    cat >"$WORK/call.f90" <<PROGRAM
program tran_kinds
  use relay
  implicit none
  integer :: desc(9) = 0
  integer(c_int) :: st
  $2 :: a(1) = 0, c(1) = 0
  st = $1(1, 1, $3, a, 1, 1, desc, $4, c, 1, 1, desc)
  print *, st, c
end program tran_kinds
PROGRAM
    "$FC" -fsyntax-only -I"$MODDIR" "$WORK/call.f90" >"$WORK/out.txt" 2>&1
}

routines=(relay_pstran relay_pdtran relay_pctranu relay_pztranc)
types=("real(c_float)" "real(c_double)" "complex(c_float_complex)" "complex(c_double_complex)")
values=("2.0_c_float" "2.0_c_double" "(2.0_c_float, 0.0_c_float)" "(2.0_c_double, 0.0_c_double)" "2")
for k in 0 1 2 3; do
    routine=${routines[$k]} type=${types[$k]} own=${values[$k]}
    if compiles "$routine" "$type" "$own" "$own"; then
        echo "ok: $routine with $own"
    else
        echo "FAIL: $routine with its own kind, $own, does not compile: $(head -5 "$WORK/out.txt")"
        failures=$((failures + 1))
    fi
    for v in 0 1 2 3 4; do
        [ "$v" -eq "$k" ] && continue
        other=${values[$v]}
        for slot in alpha beta; do
            if [ $slot = alpha ]; then compiles "$routine" "$type" "$other" "$own"; else compiles "$routine" "$type" "$own" "$other"; fi
            if [ $? -ne 0 ] && grep -q "Type mismatch" "$WORK/out.txt"; then
                echo "ok: $routine refuses $slot = $other"
            else
                echo "FAIL: $routine compiles $slot = $other, or fails otherwise: $(head -5 "$WORK/out.txt")"
                failures=$((failures + 1))
            fi
        done
    done
done
echo "$failures failure(s)"
[ "$failures" -eq 0 ]
