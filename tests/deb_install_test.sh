#!/usr/bin/env bash
# The Debian package as a user meets it: built from the build folder
# (scripts/package-deb.sh), checked by lintian (no error, and no warning that
# docs/packaging.md does not list with its reason), installed with apt-get, exercised from
# a folder outside the checkout, then removed and purged, leaving none of its files.
#   tests/deb_install_test.sh [BUILD]      (default: build; ./setup.sh builds it)
# Installed, from a fresh folder under /tmp: `locksim --version` is the build's; `locksim
# check` with no path checks the installed library and passes; `locksim list` lists it;
# `man -w locksim` finds the page, which is what `locksim man` prints and renders without a
# warning; bash completes `locksim sw` to `sweep` and `--design` to the file's designs with
# the installed completion; the CI recipes of docs/ci run against the package
# (tests/ci_recipes_test.py --deb). Needs root, for apt-get; .ci/run runs it. Installs
# lintian and man-db if missing. Refuses to start when a locksim package is installed
# already: it would remove it.
set -euo pipefail
cd "$(dirname "$0")/.."
checkout=$PWD
build=${1:-build}

fail() { echo "deb_install_test: FAIL: $*" >&2; exit 1; }
# dpkg's state of locksim: "installed", "config-files", …, or "not-installed".
state() { local status; status=$(dpkg-query -W -f='${Status}' locksim 2>/dev/null) || status=not-installed; echo "${status##* }"; }
if [ "$(id -u)" -ne 0 ]; then
  echo "deb_install_test: needs root, to install the package with apt-get" >&2
  exit 2
fi
if [ "$(state)" != not-installed ]; then
  echo "deb_install_test: a locksim package is installed already; remove it first (apt-get remove locksim)" >&2
  exit 2
fi
scripts/install-packages.sh lintian man-db python3-yaml

deb=$(scripts/package-deb.sh "$build" | tail -n 1)
echo "deb_install_test: built $deb"

# What the package holds: each part, and the whole scenario library of the checkout.
contents=$(dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|')
for path in /usr/bin/locksim /usr/share/man/man1/locksim.1.gz /usr/share/bash-completion/completions/locksim \
            /usr/share/locksim/scenario.schema.json /usr/share/locksim/scenarios/gc-pause-40s.json \
            /usr/share/locksim/scenarios/examples/ledger-export.json /usr/share/locksim/scenarios/examples/gc-pauses.txt \
            /usr/share/doc/locksim/README.md /usr/share/doc/locksim/copyright /usr/share/doc/locksim/changelog.gz \
            /usr/share/doc/locksim/docs/command-line.md /usr/share/doc/locksim/docs/packaging.md \
            /usr/share/doc/locksim/docs/ci/github-actions.yml; do
  grep -qxF "$path" <<<"$contents" || fail "dpkg -c $deb does not list $path"
done
while IFS= read -r file; do
  grep -qxF "/usr/share/locksim/$file" <<<"$contents" || fail "the package lacks the library's $file"
done < <(find scenarios -name '*.json' ! -path 'scenarios/schema/*' | sort)
dpkg-deb -f "$deb" Depends | grep -q 'libfmt' || fail "Depends, from dpkg-shlibdeps, names no libfmt: $(dpkg-deb -f "$deb" Depends)"

# lintian: no error; each warning one that docs/packaging.md lists with its reason.
# It exits 2 when it finds an error, so any other failure is lintian's own.
lintian_status=0
lintian_out=$(lintian --tag-display-limit 0 --display-info "$deb" 2>&1) || lintian_status=$?
echo "$lintian_out" | sed 's/^/  lintian: /'
[ $lintian_status -eq 0 ] || [ $lintian_status -eq 2 ] || fail "lintian did not run (exit $lintian_status)"
if grep -q '^E: ' <<<"$lintian_out"; then fail "lintian reports errors"; fi
listed=$(sed -n '/<!-- lintian warnings: begin -->/,/<!-- lintian warnings: end -->/p' docs/packaging.md |
  sed -n 's/^| `\([a-z0-9-]*\)` .*/\1/p')
while read -r tag; do
  [ -n "$tag" ] || continue
  grep -qxF "$tag" <<<"$listed" || fail "lintian warns $tag, which docs/packaging.md does not list with its reason"
done < <(sed -n 's/^W: [^:]*: \([a-z0-9-]*\).*/\1/p' <<<"$lintian_out" | sort -u)

export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y -qq "$(realpath "$deb")" >/dev/null; then
  apt-get update -qq
  apt-get install -y -qq "$(realpath "$deb")" >/dev/null
fi
installed=$(dpkg-query -W -f='${Version}' locksim)
echo "deb_install_test: installed locksim $installed"

away=$(mktemp -d /tmp/locksim-deb-XXXXXX)
# A failure leaves no package behind either: this run installed it.
finish() {
  rm -rf "$away"
  if [ "$(state)" != not-installed ]; then apt-get purge -y -qq locksim >/dev/null; fi
}
trap finish EXIT
cd "$away"
[ "$(command -v locksim)" = /usr/bin/locksim ] || fail "locksim on PATH is $(command -v locksim), not /usr/bin/locksim"
[ "$(locksim --version)" = "$("$checkout/$build/locksim" --version)" ] ||
  fail "the installed locksim says $(locksim --version), the build $("$checkout/$build/locksim" --version)"
locksim check >check.out 2>check.err || fail "locksim check of the installed library failed: $(tail -n 5 check.out check.err)"
grep -q "reading the installed library, /usr/share/locksim/scenarios" check.err ||
  fail "check did not say it read the installed library: $(cat check.err)"
tail -n 1 check.out | grep -Eq '^[1-9][0-9]* passed, 0 failed, 0 unusable$' || fail "check printed: $(tail -n 1 check.out)"
echo "deb_install_test: from $away, locksim check: $(tail -n 1 check.out)"
locksim list 2>/dev/null | tail -n 1 | grep -q "locksim run /usr/share/locksim/scenarios/" ||
  fail "locksim list does not list the installed library"
[ "$(man -w locksim)" = /usr/share/man/man1/locksim.1.gz ] || fail "man -w locksim: $(man -w locksim 2>&1)"
cmp -s <(zcat /usr/share/man/man1/locksim.1.gz) <(locksim man) || fail "the installed man page is not what locksim man prints"
warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z /usr/share/man/man1/locksim.1.gz 2>&1 >/dev/null)
[ -z "$warnings" ] || fail "man --warnings: $warnings"
completed() {  # the words bash offers for the line "$@", completing its last word
  bash --norc --noprofile -c 'source /usr/share/bash-completion/completions/locksim
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _locksim; echo "${COMPREPLY[*]}"' completion "$@"
}
[ "$(completed locksim sw)" = sweep ] || fail "bash completes 'locksim sw' to '$(completed locksim sw)'"
designs=$(completed locksim run /usr/share/locksim/scenarios/gc-pause-40s.json --design '')
[ "$designs" = "unfenced fenced idempotent all" ] || fail "bash completes --design to '$designs'"
echo "deb_install_test: man -w locksim: $(man -w locksim); bash completes 'locksim sw' to sweep, --design to $designs"

cd "$checkout"
/usr/bin/python3 tests/ci_recipes_test.py --deb "$deb"

# Removed, then installed again and purged: each time none of its files is left, and dpkg
# forgets it (it has no configuration files, so remove alone does).
gone() {  # $1: how it went
  [ "$(state)" = not-installed ] || fail "dpkg still has locksim after $1: $(state)"
  local path left=0
  while IFS= read -r path; do
    case $path in /usr/share/locksim* | /usr/share/doc/locksim* | */locksim | */locksim.1.gz) ;; *) continue ;; esac
    if [ -e "$path" ] || [ -L "$path" ]; then echo "deb_install_test: left behind by $1: $path" >&2; left=1; fi
  done <<<"$contents"
  [ "$left" -eq 0 ] || fail "$1 left files behind"
  hash -r
  ! command -v locksim >/dev/null || fail "locksim is still on PATH after $1: $(command -v locksim)"
}
apt-get remove -y -qq locksim >/dev/null
gone "apt-get remove"
apt-get install -y -qq "$(realpath "$deb")" >/dev/null
apt-get purge -y -qq locksim >/dev/null
gone "apt-get purge"
echo "deb_install_test: removed, and installed again and purged; none of its $(grep -c . <<<"$contents") paths is left either time"
