#!/usr/bin/env bash
# Installs the Debian packages the build, the demo, the tests and the benchmark plots (gnuplot)
# need, when any is missing.
set -euo pipefail
packages=(cmake g++ make pkg-config libsqlite3-dev sqlite3 liblmdb-dev lmdb-utils libfmt-dev libre2-dev libssl-dev libzstd-dev catch2 dpkg-dev
          python3 python3-pytest gnuplot-nox)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
"${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
"${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
