#!/usr/bin/env bash
# CTest `install_consumer`: installs the build tree into a temporary prefix, then builds and
# runs tests/install_consumer/main.cpp against it twice: through the CMake package
# (find_package(warpmatch CONFIG) + warpmatch::warpmatch) and through pkg-config.
#
# Usage: run.sh BUILD_DIR CMAKE CXX [GENERATOR]   (tests/CMakeLists.txt passes its own)
set -euo pipefail

build=$1
cmake=${2:-cmake}
cxx=${3:-c++}
generator=${4:-}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/warpmatch-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

echo "-- cmake --install $build --prefix $tmp/prefix"
"$cmake" --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" || { cat "$tmp/install.log"; exit 1; }

echo "-- find_package(warpmatch CONFIG): configure, build, run"
gen=()
[[ -n $generator ]] && gen=(-G "$generator")
"$cmake" -S "$here" -B "$tmp/build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_CXX_COMPILER="$cxx" >"$tmp/configure.log" 2>&1 ||
  { cat "$tmp/configure.log"; exit 1; }
"$cmake" --build "$tmp/build" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }
"$tmp/build/consumer"

echo "-- pkg-config --cflags --libs warpmatch: compile, run"
pc=$(find "$tmp/prefix" -name warpmatch.pc -print -quit)
[[ -n $pc ]] || { echo "warpmatch.pc was not installed" >&2; exit 1; }
flags=$(PKG_CONFIG_PATH="$(dirname "$pc")" pkg-config --cflags --libs warpmatch)
echo "   $flags"
# shellcheck disable=SC2086  # the flags are words
"$cxx" -std=c++20 -O1 "$here/main.cpp" -o "$tmp/consumer_pc" $flags
"$tmp/consumer_pc"
