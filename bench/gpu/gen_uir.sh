#!/usr/bin/env bash
# bench/gpu/gen_uir.sh [OUTDIR]: writes the benchmark's .uir programs, each at
# two sizes from one template (so the big and the small one cannot drift):
#   JOB.uir        N = 2^28 elements (transpose: 16384 x 16384), timed on a GPU
#   JOB_small.uir  N = 4096 (64 x 64), for interpreter == CUDA checks
# JOB is copy, triad, dot, transpose (flat loop over the output: coalesced
# writes, strided reads) and transpose_rows (a parallel loop over the rows
# of the output with a serial loop inside: coalesced reads, strided writes,
# only 16384 lanes), the two layouts the oracle's lane rule accepts.
#
# Every program is the same three parts, in this order:
#   1. init: a parallel loop fills the inputs from the index (all buffers
#      start zeroed, and 2^28 values cannot go through --slot), with values
#      exact in f32, so every engine and order gives the same bits;
#   2. the job: the one loop the harness times (the last cairn_kN kernel of
#      the emitted .cu, and its reduce finisher cairn_fN for dot);
#   3. check: four elements of the result (dot: the sum) copied into the
#      4-element slot 0, so a run prints 4 numbers, not 2^28.
# The small versions also make the whole result a slot (slot 1), so the
# interpreter and the CUDA back end are compared on every element.
# The committed .uir files are this script's output; rerun it after an edit.
set -euo pipefail
out=${1:-$(dirname "$0")}

# check VERSION...: slot 0 gets VERSION[P0], [P1], [P2], [P3].
check() {
  local src=$1 prev=%ck k
  local -a pos=(0 "$P1" "$P2" "$LAST")
  echo "# check: slot 0 = ${src#%}[0], [$P1], [$P2], [$LAST]"
  for k in 0 1 2 3; do
    echo "%q$k  = shrink $src ${pos[$k]} shape=[]"
    echo "%v$k  = load %q$k"
    echo "%o$k  = shrink $prev $k shape=[]"
    echo "%w$k  = store %o$k %v$k"
    echo "%ck$((k + 1)) = after $prev %w$k"
    prev=%ck$((k + 1))
  done
}

header() {  # header JOB WHAT
  echo "# bench/gpu/$1.uir, written by bench/gpu/gen_uir.sh (N = $N): $2"
  echo "# Parts: init (fills the inputs), the job (timed), check (slot 0)."
}

copy() {
  header "$1" "b[i] = a[i], f32."
  cat <<EOF
%a   = buffer $N dtype=f32
%b   = buffer $N dtype=f32$OUTSLOT
%ck  = buffer 4 dtype=f32 slot=0
# init: a[i] = i & 0xFFFFFF (exact in f32)
%i   = range $N parallel
  %pa  = shrink %a %i shape=[]
  %m   = and %i 16777215
  %x   = cast %m dtype=f32
  %sa  = store %pa %x
%ei  = end %i %sa
%a1  = after %a %ei
# the job: b[k] = a[k]
%k   = range $N parallel
  %ps  = shrink %a1 %k shape=[]
  %v   = load %ps
  %pd  = shrink %b %k shape=[]
  %sb  = store %pd %v
%ek  = end %k %sb
%b1  = after %b %ek
EOF
  check %b1
}

triad() {
  header "$1" "a[i] = b[i] + s*c[i], f32, s = 3."
  cat <<EOF
%a   = buffer $N dtype=f32$OUTSLOT
%b   = buffer $N dtype=f32
%c   = buffer $N dtype=f32
%ck  = buffer 4 dtype=f32 slot=0
%s   = const 3 dtype=f32
# init: b[i] = i & 1023, c[i] = (i >> 10) & 1023 (a[i] <= 4092: exact)
%i   = range $N parallel
  %pb  = shrink %b %i shape=[]
  %mb  = and %i 1023
  %xb  = cast %mb dtype=f32
  %sb  = store %pb %xb
  %pc  = shrink %c %i shape=[]
  %hc  = shr %i 10
  %mc  = and %hc 1023
  %xc  = cast %mc dtype=f32
  %sc  = store %pc %xc
%ei  = end %i %sb %sc
%b1  = after %b %ei
%c1  = after %c %ei
# the job: a[k] = b[k] + s*c[k] (no fused multiply-add: --fmad=false)
%k   = range $N parallel
  %qb  = shrink %b1 %k shape=[]
  %vb  = load %qb
  %qc  = shrink %c1 %k shape=[]
  %vc  = load %qc
  %t   = mul %s %vc
  %u   = add %vb %t
  %qa  = shrink %a %k shape=[]
  %sa  = store %qa %u
%ek  = end %k %sa
%a1  = after %a %ek
EOF
  check %a1
}

dot() {
  header "$1" "slot 0 = [sum of a[i]*b[i], 0, 0, 0], f32."
  cat <<EOF
# a[i] = i & 3, b[i] = 2 or -1 by bit 2 of i: every 8 elements add 6, the
# sum is 0.75 N (201326592 at 2^28), and every partial sum of the emitted
# (per thread, per block, blocks in order) and hand orders is exact.
%a   = buffer $N dtype=f32
%b   = buffer $N dtype=f32
%ck  = buffer 4 dtype=f32 slot=0
%i   = range $N parallel
  %pa  = shrink %a %i shape=[]
  %ma  = and %i 3
  %xa  = cast %ma dtype=f32
  %sa  = store %pa %xa
  %pb  = shrink %b %i shape=[]
  %hb  = shr %i 2
  %mb  = and %hb 1
  %m3  = mul %mb 3
  %xb  = sub 2 %m3
  %tb  = cast %xb dtype=f32
  %sb  = store %pb %tb
%ei  = end %i %sa %sb
%a1  = after %a %ei
%b1  = after %b %ei
# the job: the sum of a[k]*b[k] (a tree reduction on the GPU)
%k   = range $N parallel
  %qa  = shrink %a1 %k shape=[]
  %va  = load %qa
  %qb  = shrink %b1 %k shape=[]
  %vb  = load %qb
  %pr  = mul %va %vb
%ek  = end %k
%t   = reduce add %ek %pr
# check: slot 0 = [the sum, 0, 0, 0]
%o0  = shrink %ck 0 shape=[]
%w0  = store %o0 %t
%ck1 = after %ck %w0
EOF
}

# The transposes: in is R x C (row-major), out = its transpose, C x R:
# out[j*R + i] = in[i*C + j]. R = C here.
tinit() {
  cat <<EOF
%in  = buffer $N dtype=f32
%out = buffer $N dtype=f32$OUTSLOT
%ck  = buffer 4 dtype=f32 slot=0
# init: in[k] = k & 0xFFFFFF (exact in f32)
%i   = range $N parallel
  %pi  = shrink %in %i shape=[]
  %m   = and %i 16777215
  %x   = cast %m dtype=f32
  %si  = store %pi %x
%ei  = end %i %si
%in1 = after %in %ei
EOF
}

transpose() {
  header "$1" "out = in transposed, $R x $R f32, one lane per output element."
  tinit
  cat <<EOF
# the job: lane p writes out[p] (p = j*R + i) from in[i*C + j], i = p mod R,
# j = p / R: consecutive lanes write consecutive elements (coalesced) and
# read a column of in (stride C). The store offset is the lane itself, as
# the lane rule wants; the load's bound comes from mod and idiv.
%p   = range $N parallel
  %ii  = mod %p $R
  %jj  = idiv %p $R
  %ic  = mul %ii $R
  %src = add %ic %jj
  %ps  = shrink %in1 %src shape=[]
  %v   = load %ps
  %pd  = shrink %out %p shape=[]
  %so  = store %pd %v
%ep  = end %p %so
%out1 = after %out %ep
EOF
  check %out1
}

transpose_rows() {
  header "$1" "out = in transposed, $R x $R f32, one lane per output row."
  tinit
  cat <<EOF
# the job: lane j writes row j of out, out[j*R + i] for i = 0..R-1 in a
# serial loop, from column j of in: consecutive lanes read consecutive
# elements (coalesced) and write R apart; only C lanes. (A parallel loop
# over i with the loop over j inside is refused by the lane rule.)
%j   = range $R parallel
  %jr  = mul %j $R
  %i2  = range $R
    %oc  = carry %out
    %ic  = mul %i2 $R
    %src = add %ic %j
    %ps  = shrink %in1 %src shape=[]
    %v   = load %ps
    %dst = add %jr %i2
    %pd  = shrink %oc %dst shape=[]
    %so  = store %pd %v
    %on  = after %oc %so
  %e2  = end %i2 %on
%ej  = end %j %e2
%out1 = after %out %ej
EOF
  check %out1
}

for size in big small; do
  if [ "$size" = big ]; then R=16384 OUTSLOT="" suffix=""; else R=64 OUTSLOT=" slot=1" suffix=_small; fi
  N=$((R * R)) LAST=$((R * R - 1)) P1=$((R * R / 4 + 1)) P2=$((R * R / 2 + 7))
  for job in copy triad dot transpose transpose_rows; do
    "$job" "$job$suffix" >"$out/$job$suffix.uir"
  done
done
