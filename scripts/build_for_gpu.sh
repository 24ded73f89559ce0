#!/usr/bin/env bash
# Builds warpmatch for the lent GPU machine (preset `gpu-machine`: CUDA on, sm_90, static
# cudart, static libstdc++/libgcc; build folder .gpu-build/) and stages everything the GPU
# machine lacks into the git-ignored folder .device/, which the device tool carries:
#
#   .device/warpmatch.gz         CLI (stripped, gzip: unpacked by run_on_gpu.sh)
#   .device/warpmatch-bench.gz   the benchmarks (bench/; stripped, gzip); `warpmatch-bench e2e`
#                                times the warpmatch beside it
#   .device/warpmatch_tests.gz   GoogleTest binary, GPU tests included (stripped, gzip)
#   .device/rg                   ripgrep, the exact-search peer (the GPU machine has none)
#   .device/lib/                 rg's shared libraries that may be missing there (libpcre2-8)
#   .device/seqkit.gz            seqkit, the FASTA peer of `warpmatch-bench e2e` (gzip: unpacked by run_on_gpu.sh)
#   .device/zstd/                zstd and its libraries (lib/), the .zst peer's decompressor of
#                                `warpmatch-bench e2e`, with run-zstd (sets LD_LIBRARY_PATH for it alone);
#                                run_on_gpu.sh uses it only where the machine has no zstd
#   .device/words                word list for the generated benchmark text
#   .device/lambda_virus.fa.gz   a small genome (if present here)
#   .device/COMMIT               git commit of this build ("+dirty" when uncommitted changes)
#   .device/MANIFEST.txt         what was staged, sizes, toolchain
#
# Then, through the device tool (see bench/README.md):
#   run(command="bash scripts/run_on_gpu.sh all", carry=[".device"], timeout_s=600)
#
# With --python it stages, instead, the Python package for the GPU machine's Python (3.12;
# numpy and pytest are installed there, nothing can be fetched) into the git-ignored .device-python/:
#
#   .device-python/warpmatch-*-cp312-*.whl   the extension with CUDA (sm_90, static cudart and
#                                            libstdc++; imports on machines without a GPU too)
#   .device-python/lib/                      its shared libraries the GPU machine may lack
#   .device-python/wheels/                   test-only packages missing there (edlib, pyahocorasick,
#                                            dask, distributed and their missing dependencies)
#   .device-python/dask-cuda/                dask-cuda and its CUDA Python packages (~15 MB), for
#                                            run_on_gpu.sh dask's LocalCUDACluster smoke run
#   .device-python/MANIFEST.txt              what was staged, sizes
#
# built with a Python 3.12 found here (python3.12 on PATH or pyenv's; WARPMATCH_GPU_PYTHON names
# another) in the venv build/pyenv-gpu, tried here with the suite (GPU tests skip), then:
#   run(command="bash scripts/run_on_gpu.sh python", carry=[".device-python"], timeout_s=600)
#   run(command="bash scripts/run_on_gpu.sh dask", carry=[".device-python"], timeout_s=600)
#
# Usage: scripts/build_for_gpu.sh [-j N] [--python]
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

jobs=$(nproc)
python_only=0
while (($#)); do
  case "$1" in
    -j) jobs=$2; shift ;;
    --python) python_only=1 ;;
    *) echo "build_for_gpu.sh: unknown argument '$1' (-j N, --python)" >&2; exit 2 ;;
  esac
  shift
done

build=.gpu-build
stage=.device
limit_mib=64

say() { printf '\n== %s\n' "$*"; }

# Libraries every Linux with glibc has (and libgcc_s, which the GPU machine's compilers and
# Python bring): never carried, so they cannot shadow the machine's own newer copies.
is_system_lib() {
  case "$1" in
    linux-vdso.so*|ld-linux*|libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|libgcc_s.so*) return 0 ;;
    *) return 1 ;;
  esac
}
# Copies the non-system shared libraries of binary $1 into $2 (default $stage/lib).
carry_libs() {
  local bin=$1 dest=${2:-$stage/lib} name path
  while read -r name _ path _; do
    [[ -n ${path:-} && -f $path ]] || continue
    is_system_lib "$name" && continue
    cp -L "$path" "$dest/$name"
    echo "  carried $name (needed by $(basename "$bin"))"
  done < <(ldd "$bin" | grep '=>')
}
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
# Bytes that travel besides the carried folders: tracked + untracked-not-ignored files.
tree_bytes() { git ls-files -z -co --exclude-standard | du -cb --files0-from=- 2>/dev/null | tail -1 | cut -f1; }

# ---- --python: the package for the GPU machine's Python ---------------------------------------
if ((python_only)); then
  pystage=.device-python
  is_py312() { "$1" -c 'import sys; assert sys.version_info[:2] == (3, 12)' >/dev/null 2>&1; }
  py=${WARPMATCH_GPU_PYTHON:-}
  if [[ -z $py ]]; then
    # (python3.12 on PATH may be a pyenv shim that refuses to run: each is tried)
    for c in python3.12 "$HOME"/.pyenv/versions/3.12*/bin/python3.12; do
      if is_py312 "$c"; then py=$c; break; fi
    done
  fi
  if [[ -z $py ]] || ! is_py312 "$py"; then
    echo "error: no Python 3.12 here (the GPU machine's Python is 3.12.3): set WARPMATCH_GPU_PYTHON" >&2
    exit 1
  fi
  venv=build/pyenv-gpu
  say "build the cp312 wheel with CUDA ($py, venv $venv, -j $jobs)"
  [[ -x $venv/bin/python ]] || "$py" -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "scikit-build-core>=0.10" "nanobind>=2.0" \
    numpy pytest
  command -v nvcc >/dev/null || export PATH="/usr/local/cuda/bin:$PATH"
  rm -rf "$pystage"
  mkdir -p "$pystage/lib" "$pystage/wheels"
  # WARPMATCH_PORTABLE: libstdc++ and libgcc linked in, as for the CLI (the GPU machine's may be older).
  WARPMATCH_CUDA=ON CMAKE_ARGS="-DWARPMATCH_PORTABLE=ON -DCMAKE_CUDA_ARCHITECTURES=90" CMAKE_BUILD_PARALLEL_LEVEL=$jobs \
    "$venv/bin/python" -m pip wheel -q --disable-pip-version-check --no-build-isolation --no-deps -w "$pystage" .
  wheel=$(ls "$pystage"/warpmatch-*-cp312-*.whl)
  so_dir=$(mktemp -d)
  unzip -q -o "$wheel" 'warpmatch/_core*.so' -d "$so_dir"
  carry_libs "$so_dir"/warpmatch/_core*.so "$pystage/lib"
  rm -rf "$so_dir"

  say "test-only packages the GPU machine lacks (cp312 wheels, versions as in build/pyenv where present)"
  # numpy, pytest, pandas and pyarrow are on the GPU machine (device KINDS.md); dask's smaller
  # dependencies are carried too: its Python 3.12 lacked pyyaml (the dask step's first run).
  for name in edlib pyahocorasick stringzilla dask distributed partd locket tblib zict tornado importlib_metadata \
      pyyaml toolz cloudpickle fsspec click psutil msgpack sortedcontainers jinja2 markupsafe packaging zipp; do
    version=$("$venv/bin/python" -m pip show "$name" 2>/dev/null | awk '/^Version:/ {print $2}' || true)
    [[ -n $version || ! -x build/pyenv/bin/python ]] ||
      version=$(build/pyenv/bin/python -m pip show "$name" 2>/dev/null | awk '/^Version:/ {print $2}' || true)
    "$venv/bin/python" -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
      --python-version 3.12 --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
      --platform manylinux2014_x86_64 -d "$pystage/wheels" "$name${version:+==$version}" ||
      echo "  warning: no cp312 wheel of $name here; its tests will skip on the GPU machine"
  done

  # run_on_gpu.sh dask's LocalCUDACluster smoke run: dask-cuda and what it imports beyond the
  # machine's packages (nvidia-ml-py for pynvml; cuda-core, cuda-bindings 12, cuda-pathfinder
  # for its device queries), ~15 MB; dask itself is in wheels/ above. rapids-dask-dependency
  # (a pin of dask's version) is left out: installed --no-deps, and the step skips the smoke
  # run, saying why, when dask_cuda does not import.
  mkdir -p "$pystage/dask-cuda"
  for spec in dask-cuda==26.10.0 nvidia-ml-py cuda-core==1.2.2 "cuda-bindings==12.*" cuda-pathfinder; do
    "$venv/bin/python" -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
      --python-version 3.12 --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
      --platform manylinux2014_x86_64 -d "$pystage/dask-cuda" "$spec" ||
      echo "  warning: no cp312 wheel of $spec here; the dask step will skip its LocalCUDACluster run"
  done
  printf '  dask-cuda wheels: %s MiB\n' "$(mib "$(du -sb "$pystage/dask-cuda" | cut -f1)")"

  say "the staged wheels here (GPU tests skip: no GPU here)"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps "$wheel" "$pystage"/wheels/*.whl
  "$venv/bin/python" -m pip install -q --disable-pip-version-check pandas pyarrow toolz cloudpickle fsspec click psutil \
    msgpack sortedcontainers jinja2 pyyaml packaging
  LD_LIBRARY_PATH="$root/$pystage/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    "$venv/bin/python" -m pytest -q -rs -p no:cacheprovider python/tests
  {
    echo "warpmatch Python stage for the GPU machine, built $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
    echo "commit: $(git rev-parse HEAD)$(git diff --quiet HEAD -- 2>/dev/null || echo +dirty)"
    echo "python: $("$venv/bin/python" --version)   nvcc: $(nvcc --version | tail -1)"
    echo
    (cd "$pystage" && find . -type f -printf '%10s  %p\n' | sort -k2)
  } >"$pystage/MANIFEST.txt"
  cat "$pystage/MANIFEST.txt"
  stage_bytes=$(du -sb "$pystage" | cut -f1)
  total=$((stage_bytes + $(tree_bytes)))
  printf '\n%s: %s MiB   total carried with the working tree: %s MiB of %d MiB\n' "$pystage" "$(mib "$stage_bytes")" \
    "$(mib "$total")" "$limit_mib"
  if ((total > limit_mib * 1048576)); then
    echo "error: more than $limit_mib MiB would travel to the GPU machine" >&2
    exit 1
  fi
  echo
  echo 'next: device tool run(command="bash scripts/run_on_gpu.sh python", carry=[".device-python"], timeout_s=600)'
  echo '      device tool run(command="bash scripts/run_on_gpu.sh dask", carry=[".device-python"], timeout_s=600)'
  exit 0
fi

say "configure (preset gpu-machine -> $build)"
cmake --preset gpu-machine >/dev/null

say "build warpmatch + warpmatch-bench + warpmatch_tests (-j $jobs)"
cmake --build "$build" --target warpmatch_cli warpmatch_bench warpmatch_tests -j "$jobs"

cli_bin="$build/warpmatch"
bench_bin="$build/warpmatch-bench"
test_bin="$build/tests/warpmatch_tests"
for f in "$cli_bin" "$bench_bin" "$test_bin"; do
  [[ -x $f ]] || { echo "error: $f was not built" >&2; exit 1; }
done

say "stage into $stage/"
rm -rf "$stage"
mkdir -p "$stage/lib"
cp "$cli_bin" "$stage/warpmatch"
cp "$bench_bin" "$stage/warpmatch-bench"
cp "$test_bin" "$stage/warpmatch_tests"
strip --strip-all "$stage/warpmatch" "$stage/warpmatch-bench" "$stage/warpmatch_tests"

for f in "$stage/warpmatch" "$stage/warpmatch-bench" "$stage/warpmatch_tests"; do
  extra=$(ldd "$f" | awk '{print $1}' | while read -r n; do is_system_lib "${n##*/}" || echo "$n"; done)
  if [[ -n $extra ]]; then
    echo "  warning: $(basename "$f") needs non-system libraries, carrying them: $extra"
    carry_libs "$f"
  fi
done

if rg_path=$(command -v rg); then
  cp -L "$rg_path" "$stage/rg"
  carry_libs "$stage/rg"
else
  echo "  warning: no rg here; the benchmark's ripgrep rows will be skipped on the GPU machine"
fi

# Peers of `warpmatch-bench e2e` the GPU machine lacks: seqkit (a Go binary that needs only
# libc) and zstd, whose libraries (libzstd, liblzma, liblz4, libz) go to zstd/lib so that they
# never shadow the machine's own for other programs.
if seqkit_path=$(command -v seqkit); then
  cp -L "$seqkit_path" "$stage/seqkit"
  carry_libs "$stage/seqkit"
else
  echo "  warning: no seqkit here (apt-get install seqkit); warpmatch-bench e2e's FASTA peer will be skipped there"
fi
if zstd_path=$(command -v zstd); then
  mkdir -p "$stage/zstd/lib"
  cp -L "$zstd_path" "$stage/zstd/zstd"
  carry_libs "$stage/zstd/zstd" "$stage/zstd/lib"
  cat >"$stage/zstd/run-zstd" <<'WRAPPER'
#!/bin/sh
# zstd with the libraries carried next to it (for the GPU machine; see build_for_gpu.sh).
d=${0%/*}
LD_LIBRARY_PATH="$d/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$d/zstd" "$@"
WRAPPER
  chmod +x "$stage/zstd/run-zstd"
else
  echo "  warning: no zstd here; warpmatch-bench e2e's .zst peer will be skipped on a machine without zstd"
fi

if [[ -r /usr/share/dict/words ]]; then
  cp -L /usr/share/dict/words "$stage/words"
else
  echo "  warning: no /usr/share/dict/words; the benchmark will use its built-in pseudo-words"
fi
# Real data the tests read from Debian's paths (bowtie2-examples); run_on_gpu.sh puts them
# back at those paths on the GPU machine.
mkdir -p "$stage/data"
for f in /usr/share/doc/bowtie2/examples/reference/lambda_virus.fa.gz \
         /usr/share/doc/bowtie2/examples/reads/reads_1.fq.gz \
         /usr/share/doc/bowtie2/examples/reads/reads_2.fq.gz \
         /usr/share/doc/bowtie2/examples/reads/longreads.fq.gz; do
  [[ -r $f ]] && cp -L "$f" "$stage/data/"
done

commit=unknown
if git rev-parse --verify -q HEAD >/dev/null 2>&1; then
  commit=$(git rev-parse HEAD)
  git diff --quiet HEAD -- 2>/dev/null || commit="$commit+dirty"
fi
echo "$commit" >"$stage/COMMIT"

{
  echo "warpmatch GPU-machine stage, built $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
  echo "commit: $commit"
  echo "nvcc: $(nvcc --version 2>/dev/null | tail -1)"
  echo "g++: $(g++ --version | head -1)"
  echo "cuda architectures: $(grep -m1 '^CMAKE_CUDA_ARCHITECTURES' "$build/CMakeCache.txt" | cut -d= -f2)"
  glibc=$(objdump -T "$stage/warpmatch" "$stage/warpmatch-bench" "$stage/warpmatch_tests" 2>/dev/null |
          grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)
  echo "newest glibc symbol needed by warpmatch binaries: ${glibc:-?}"
  echo
  (cd "$stage" && find . -type f -printf '%10s  %p\n' | sort -k2)
} >"$stage/MANIFEST.txt"

say "smoke test here (no GPU here: GPU parts report none)"
"$stage/warpmatch" info || echo "  warning: '$stage/warpmatch info' failed here"
"$stage/warpmatch-bench" --help >/dev/null || echo "  warning: '$stage/warpmatch-bench --help' failed here"
[[ -x $stage/rg ]] && LD_LIBRARY_PATH="$root/$stage/lib" "$stage/rg" --version | sed -n 1p || true
[[ -x $stage/seqkit ]] && "$stage/seqkit" version || true
[[ -x $stage/zstd/run-zstd ]] && "$stage/zstd/run-zstd" --version || true

say "sizes"
cat "$stage/MANIFEST.txt"
# The CUDA binaries are ~28 MB each (seqkit 15 MB); gzip keeps the carried folder under the
# transfer limit (run_on_gpu.sh unpacks them on the GPU machine).
gzip -6 -f "$stage/warpmatch" "$stage/warpmatch-bench" "$stage/warpmatch_tests"
[[ -f $stage/seqkit ]] && gzip -6 -f "$stage/seqkit"
stage_bytes=$(du -sb "$stage" | cut -f1)
tree_bytes=$(tree_bytes)
total=$((stage_bytes + tree_bytes))
printf '\n%s: %s MiB   working tree (tracked + untracked, not ignored): %s MiB   total carried: %s MiB of %d MiB\n' \
  "$stage" "$(mib "$stage_bytes")" "$(mib "$tree_bytes")" "$(mib "$total")" "$limit_mib"
printf '(%s, not carried: %s)\n' "$build" "$(du -sh "$build" | cut -f1)"
if ((total > limit_mib * 1048576)); then
  echo "error: more than $limit_mib MiB would travel to the GPU machine" >&2
  exit 1
fi
if ((total > limit_mib * 1048576 * 3 / 4)); then
  echo "warning: over 3/4 of the $limit_mib MiB transfer limit"
fi
echo
echo 'next: device tool run(command="bash scripts/run_on_gpu.sh all", carry=[".device"], timeout_s=600)'
