#!/usr/bin/env bash
# Runs sql/demo.sql in the sqlite3 shell, as the README does, and compares its output with
# sql/demo.expected (run_sql_script.sh does the work; see there).
#
#   tests/clients/run_demo.sh [--update] [EXTENSION]
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
if [[ "${1:-}" == "--update" ]]; then
  shift
  exec "$here/run_sql_script.sh" --update demo "$@"
fi
exec "$here/run_sql_script.sh" demo "$@"
