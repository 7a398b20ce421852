#!/usr/bin/env bash
# Headless Chromium screenshot of the Dagster asset graph of the project's instance -> docs/ui-asset-graph.png
# (scripts/screenshot_ui.py drives the browser).
#
#   scripts/screenshot_ui.sh [OUTPUT.png]
#
# Uses the instance `make run` fills (DAGSTER_HOME = repository root). When it holds no published dataset yet,
# it first materializes the chain up to hub_dataset (`python -m pipelines.run --no-train`).
# Installs Debian's `chromium` package when it is missing. The webserver listens on 127.0.0.1 only and is
# stopped by its process group when the script ends.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
PY=${PY:-$ROOT/.venv/bin/python}
PORT=${PORT:-3077}
OUTPUT=${1:-docs/ui-asset-graph.png}
URL_PATH=${URL_PATH:-/asset-groups}  # the global asset lineage graph of Dagster 1.13
export DAGSTER_HOME=${DAGSTER_HOME:-$ROOT}

if ! command -v chromium >/dev/null 2>&1; then
    echo "installing Debian's chromium package"
    SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q chromium
fi

if ! "$PY" - <<'EOF'
import sys

import dagster as dg

with dg.DagsterInstance.get() as instance:
    sys.exit(0 if instance.get_latest_materialization_event(dg.AssetKey("hub_dataset")) else 1)
EOF
then
    echo "the instance in $DAGSTER_HOME has no published dataset yet: materializing up to hub_dataset first"
    "$PY" -m pipelines.run --no-train
fi

LOG=$(mktemp -t dagster-webserver.XXXXXX.log)
# setsid: the webserver and the code server it spawns get their own process group, stopped together below.
# Without job control (set +m) the background job is no group leader, so setsid runs it as $! itself.
set +m
setsid "$(dirname "$PY")/dagster-webserver" -m pipelines.definitions -h 127.0.0.1 -p "$PORT" >"$LOG" 2>&1 &
SERVER=$!
stop_server() {
    kill -TERM -- "-$SERVER" 2>/dev/null || true
    for _ in $(seq 20); do kill -0 "$SERVER" 2>/dev/null || break; sleep 0.5; done
    kill -KILL -- "-$SERVER" 2>/dev/null || true
}
trap stop_server EXIT

for i in $(seq 240); do
    if curl -fsS "http://127.0.0.1:$PORT/server_info" >/dev/null 2>&1; then break; fi
    if ! kill -0 "$SERVER" 2>/dev/null; then
        echo "dagster-webserver exited; its log ($LOG):" >&2; tail -n 40 "$LOG" >&2; exit 1
    fi
    if [ "$i" = 240 ]; then
        echo "dagster-webserver did not answer on port $PORT within 120 s; its log: $LOG" >&2; exit 1
    fi
    sleep 0.5
done

"$PY" scripts/screenshot_ui.py "http://127.0.0.1:$PORT" "$OUTPUT" --path "$URL_PATH"
