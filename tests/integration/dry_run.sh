#!/usr/bin/env bash
# The dry run end to end: candidates with model and limits, every survivor
# compiled, nothing written; the compile cache serves a second run.  All
# for sm_90, the default architecture, so that each source is compiled
# once: the later runs take what the first compiled from its cache.  A row
# for every candidate (--all-candidates), as large spaces have too.
set -u
tuner=$1
cfg=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

out=$("$tuner" --config "$cfg" --dry-run --arch sm_90 --all-candidates \
      --cache-dir "$tmp/cache" --output "$tmp/out" 2>"$tmp/err")
rc=$?
err=$(cat "$tmp/err")
[ $rc -eq 0 ] || { echo "FAIL: exit $rc: $err"; fail=1; }
total=$(printf '%s\n' "$out" | grep -cE '^ *[0-9]+  ')
compiled=$(printf '%s\n' "$out" | grep -cE '^ *[0-9]+  .* compiled ')
pruned=$(printf '%s\n' "$out" | grep -cE '^ *[0-9]+  .* pruned ')
modelled=$(printf '%s\n' "$out" | grep -E '^ *[0-9]+  ' | awk '$0 ~ / pruned / && $0 ~ /[0-9]+\.[0-9] +[0-9]+ /' | wc -l)
echo "dry run: $total candidates, $compiled compiled, $pruned pruned"
[ "$total" -gt 0 ] && [ "$compiled" -gt 0 ] && [ "$pruned" -gt 0 ] ||
  { echo "FAIL: table: $out"; fail=1; }
printf '%s\n' "$out" | grep -q compile_error && { echo "FAIL: compile errors"; fail=1; }
printf '%s\n' "$out" | grep -q 'model: ' || { echo "FAIL: no model pruning reason"; fail=1; }
printf '%s\n' "$out" | grep -q 'limits: ' || echo "note: no candidate over the limits"
# a reason that names its kind is shown once ("constraint \"...\" is
# false", not "constraint: constraint ...")
printf '%s\n' "$out" | grep -qE '^ +constraint: constraint ' &&
  { echo "FAIL: constraint: constraint ..."; fail=1; }
[[ "$err" == *"$total candidates"* ]] || { echo "FAIL: summary: $err"; fail=1; }
[ -e "$tmp/out" ] && { echo "FAIL: the dry run wrote $tmp/out"; fail=1; }

# the same run again compiles nothing: everything comes from the cache
"$tuner" --config "$cfg" --dry-run --arch sm_90 --cache-dir "$tmp/cache" \
  >/dev/null 2>"$tmp/err2"
[[ "$(cat "$tmp/err2")" == *"compiled ($compiled from the cache, 0 failed)"* ]] ||
  { echo "FAIL: second run not from the cache: $(cat "$tmp/err2")"; fail=1; }

# --no-prune compiles what the model pruned (the rest from the cache)
out2=$("$tuner" --config "$cfg" --dry-run --arch sm_90 --no-prune \
       --all-candidates --cache-dir "$tmp/cache" 2>/dev/null)
compiled2=$(printf '%s\n' "$out2" | grep -cE '^ *[0-9]+  .* compiled ')
[ "$compiled2" -gt "$compiled" ] || { echo "FAIL: --no-prune compiled $compiled2"; fail=1; }

# without --arch: the GPU's architecture, or the default one, said so
msg=$("$tuner" --config "$cfg" --dry-run --cache-dir "$tmp/cache" 2>&1 \
      >/dev/null)
[[ "$msg" == *"dry run for sm_"* ]] || { echo "FAIL: no architecture message: $msg"; fail=1; }

[ $fail -eq 0 ] && echo "ok: dry run"
exit $fail
