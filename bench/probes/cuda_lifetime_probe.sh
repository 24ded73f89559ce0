#!/usr/bin/env bash
# Runs cuda_lifetime_probe.cu's modes, interleaved, ROUNDS times each, on the GPU machine, and
# prints each process's wall (fork to reaped) next to what it measured in itself; also the
# card's persistence mode (read only). From the repository root:
#   [MODES="init hold-init ..."] bash bench/probes/cuda_lifetime_probe.sh [ROUNDS]
set -euo pipefail
rounds=${1:-5}
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
exe=/tmp/cuda_lifetime_probe
"$nvcc" -O2 -std=c++17 -arch=sm_90 -o "$exe" bench/probes/cuda_lifetime_probe.cu cli/process_end.cpp -lcuda
nvidia-smi --query-gpu=name,persistence_mode,driver_version --format=csv,noheader || true
for ((r = 1; r <= rounds; ++r)); do
  for mode in ${MODES:-none init ctx alloc reset release hold-init hold-alloc}; do
    python3 - "$exe" "$mode" <<'PY'
import subprocess, sys, time
t0 = time.perf_counter()
p = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, text=True)
wall = (time.perf_counter() - t0) * 1e3
print(f"{sys.argv[2]:8s} wall {wall:7.1f} ms | {p.stdout.strip()}", flush=True)
PY
  done
done
