#!/usr/bin/env bash
# Runs sql/demo.sql in the sqlite3 shell, as the README does, and compares its output with
# sql/demo.expected.
#
#   tests/clients/run_demo.sh [--update] [EXTENSION]
#
# EXTENSION is the built datalog.so (default: build/datalog.so of this repository). The demo
# runs in a fresh temporary folder holding build/datalog.so (a link to EXTENSION), so its
# `.load ./build/datalog` and its demo.db -> demo.graph work as they do from the repository
# root. --update rewrites sql/demo.expected from this run instead of comparing.
set -euo pipefail

repo="$(cd "$(dirname "$0")/../.." && pwd)"
update=0
if [[ "${1:-}" == "--update" ]]; then
  update=1
  shift
fi
extension="${1:-$repo/build/datalog.so}"
[[ "$extension" == *.so ]] || extension="$extension.so"
sqlite="${SQLITE3:-/usr/bin/sqlite3}"

if [[ ! -f "$extension" ]]; then
  echo "run_demo.sh: no extension at $extension (build the datalog target first)" >&2
  exit 1
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/datalog-demo-XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir "$work/build"
ln -s "$(cd "$(dirname "$extension")" && pwd)/$(basename "$extension")" "$work/build/datalog.so"

status=0
(cd "$work" && "$sqlite" demo.db < "$repo/sql/demo.sql" > "$work/out" 2> "$work/err") || status=$?
if [[ $status -ne 0 || -s "$work/err" ]]; then
  echo "run_demo.sh: sqlite3 exited with $status; its errors:" >&2
  cat "$work/err" >&2
  exit 1
fi
if [[ ! -f "$work/demo.graph" ]]; then
  echo "run_demo.sh: the demo did not create demo.graph beside demo.db" >&2
  exit 1
fi

if [[ $update -eq 1 ]]; then
  cp "$work/out" "$repo/sql/demo.expected"
  echo "run_demo.sh: wrote sql/demo.expected"
  exit 0
fi
if ! diff -u "$repo/sql/demo.expected" "$work/out"; then
  echo "run_demo.sh: the demo's output differs from sql/demo.expected (see the diff above;" \
       "--update rewrites it)" >&2
  exit 1
fi
echo "run_demo.sh: demo output matches sql/demo.expected"
