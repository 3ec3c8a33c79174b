#!/usr/bin/env bash
# Create .venv and install allfours with everything needed to train, evaluate and test.
# Safe to run again: it only installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
# CPU PyTorch first, pinned, so stable-baselines3 does not pull an unpinned multi-GB CUDA build.
# Override with TORCH_SPEC (e.g. TORCH_SPEC="torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu").
if ! .venv/bin/python -c "import torch" 2>/dev/null; then
    .venv/bin/pip install --quiet ${TORCH_SPEC:-torch==2.13.0}
fi
.venv/bin/pip install --quiet -e ".[train,dev]"
