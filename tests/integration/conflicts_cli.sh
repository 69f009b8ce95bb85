#!/usr/bin/env bash
# `tuner conflicts` reads the documented format and prints WAVEFRONTS DEGREE
# BANKS; bad lines name their line number and exit 2.
set -u
tuner=$1
fail=0
lanes() { # lanes STRIDE_BYTES [BASE]: 32 addresses
  local s=$1 b=${2:-0} i out=""
  for i in $(seq 0 31); do out="$out $((b + i * s))"; done
  echo "$out"
}
input="# a comment, then a blank line

ld 4$(lanes 4)
ld 4$(lanes 128)
st 4$(lanes 132)
ld 4$(lanes 0 64)
ld 8$(lanes 8)
ldmatrix.x4$(echo) 16$(lanes 16)
ld 4 0 - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - -"
expected="1 1 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
32 32 0
1 1 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
1 1 16
2 1 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
4 1 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
1 1 0"
got=$(printf '%s\n' "$input" | "$tuner" conflicts --arch sm_90)
rc=$?
if [ $rc -ne 0 ] || [ "$got" != "$expected" ]; then
  echo "FAIL: exit $rc, got:"; echo "$got"; echo "expected:"; echo "$expected"
  fail=1
fi
# bad lines: each names its line and exits 2
check_bad() { # INPUT LINE TEXT
  local msg rc
  msg=$(printf '%s\n' "$1" | "$tuner" conflicts --arch sm_90 2>&1 >/dev/null)
  rc=$?
  if [ $rc -ne 2 ] || [[ "$msg" != "<stdin>:$2: "*"$3"* ]]; then
    echo "FAIL bad input (line $2, '$3'): exit $rc: $msg"; fail=1
  fi
}
check_bad "ld 4$(lanes 4)
xx 4$(lanes 4)" 2 "unknown operation"
check_bad "ld 3$(lanes 4)" 1 "width"
check_bad "ld 4 4 8 12" 1 "expected 32 lane addresses, found 3"
check_bad "ld 4$(lanes 4) 7" 1 "more than 32"
check_bad "ld 8$(lanes 4)" 1 "not a multiple of the width"
check_bad "ld 4$(lanes 4 -4)" 1 "not a byte offset"
check_bad "ld 4 99999999999999999999$(lanes 4 | cut -d' ' -f3-)" 1 "not a byte offset"
check_bad "ldmatrix.x4 8$(lanes 16)" 1 "16 bytes wide"
check_bad "ldmatrix.x2 16 - $(lanes 16 | cut -d' ' -f3-)" 1 "lanes 0-15"
check_bad "ldmatrix.x3 16$(lanes 16)" 1 "unknown operation"
"$tuner" conflicts --arch sm_12 </dev/null >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: --arch sm_12 accepted"; fail=1; }
"$tuner" conflicts /nonexistent >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: missing file accepted"; fail=1; }
# cp.async: global offsets after '|' (default: the shared ones), 'z' for a
# zero-filled lane
input="cp.async.cg 16$(lanes 16)
cp.async.cg 16$(lanes 16) |$(lanes 128)
cp.async.cg 16 0z $(lanes 16 | cut -d' ' -f3-)
cp.async.ca 16$(lanes 32) |$(lanes 16)
cp.async.ca 4$(lanes 4) |$(lanes 0)"
expected="4 1 -
32 1 -
4 1 -
8 2 0,1,2,3,8,9,10,11,16,17,18,19,24,25,26,27
32 32 0"
got=$(printf '%s\n' "$input" | "$tuner" conflicts --arch sm_90)
rc=$?
if [ $rc -ne 0 ] || [ "$got" != "$expected" ]; then
  echo "FAIL cp.async: exit $rc, got:"; echo "$got"; echo "expected:"
  echo "$expected"; fail=1
fi
check_bad "cp.async.cg 8$(lanes 8)" 1 "copies 16 bytes a lane"
check_bad "ld 4$(lanes 4) |$(lanes 4)" 1 "more than 32"
check_bad "cp.async.ca 4$(lanes 4) | 0 4" 1 "expected 32 global offsets"
check_bad "cp.async.ca 4 - $(lanes 4 | cut -d' ' -f3-) |$(lanes 4)" 1 \
  "lane 0: a global offset for an inactive lane"
check_bad "cp.async.ca 4$(lanes 4) |$(lanes 4) 128" 1 "more than 32 global offsets"
check_bad "cp.async.ca 8$(lanes 8) |$(lanes 4)" 1 "global offset 4 is not a multiple"
check_bad "ld 4 0z $(lanes 4 | cut -d' ' -f3-)" 1 "not a byte offset"
# numbers are taken whole or rejected, never cut or wrapped: a token longer
# than the reader's buffer (70 zeros then 4, once read as 0), offsets just
# over 2^31, 2^32 and 2^64, in the shared and the global column
zeros=$(printf '0%.0s' $(seq 70))
rest=$(lanes 4 | cut -d' ' -f3-)
check_bad "ld 4 ${zeros}4 $rest" 1 "longer than 63 characters"
check_bad "ld 4$(lanes 4)
ld 4 ${zeros} $rest" 2 "longer than 63 characters"
check_bad "${zeros}ld 4$(lanes 4)" 1 "longer than 63 characters"
check_bad "ld ${zeros}4$(lanes 4)" 1 "longer than 63 characters"
check_bad "ld 4 2147483652 $rest" 1 "not a byte offset below"
check_bad "ld 4 4294967300 $rest" 1 "not a byte offset below"
check_bad "ld 4 18446744073709551620 $rest" 1 "not a byte offset below"
check_bad "cp.async.ca 4$(lanes 4) | ${zeros}4 $rest" 1 \
  "longer than 63 characters"
check_bad "cp.async.ca 4$(lanes 4) | 4294967296 $rest" 1 \
  "not a global byte offset below"
check_bad "cp.async.ca 4$(lanes 4) |$(lanes 4) ${zeros}" 1 \
  "longer than 63 characters"
# addresses within the shared memory a block may use on the architecture
# (tn_arch.smem_per_block: 64 KiB on sm_75, 227 KiB on sm_90), each lane's
# whole access
check_bad_arch() { # ARCH INPUT TEXT
  local msg rc
  msg=$(printf '%s\n' "$2" | "$tuner" conflicts --arch "$1" 2>&1 >/dev/null)
  rc=$?
  if [ $rc -ne 2 ] || [[ "$msg" != "<stdin>:1: "*"$3"* ]]; then
    echo "FAIL bad input ($1, '$3'): exit $rc: $msg"; fail=1
  fi
}
check_ok_arch() { # ARCH INPUT
  if ! printf '%s\n' "$2" | "$tuner" conflicts --arch "$1" >/dev/null; then
    echo "FAIL: refused on $1: $2"; fail=1
  fi
}
check_bad_arch sm_75 "ld 4$(lanes 4 65536)" \
  "lane 0: bytes 65536 to 65539 are past the 65536 bytes of shared memory a block may use on sm_75"
check_ok_arch sm_90 "ld 4$(lanes 4 65536)"
check_ok_arch sm_90 "ld 4$(lanes 4 232320)"
check_bad_arch sm_90 "ld 4$(lanes 4 232324)" "lane 31: bytes 232448 to 232451"
check_bad_arch sm_90 "ld 16$(lanes 16 231952)" "lane 31: bytes 232448 to 232463"
check_ok_arch sm_90 "ld 16$(lanes 16 231936)"
check_bad_arch sm_80 "ldmatrix.x4 16$(lanes 16 166416)" "lane 31: bytes 166912"
check_ok_arch sm_80 "ldmatrix.x4 16$(lanes 16 166400)"
check_bad_arch sm_90 "cp.async.cg 16 232448z $(lanes 16 | cut -d' ' -f3-)" \
  "lane 0: bytes 232448"
check_ok_arch sm_90 "cp.async.cg 16$(lanes 16) |$(lanes 16 1000000)"
[ $fail -eq 0 ] && echo "ok: conflicts calculator"
exit $fail
