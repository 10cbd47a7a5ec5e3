#!/usr/bin/env bash
# Builds the extension and runs the demo (sql/demo.sql) in the sqlite3 shell on demo.db, whose
# graph is demo.graph beside it. Leaves demo.db/demo.graph for you to explore:
#   sqlite3 demo.db -cmd '.load ./build/datalog'
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" --target datalog
rm -f demo.db demo.db-wal demo.db-shm demo.db-g.graph demo.db-g.graph-lock demo.db-g.graph-sync
sqlite3 demo.db < sql/demo.sql
