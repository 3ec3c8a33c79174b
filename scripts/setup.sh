#!/usr/bin/env bash
# Create .venv and install allfours with everything needed to train (Stable-Baselines3 and Ray
# RLlib), evaluate, run the batched JAX core, serve the browser app (allfours-serve) and test.
# Safe to run again: it only installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"

pip_install() {
    # pip's own warnings about unusable local index folders (some machines' pip.conf) are noise here.
    .venv/bin/pip install --quiet "$@" 2> >(grep -v "is ignored: it is neither a file nor a directory" >&2)
}

step() { echo "setup: $*"; }

if [ ! -x .venv/bin/python ]; then
    step "creating the virtual environment .venv with $("$PYTHON" --version 2>&1)"
    "$PYTHON" -m venv .venv
else
    step "using the virtual environment .venv"
fi
# CPU PyTorch first, pinned, so stable-baselines3 does not pull an unpinned multi-GB CUDA build.
# Override with TORCH_SPEC, e.g. TORCH_SPEC="torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu".
if ! .venv/bin/python -c "import torch" 2>/dev/null; then
    step "installing PyTorch (${TORCH_SPEC:-torch==2.13.0}, CPU; the largest download, a minute or more)"
    # shellcheck disable=SC2086
    pip_install ${TORCH_SPEC:-torch==2.13.0}
else
    step "PyTorch is installed"
fi
step "installing allfours with its training (Stable-Baselines3), cluster (Ray RLlib), batched core (JAX), browser (Starlette) and test extras"
pip_install -e ".[train,rllib,jax,web,dev]"
step "done: run commands with .venv/bin/python"
