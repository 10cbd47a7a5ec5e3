#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ with clang (AddressSanitizer + UndefinedBehaviorSanitizer,
# in build-fuzz/) and runs each for SECONDS (default 30), starting from its seed corpus in
# fuzz/corpus/<target>/ (new inputs go to build-fuzz/corpus/, never into the repository).
#   scripts/fuzz.sh [SECONDS] [TARGET...]
# A crash stops the run with its input in build-fuzz/ and a non-zero exit.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
missing=()
for p in clang-14 libclang-rt-14-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=()
  [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
seconds="${1:-30}"
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(edn script keys log_replay query_eval graph_open)
cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDATALOG_FUZZ=ON -DBUILD_TESTING=OFF \
  -DCMAKE_CXX_COMPILER=clang++-14 >/dev/null
# datalog_glue too: the extension's SQLite glue, which no fuzz target links, still compiles with clang.
cmake --build build-fuzz -j"$(nproc)" --target "${targets[@]/#/fuzz_}" datalog_glue
for t in "${targets[@]}"; do
  mkdir -p "build-fuzz/corpus/$t"
  echo "fuzz_$t: ${seconds} s"
  status=0
  (cd build-fuzz && "./fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
     -print_final_stats=1 "corpus/$t" "../fuzz/corpus/$t" > "fuzz_$t.log" 2>&1) || status=$?
  grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb|==[0-9]+==ERROR|SUMMARY|Done)" \
    "build-fuzz/fuzz_$t.log" || true
  # On a finding libFuzzer exits non-zero and leaves the input as build-fuzz/crash-* (or leak-*,
  # timeout-*, oom-*).
  if [ "$status" -ne 0 ]; then
    echo "fuzz_$t found a crash, a leak, a timeout or an out-of-memory: build-fuzz/fuzz_$t.log" >&2
    exit 1
  fi
done
