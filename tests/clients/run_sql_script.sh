#!/usr/bin/env bash
# Runs sql/NAME.sql in the sqlite3 shell, as a user would from the repository root, and compares
# what the shell prints with sql/NAME.expected.
#
#   tests/clients/run_sql_script.sh [--update] NAME [EXTENSION]
#
# NAME is a script of sql/ without its suffix (demo, walkthrough). EXTENSION is the built
# datalog.so (default: build/datalog.so of this repository). The script runs in a fresh
# temporary folder holding build/datalog.so (a link to EXTENSION), on NAME.db there, so its
# `.load ./build/datalog` and its NAME.db -> NAME.graph work as they do from the repository root,
# and nothing is left behind. The shell's error messages are part of the compared output, in the
# place the shell prints them: a script that shows an error on purpose has it in NAME.expected,
# and an unexpected error shows up in the diff. --update rewrites sql/NAME.expected from this run
# instead of comparing.
set -euo pipefail

repo="$(cd "$(dirname "$0")/../.." && pwd)"
me="$(basename "$0")"
update=0
if [[ "${1:-}" == "--update" ]]; then
  update=1
  shift
fi
if [[ $# -lt 1 ]]; then
  echo "usage: $me [--update] NAME [EXTENSION]   (runs sql/NAME.sql)" >&2
  exit 2
fi
name="$1"
script="$repo/sql/$name.sql"
expected="$repo/sql/$name.expected"
extension="${2:-$repo/build/datalog.so}"
[[ "$extension" == *.so ]] || extension="$extension.so"
sqlite="${SQLITE3:-/usr/bin/sqlite3}"

if [[ ! -f "$script" ]]; then
  echo "$me: no script $script" >&2
  exit 1
fi
if [[ ! -f "$extension" ]]; then
  echo "$me: no extension at $extension (build the datalog target first)" >&2
  exit 1
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/datalog-$name-XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir "$work/build"
ln -s "$(cd "$(dirname "$extension")" && pwd)/$(basename "$extension")" "$work/build/datalog.so"

# The shell exits with 1 when a statement failed (the comparison decides whether that was
# expected); anything else (a crash, a signal) is a failure whatever it printed.
status=0
(cd "$work" && "$sqlite" "$name.db" < "$script" > "$work/out" 2>&1) || status=$?
if [[ $status -ne 0 && $status -ne 1 ]]; then
  echo "$me: sqlite3 exited with $status running sql/$name.sql; its output:" >&2
  cat "$work/out" >&2
  exit 1
fi
if [[ ! -f "$work/$name.db-g.graph" ]]; then
  echo "$me: sql/$name.sql did not create $name.db-g.graph (the index of table g) beside $name.db" >&2
  exit 1
fi

if [[ $update -eq 1 ]]; then
  cp "$work/out" "$expected"
  echo "$me: wrote sql/$name.expected"
  exit 0
fi
if [[ ! -f "$expected" ]]; then
  echo "$me: no sql/$name.expected to compare with (--update writes it)" >&2
  exit 1
fi
if ! diff -u "$expected" "$work/out"; then
  echo "$me: the output of sql/$name.sql differs from sql/$name.expected (see the diff above;" \
       "--update rewrites it)" >&2
  exit 1
fi
echo "$me: sql/$name.sql output matches sql/$name.expected"
