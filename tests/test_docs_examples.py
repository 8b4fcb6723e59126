"""Every Python block of the README and of the docs runs as written.

A block is a program of its own: it runs in a fresh interpreter, in a folder
of its own where ``examples/`` holds the streams the blocks read, once on each
backend (``AGENTCODEC_BACKEND``), and must exit cleanly. A block of
``>>>`` lines is a doctest: its output is checked too.

An HTML comment on the line before a block (invisible on the page) says what
else the block needs:

- ``<!-- example: gateway -->``: ``agentcodec gateway`` answering at
  http://127.0.0.1:8000 with its demo agent. The test starts one on a free port
  and points the block's address at it.
- ``<!-- example: server POST /path -->``: the block is a server listening on
  port 8000 (a free port here); the test sends it that request with a JSON body
  and reads its event stream to the end.
- ``<!-- example: shell -->`` on a ``sh`` block: its commands run in bash, with
  the ``agentcodec`` command of this environment; ``<!-- example: shell,
  gateway -->`` with the gateway beside them.

Blocks in other languages, and ``sh`` blocks without the comment (an install,
a command that serves until stopped), are for reading only.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import httpx
import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
# The address the blocks name, and the one they are pointed at instead.
ADDRESS = "127.0.0.1:8000"
TIMEOUT = 120

_BLOCK = re.compile(
    r"(?:<!-- example: (?P<needs>[^>]*?) -->\n)?^```(?P<language>\w*)\n(?P<code>.*?)^```$",
    re.MULTILINE | re.DOTALL,
)


@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    language: str
    code: str
    needs: tuple[str, ...]

    @property
    def name(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"

    @property
    def runs(self) -> bool:
        return self.language == "python" or (self.language == "sh" and "shell" in self.needs)

    def server(self) -> tuple[str, str] | None:
        for need in self.needs:
            if need.startswith("server "):
                _, method, path = need.split()
                return method, path
        return None


def blocks() -> list[Block]:
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in _BLOCK.finditer(text):
            needs = tuple(need.strip() for need in (match["needs"] or "").split(",") if need.strip())
            line = text.count("\n", 0, match.start("code"))
            found.append(Block(page, line, match["language"], match["code"], needs))
    return found


BLOCKS = [block for block in blocks() if block.runs]


def test_the_pages_have_blocks_that_run() -> None:
    """The collection itself: a page's blocks are found, and every comment is one the runner knows."""
    assert len(BLOCKS) >= 30
    # Every Python block is collected: none hides where the pattern does not look (indented).
    written = sum(page.read_text(encoding="utf-8").count("```python") for page in PAGES)
    assert written == sum(block.language == "python" for block in BLOCKS)
    known = {"gateway", "shell"}
    for block in blocks():
        for need in block.needs:
            assert need in known or need.startswith("server "), f"{block.name}: unknown need {need!r}"
        if block.needs:
            assert block.runs, f"{block.name}: a {block.language!r} block cannot run"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_for(url: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode} before answering")
        try:
            httpx.get(url, timeout=1)
            return
        except httpx.TransportError:
            time.sleep(0.1)
    raise RuntimeError(f"{url} did not answer within 30 s")


def _environment(backend_name: str) -> dict[str, str]:
    env = dict(os.environ, AGENTCODEC_BACKEND=backend_name, PYTHONUNBUFFERED="1")
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


# The demo agent unpaced: the blocks read what it says, not when it says it.
UNPACED = ["--demo-delay", "0"]


@pytest.fixture(scope="module")
def gateway() -> Iterator[str]:
    pytest.importorskip("starlette")
    port = _free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agentcodec",
            "gateway",
            "--port",
            str(port),
            "--log-level",
            "warning",
            *UNPACED,
        ],
        cwd=ROOT,
    )
    try:
        _wait_for(f"http://127.0.0.1:{port}/health", process)
        yield f"127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=30)


def _backend_name(backend: ModuleType) -> str:
    return "native" if backend.__name__.endswith("_native") else "python"


@pytest.mark.parametrize("block", BLOCKS, ids=[block.name for block in BLOCKS])
def test_block_runs(
    block: Block, backend: ModuleType, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    env = _environment(_backend_name(backend))
    # What a block writes stays in its folder; what it reads is the repository's.
    (tmp_path / "examples").symlink_to(ROOT / "examples", target_is_directory=True)
    code = block.code
    if "gateway" in block.needs:
        code = code.replace(ADDRESS, request.getfixturevalue("gateway"))
    if block.language == "sh":
        assert shutil.which("bash"), "bash runs the shell blocks"
        command = ["bash", "-euo", "pipefail", "-c", code]
    elif code.lstrip().startswith(">>>"):
        page = tmp_path / "block.txt"
        page.write_text(code, encoding="utf-8")
        command = [
            sys.executable,
            "-c",
            "import doctest, sys; failed = doctest.testfile(sys.argv[1], module_relative=False,"
            " encoding='utf-8', optionflags=doctest.ELLIPSIS).failed; sys.exit(1 if failed else 0)",
            str(page),
        ]
    else:
        script = tmp_path / "block.py"
        script.write_text(code, encoding="utf-8")
        command = [sys.executable, str(script)]
    server = block.server()
    if server is not None:
        _serve_and_ask(command, server, env, tmp_path)
        return
    ran = subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False
    )
    assert ran.returncode == 0, f"{block.name} failed:\n{ran.stdout}\n{ran.stderr}"


def _serve_and_ask(command: list[str], request: tuple[str, str], env: dict[str, str], folder: Path) -> None:
    """Runs a server block on a free port, sends it the request its comment
    names, and reads the event stream it answers to its end."""
    port = _free_port()
    script = Path(command[-1])
    code = script.read_text(encoding="utf-8")
    assert "8000" in code, "a server block listens on port 8000"
    script.write_text(code.replace("8000", str(port)), encoding="utf-8")
    process = subprocess.Popen(command, cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        _wait_for(f"http://127.0.0.1:{port}/", process)
        method, path = request
        with httpx.stream(method, f"http://127.0.0.1:{port}{path}", json={}, timeout=30) as response:
            body = response.read()
        assert response.status_code == 200, body
        assert response.headers["content-type"].startswith("text/event-stream")
        assert body.count(b"\n\n") >= 2, body
    finally:
        process.terminate()
        output = process.communicate(timeout=30)[0]
    assert process.returncode in (0, -15), output.decode(errors="replace")
