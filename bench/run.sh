#!/usr/bin/env bash
# Builds and runs the workload benchmark, then renders the report and the plots.
#
#   bench/run.sh           full run of the release build (build-release/, made by
#                          scripts/build-release.sh: about 5 minutes; the run about 3 more on a
#                          2-core machine): writes bench/results/<date>.json, docs/BENCHMARKS.md
#                          and docs/plots/*.png
#   bench/run.sh --quick   smoke run of the build in build/ (under a minute): the same outputs
#                          under build/bench-quick/,
#                          so a quick run never replaces the published report
#   extra arguments (after the mode) go to workload_bench, e.g. --only recursion
#   BENCH_NOTE="..." adds a remark on the run to the report (a busy machine, say)
#
# Needs gnuplot (scripts/install-deps.sh installs gnuplot-nox) and Debian's /usr/bin/python3.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=full
if [ "${1:-}" = "--quick" ]; then
  mode=quick
  shift
fi
scripts/install-deps.sh
# A full run measures the release build, the one the Debian package holds (profile-guided:
# scripts/build-release.sh). The smoke run only checks that every part runs: the quick build.
if [ "$mode" = full ]; then
  build=${BENCH_BUILD_DIR:-build-release}
  scripts/build-release.sh "$build"
  described="the release build: Release (-O3), profile-guided (scripts/build-release.sh)"
else
  build=${BENCH_BUILD_DIR:-build}
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  described="RelWithDebInfo (-O2 -g), no profile"
fi
cmake --build "$build" -j2 --target workload_bench datalog

stamp=$(date -u +%Y-%m-%d)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ "$mode" = quick ]; then
  out=build/bench-quick
  mkdir -p "$out"
  raw=$out/raw.json json=$out/$stamp.json md=$out/BENCHMARKS.md plots=$out/plots
  flags=(--quick)
  rerun="bench/run.sh --quick"
else
  mkdir -p bench/results docs/plots
  raw=bench/results/$stamp.raw.json json=bench/results/$stamp.json md=docs/BENCHMARKS.md plots=docs/plots
  flags=()
  rerun="bench/run.sh"
fi
# A partial run (extra arguments such as --only) need not hold every group.
require=${BENCH_REQUIRE-query,time_travel,recursion,negation,disjunction,aggregation,insert,open,concurrent,memory,fsync}
[ $# -gt 0 ] && require=""
scratch=$(mktemp -d "$PWD/$build/bench-scratch.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
rm -f "$plots"/*.png
start=$(date +%s)
"$build/bench/workload_bench" "${flags[@]}" --dir "$scratch" --out "$raw" "$@"
# The baseline timed again from another client (Python's sqlite3), quoted beside its figures.
check=$scratch/baseline-check.json
if [ "$mode" = quick ]; then
  /usr/bin/python3 bench/check_baseline.py --sizes 1000,10000 --chains 100 --calls 2000 --repeats 3 \
    --dir "$scratch" --out "$check"
else
  /usr/bin/python3 bench/check_baseline.py --dir "$scratch" --out "$check"
fi
/usr/bin/python3 bench/render.py "$raw" --json "$json" --markdown "$md" --plots "$plots" \
  --rerun "$rerun" --commit "$commit" --build "$described" --note "${BENCH_NOTE:-}" \
  --require "$require" --baseline-check "$check"
rm -f "$raw"
echo "bench/run.sh: $mode run took $(( $(date +%s) - start )) s; report $md, data $json"
