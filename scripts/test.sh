#!/usr/bin/env bash
# Builds everything with warnings as errors and runs every test (Catch2 unit tests, the Python
# client tests and the shell demo check) through ctest.
#   scripts/test.sh             the normal build, in build/
#   scripts/test.sh --sanitize  AddressSanitizer + UndefinedBehaviorSanitizer, in build-asan/
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
build=build
flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DDATALOG_WERROR=ON)
if [ "${1:-}" = "--sanitize" ]; then
  # GCC 12 warns falsely (-Wmaybe-uninitialized) inside std::variant under the sanitizers, so
  # that build does not turn warnings into errors.
  build=build-asan
  flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DDATALOG_SANITIZE=ON)
fi
cmake -S . -B "$build" "${flags[@]}" >/dev/null
cmake --build "$build" -j"$(nproc)"
cd "$build"
ctest --output-on-failure -j1
