#!/usr/bin/env bash
# The man page and the bash completion the package installs (`locksim man` and `locksim
# bash-completion` print them; tests/deb_install_test.sh checks the installed ones are
# those) describe the program as its --help does: read back independently of the code
# that writes them.
#   tests/man_and_completion_test.sh build/locksim
# 1. The page's commands are the ones `locksim --help` lists, and under each command's
#    heading are exactly the options and positionals `locksim COMMAND --help` lists; it has
#    the sections a man page has (SYNOPSIS … EXAMPLES) and every exit code.
# 2. man renders it without a warning (as lintian checks it).
# 3. In a real bash, the completion offers every command for `locksim ''`, `sweep` for
#    `locksim sw`, exactly each command's options for `locksim COMMAND -`, the choices of
#    --format, the designs of the file on the line for --design, and folders for a path.
set -euo pipefail
locksim=$(realpath "$1")
cd "$(dirname "$0")/.."
status=0
fail() { echo "man_and_completion_test: FAIL: $*" >&2; status=1; }
written=$(mktemp -d)
trap 'rm -rf "$written"' EXIT
page=$written/locksim.1
completion=$written/locksim.bash
"$locksim" man >"$page"
"$locksim" bash-completion >"$completion"

# 1. --help's commands: the lines under "Subcommands:"; a command's options and positionals:
# the names that start the lines under "Options:" and "Positionals:".
commands=$("$locksim" --help | awk '/^Subcommands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
[ "$(wc -l <<<"$commands")" -ge 10 ] || fail "locksim --help lists only: $commands"
help_names() {
  "$locksim" "$@" --help | awk '/^(Options|Positionals):/ { on = 1; next } /^$/ { on = 0 }
    on && /^  [^ ]/ { split($1, names, ","); for (i in names) print names[i] }' | sort
}
# The page's names: the tags of .TP entries, \- made -, fonts dropped.
page_names() {  # $1: the section heading's command ("" for the program's own options)
  awk -v want="$1" '
    /^\.S[HS] / { if ($1 == ".SS") { split($0, h, " "); heading = h[3] } else { heading = ($2 == "OPTIONS") ? "" : "-" } }
    tag { tag = 0; if (heading == want) print }
    /^\.TP$/ { tag = 1 }' "$page" |
    sed 's/\\-/-/g; s/\\f[BIR]//g; s/, /,/g; s/ .*//' | tr ',' '\n' | sed '/^$/d' | sort
}
sections=$(sed -n 's/^\.SH //p' "$page" | tr '\n' ' ')
[ "$sections" = "NAME SYNOPSIS DESCRIPTION OPTIONS COMMANDS EXIT STATUS FILES EXAMPLES SEE ALSO " ] ||
  fail "the page's sections are: $sections"
page_commands=$(sed -n 's/^\.SS "locksim \([a-z-]*\) .*/\1/p' "$page")
[ "$page_commands" = "$commands" ] || fail "the page's commands ($(echo $page_commands)) are not --help's ($(echo $commands))"
[ "$(page_names "")" = "$(help_names)" ] || fail "the page's own options differ from locksim --help's"
for command in $commands; do
  diff <(help_names "$command") <(page_names "$command") >/dev/null ||
    fail "locksim $command: --help's options (<) and the page's (>) differ: $(diff <(help_names "$command") <(page_names "$command") | grep '^[<>]' | tr '\n' ' ')"
  grep -q "^\.B locksim $command\$" "$page" || fail "the SYNOPSIS lacks locksim $command"
done
for code in 0 1 2 3; do
  sed -n '/^\.SH EXIT STATUS/,/^\.SH FILES/p' "$page" | grep -qx "\.B $code" || fail "EXIT STATUS lacks exit code $code"
done
grep -q '^locksim run scenarios/gc\\-pause\\-40s.json' "$page" || fail "EXAMPLES lacks run's example"

# 2.
if command -v man >/dev/null; then
  warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$page" 2>&1 >/dev/null)
  [ -z "$warnings" ] || fail "man --warnings: $warnings"
else
  fail "man is not installed (apt-get install man-db, or ./setup.sh --tests)"
fi

# 3.
completed() {  # the words bash offers for the line "$@", completing its last word, one a line
  bash --norc --noprofile -c 'source "$0"; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _locksim
    printf "%s\n" "${COMPREPLY[@]}"' "$completion" "$@" | sed '/^$/d' | sort
}
[ "$(completed locksim '')" = "$( (echo "$commands"; echo --help; echo --version; echo -h) | sort)" ] ||
  fail "locksim '': bash offers $(completed locksim '' | tr '\n' ' ')"
[ "$(completed locksim sw)" = sweep ] || fail "locksim sw: bash offers $(completed locksim sw | tr '\n' ' ')"
for command in $commands; do
  [ "$(completed locksim "$command" -)" = "$(help_names "$command" | grep '^-')" ] ||
    fail "locksim $command -: bash offers $(completed locksim "$command" - | tr '\n' ' ')"
done
[ "$(completed locksim run --format '')" = "$(printf '%s\n' json mermaid perfetto text trace)" ] ||
  fail "locksim run --format: bash offers $(completed locksim run --format '' | tr '\n' ' ')"
designs=$(cd scenarios && PATH=$(dirname "$locksim"):$PATH completed locksim run gc-pause-40s.json --design f)
[ "$designs" = fenced ] || fail "locksim run gc-pause-40s.json --design f: bash offers $designs"
designs=$(cd scenarios && PATH=$(dirname "$locksim"):$PATH completed locksim sweep gc-pause-40s.json --design '')
[ "$designs" = "$(printf '%s\n' fenced idempotent unfenced)" ] || fail "sweep --design: bash offers $designs"
# A design's name is the file's, not the program's: bash must neither run nor expand it
# when it offers it, and offers it quoted so the line it completes runs nothing either.
hostile=$(mktemp -d)
marker=$hostile/ran
python3 - "$PWD/scenarios/gc-pause-40s.json" "$hostile/hostile.json" "$marker" <<'PY'
import json, sys
text = json.load(open(sys.argv[1]))
names = ["$(touch${IFS}%s)" % sys.argv[3], "`touch ${IFS}%s`" % sys.argv[3], "f*"]
text["designs"] = dict(zip(names, text["designs"].values()))
text.pop("explore", None); text.pop("sweep", None); text.pop("study", None)
json.dump(text, open(sys.argv[2], "w"))
PY
offered=$(cd "$hostile" && PATH=$(dirname "$locksim"):$PATH completed locksim run hostile.json --design '')
[ ! -e "$marker" ] || fail "completing --design ran a command from a design's name"
expected=$(printf '%q\n' "\$(touch\${IFS}$marker)" "\`touch \${IFS}$marker\`" 'f*' all | sort)
[ "$offered" = "$expected" ] || fail "run hostile.json --design: bash offers $offered, not $expected"
offered=$(cd "$hostile" && PATH=$(dirname "$locksim"):$PATH completed locksim sweep hostile.json --design 'f')
[ "$offered" = 'f\*' ] || fail "sweep hostile.json --design f: bash offers $offered"
[ ! -e "$marker" ] || fail "completing --design ran a command from a design's name"
rm -r "$hostile"
scenario_files=$(cd scenarios && completed locksim check ex)
[ "$scenario_files" = examples ] || fail "locksim check ex: bash offers $scenario_files"

[ $status -eq 0 ] && echo "man_and_completion_test: the page and the completion cover $(wc -l <<<"$commands") commands and their options as --help lists them"
exit $status
