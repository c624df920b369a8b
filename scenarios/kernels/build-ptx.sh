#!/usr/bin/env bash
# Regenerates scenarios/kernels/<name>.ptx from every scenarios/kernels/<name>.cu with the
# project's one nvcc command line (test/kernels/ptx-staleness.test.ts checks the results).
# Usage: scenarios/kernels/build-ptx.sh   (from any directory; needs nvcc on PATH)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
if ! command -v nvcc >/dev/null 2>&1; then
  echo "build-ptx.sh: nvcc not found on PATH" >&2
  exit 1
fi
for cu in scenarios/kernels/*.cu; do
  name="$(basename "$cu" .cu)"
  echo "nvcc -ptx -arch=compute_75 -o scenarios/kernels/${name}.ptx scenarios/kernels/${name}.cu"
  nvcc -ptx -arch=compute_75 -o "scenarios/kernels/${name}.ptx" "scenarios/kernels/${name}.cu"
done
