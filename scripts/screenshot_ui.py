"""Screenshot the asset graph of a running Dagster webserver with headless Chromium (driven over DevTools).

    python scripts/screenshot_ui.py http://127.0.0.1:3077 docs/ui-asset-graph.png

`scripts/screenshot_ui.sh` starts the webserver and calls this. The page is the one a user sees once the
welcome dialog is dismissed: every asset group expanded, navigation and asset tree hidden so that the graph
fills the picture. It waits until every asset of the graph is drawn, so a loading page is never saved.
"""

from __future__ import annotations

import argparse
import base64
import itertools
import json
import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
from websockets.sync.client import ClientConnection, connect

WIDTH, HEIGHT = 1600, 640  # wide and short: the chain is a long row
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run", "--hide-scrollbars", f"--window-size={WIDTH},{HEIGHT}",
    "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
]
NODES_QUERY = "{ assetNodes { assetKey { path } groupName repository { name location { name } } } }"
# Clicked in the page once the graph is drawn: the app navigation, then the graph's asset-tree panel.
HIDE_PANELS = """
(() => {
  const buttons = Array.from(document.querySelectorAll('button'));
  const nav = buttons.find(b => b.innerText.trim() === 'Hide navigation');
  if (nav) nav.click();
  const tree = buttons.find(b => !b.innerText.trim() && b.className.includes('Button_filled')
      && b.querySelector('[aria-label="panel_show_right"]'));
  if (tree) tree.click();
  return Boolean(nav) + Boolean(tree);
})()
"""


# True once every name of the JSON list is the label of a node of the SVG graph; long labels are shortened
# in the middle ("teac…_trajectories").
ALL_DRAWN = """
((names) => {
  const tokens = Array.from(document.querySelectorAll('svg foreignObject'))
      .flatMap(f => f.textContent.split(/\\s+/)).filter(Boolean);
  const shows = (name) => tokens.some(t => {
    if (t === name) return true;
    const [head, tail] = t.split('\u2026');
    return tail !== undefined && name.startsWith(head) && name.endsWith(tail);
  });
  return names.every(shows);
})(%s)
"""


class DevTools:
    """A minimal Chrome DevTools Protocol client for one page."""

    def __init__(self, socket: ClientConnection) -> None:
        self.socket = socket
        self.ids = itertools.count(1)

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        call_id = next(self.ids)
        self.socket.send(json.dumps({"id": call_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("id") == call_id:
                if "error" in message:
                    raise RuntimeError(f"DevTools {method}: {message['error']}")
                return dict(message.get("result", {}))

    def evaluate(self, expression: str) -> Any:
        return self.call("Runtime.evaluate", expression=expression, returnByValue=True)["result"].get("value")


def double_click(tools: DevTools, x: int, y: int) -> None:
    for count in (1, 2):
        for kind in ("mousePressed", "mouseReleased"):
            tools.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=count)


def graph_url(base: str, path: str) -> tuple[str, list[str]]:
    """Dismiss the welcome dialog (what its Skip button does); the graph URL with every group expanded, and the
    asset names it must show."""
    httpx.post(f"{base}/graphql", json={"query": "mutation { setNuxSeen }"}, timeout=30).raise_for_status()
    response = httpx.post(f"{base}/graphql", json={"query": NODES_QUERY}, timeout=60)
    response.raise_for_status()
    nodes = response.json()["data"]["assetNodes"]
    groups = set()
    for node in nodes:
        repo = node["repository"]
        # Group ids of the graph: global ones, and per code location when that UI feature flag is on.
        groups.add(f"global@global:{node['groupName']}")
        groups.add(f"{repo['name']}@{repo['location']['name']}:{node['groupName']}")
    names = sorted("/".join(n["assetKey"]["path"]) for n in nodes)
    return f"{base}{path}?expanded={quote(','.join(sorted(groups)), safe='@:,')}", names


def wait_for(tools: DevTools, expression: str, timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not tools.evaluate(expression):
        if time.monotonic() > deadline:
            raise TimeoutError(f"the page did not show {what} within {timeout_s:.0f}s")
        time.sleep(0.25)


def screenshot(base: str, output: Path, path: str = "/asset-groups", timeout_s: float = 90.0) -> str:
    """Save a PNG of the asset graph page of the webserver at `base`; return the URL shot."""
    url, names = graph_url(base, path)
    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    browser = subprocess.Popen(
        ["chromium", *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    try:
        port_file = Path(profile) / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not port_file.exists() or not port_file.read_text().strip():
            if browser.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("chromium did not start; run it by hand with the flags above to see why")
            time.sleep(0.1)
        port = int(port_file.read_text().split()[0])
        page = next(t for t in httpx.get(f"http://127.0.0.1:{port}/json/list", timeout=10).json()
                    if t["type"] == "page")
        with connect(page["webSocketDebuggerUrl"], max_size=None) as socket:
            tools = DevTools(socket)
            tools.call("Emulation.setDeviceMetricsOverride", width=WIDTH, height=HEIGHT, deviceScaleFactor=1,
                       mobile=False)
            tools.call("Page.enable")
            tools.call("Page.navigate", url=url)
            wait_for(tools, ALL_DRAWN % json.dumps(names), timeout_s, "every asset of the graph")
            tools.evaluate(HIDE_PANELS)
            time.sleep(0.5)
            double_click(tools, WIDTH // 2, 140)  # on the graph's background: zoom to fit the enlarged view
            time.sleep(1.5)  # the zoom is animated
            shot = tools.call("Page.captureScreenshot", format="png")
        output.parent.mkdir(parents=True, exist_ok=True)
        temp = output.with_suffix(".tmp.png")
        temp.write_bytes(base64.b64decode(shot["data"]))
        os.replace(temp, output)
        return url
    finally:
        os.killpg(browser.pid, signal.SIGTERM)
        browser.wait(timeout=20)
        subprocess.run(["rm", "-rf", profile], check=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("base", help="the webserver, e.g. http://127.0.0.1:3077")
    parser.add_argument("output", type=Path, help="where to write the PNG")
    parser.add_argument("--path", default="/asset-groups", help="page of the UI (default: global asset lineage)")
    args = parser.parse_args()
    print(f"screenshot of {screenshot(args.base, args.output, args.path)} -> {args.output}")


if __name__ == "__main__":
    main()
