#!/usr/bin/env bash
# The man page that help2man made from `tuner --help` and `tuner --version`:
# there, with its sections and options, and rendered by man or groff when
# either is installed.  Skips (77) where help2man was not found at
# configure time, but fails in CI (CI set), which installs it.
# Usage: man_page.sh PAGE HELP2MAN
set -u
page=$1
help2man=${2:-}
if [ -z "$help2man" ]; then
  echo "SKIP: help2man was not found at configure time: no man page" \
       "(scripts/setup.sh installs it; configure again)"
  [ -n "${CI:-}" ] && exit 1
  exit 77
fi
[ -s "$page" ] || { echo "FAIL: $page: missing or empty"; exit 1; }
fail=0
for want in '^\.TH TUNER "1"' '^\.SH NAME' '^\.SH SYNOPSIS' '^\.SH OPTIONS' \
            '\\-\\-config' '\\-\\-dry\\-run' '\\-\\-version'; do
  grep -q -- "$want" "$page" || { echo "FAIL: $page: no '$want'"; fail=1; }
done
if command -v man >/dev/null 2>&1; then
  text=$(MANWIDTH=80 man -l "$page" 2>&1)
elif command -v groff >/dev/null 2>&1; then
  text=$(groff -man -Tutf8 "$page" 2>&1)
else
  text=""
  echo "neither man nor groff: the page is not rendered"
fi
if [ -n "$text" ]; then
  for want in 'tuner - ' '--config FILE' 'tuner conflicts'; do
    [[ "$text" == *"$want"* ]] ||
      { echo "FAIL: rendered page: no '$want'"; fail=1; }
  done
fi
[ $fail -eq 0 ] && echo "man page: $page"
exit $fail
