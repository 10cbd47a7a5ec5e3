#!/usr/bin/env bash
# Packaging test: the release build (scripts/build-release.sh) with libdatalog.a, installed into a
# temporary prefix and packed as a .deb; the installed extension is loaded from there by the
# sqlite3 shell, Python and (when node and better-sqlite3 are available) Node; a C program links
# libdatalog.a through pkg-config; the .deb holds the same files. Prints what it checked; any
# failure stops it.
#   scripts/install_test.sh [WORKDIR]     (default: a new temporary folder)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
scripts/install-deps.sh
work=${1:-$(mktemp -d)}
mkdir -p "$work"
build=build-release
scripts/build-release.sh "$build" -DDATALOG_STATIC=ON -DBUILD_TESTING=OFF
cmake --build "$build" -j"$(nproc)" --target datalog datalog_static
prefix=$work/prefix
rm -rf "$prefix"
cmake --install "$build" --prefix "$prefix" --strip >/dev/null
libdir=$(cd "$build" && sed -n 's/^CMAKE_INSTALL_LIBDIR:PATH=//p' CMakeCache.txt)
ext=$prefix/$libdir/sqlite3/datalog
for f in "$ext.so" "$prefix/include/datalog.h" "$prefix/include/datalog_version.h" \
         "$prefix/$libdir/libdatalog.a" "$prefix/$libdir/pkgconfig/sqlite-datalog.pc"; do
  [ -f "$f" ] || { echo "missing after install: $f"; exit 1; }
done
echo "installed: $(du -h "$ext.so" | cut -f1) extension (stripped), header, libdatalog.a, pkg-config file"
version=$(sed -n 's/^#define DATALOG_VERSION "\(.*\)"/\1/p' "$prefix/include/datalog_version.h")

query="SELECT c1 FROM datalog_q('g', '(query [:find ?n :where [:alice :knows ?f] [?f :name ?n]])');"
facts="SELECT datalog_exec('g', '(transact [[:alice :name \"Alice\"] [:alice :knows :bob] [:bob :name \"Bob\"]])');"
expect() {  # name, expected, actual
  if [ "$2" != "$3" ]; then echo "$1: expected [$2], got [$3]"; exit 1; fi
  echo "$1: ok"
}

rm -f "$work"/shell.db*
got=$(sqlite3 "$work/shell.db" ".load $ext" "CREATE VIRTUAL TABLE g USING datalog;" "$facts" "$query" \
      "SELECT datalog_version();" | tail -2 | tr '\n' ' ')
expect "sqlite3 shell" "Bob $version " "$got"

rm -f "$work"/py.db*
got=$(/usr/bin/python3 - "$ext" "$work/py.db" "$facts" "$query" <<'PY'
import sqlite3, sys
ext, path, facts, query = sys.argv[1:]
conn = sqlite3.connect(path)
conn.enable_load_extension(True)
conn.load_extension(ext)
conn.execute("CREATE VIRTUAL TABLE g USING datalog")
conn.execute(facts)
print(conn.execute(query).fetchone()[0], conn.execute("SELECT datalog_version()").fetchone()[0])
PY
)
expect "python3 sqlite3" "Bob $version" "$got"

# Node: better-sqlite3 from npm into build/node (compiled there: a few minutes, once).
node_modules=${DATALOG_NODE_MODULES:-}
if [ -z "$node_modules" ] && command -v node >/dev/null && command -v npm >/dev/null; then
  if [ ! -d "$root/build/node/node_modules/better-sqlite3" ]; then
    timeout 900 npm install --silent --prefix "$root/build/node" better-sqlite3@12 >/dev/null 2>&1 || true
  fi
  [ -d "$root/build/node/node_modules/better-sqlite3/build/Release" ] && node_modules=$root/build/node/node_modules
fi
if [ -n "$node_modules" ]; then
  rm -f "$work"/node.db*
  got=$(NODE_PATH=$node_modules node - "$ext" "$work/node.db" "$facts" "$query" <<'JS'
const Database = require("better-sqlite3");
const [ext, path, facts, query] = process.argv.slice(2);
const db = new Database(path);
db.loadExtension(ext);
db.exec("CREATE VIRTUAL TABLE g USING datalog");
db.prepare(facts).get();
console.log(db.prepare(query).pluck().get(), db.prepare("SELECT datalog_version()").pluck().get());
JS
)
  expect "node better-sqlite3" "Bob $version" "$got"
else
  echo "node better-sqlite3: skipped (no node and npm, or better-sqlite3 12 did not install; DATALOG_NODE_MODULES names a node_modules that has it)"
fi

export PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig
# shellcheck disable=SC2046
cc -O1 -o "$work/static_app" tests/install/static_app.c $(pkg-config --cflags sqlite-datalog) \
   $(pkg-config --libs --static sqlite-datalog)
got=$("$work/static_app" | tr '\n' ' ')
expect "static link (libdatalog.a, sqlite3_auto_extension)" "transacted: tx 1, 3 datoms Bob $version " "$got"

(cd "$build" && cpack -G DEB >/dev/null)
deb=$(ls "$build"/sqlite-datalog_"$version"_*.deb)
contents=$(dpkg-deb -c "$deb" | awk '{print $6}' | grep -E 'datalog\.so$|datalog\.h$|libdatalog\.a$|sqlite-datalog\.pc$' | sort | tr '\n' ' ')
expect "deb contents" "./usr/include/datalog.h ./usr/$libdir/libdatalog.a ./usr/$libdir/pkgconfig/sqlite-datalog.pc ./usr/$libdir/sqlite3/datalog.so " "$contents"
echo "deb depends: $(dpkg-deb -f "$deb" Depends)"
rm -rf "$work/deb"
dpkg-deb -x "$deb" "$work/deb"
got=$(sqlite3 :memory: ".load $work/deb/usr/$libdir/sqlite3/datalog" "SELECT datalog_version();")
expect "sqlite3 shell, from the unpacked .deb" "$version" "$got"
echo "install test passed: $deb"
