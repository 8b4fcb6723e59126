"""Real servers for the tests: uvicorn on loopback (in a thread, or in a
process of its own for replicas) and redis-server. Nothing is mocked."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _listening_socket() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    return sock


@contextlib.contextmanager
def serve(app: Any, tls: tuple[Path, Path] | None = None) -> Iterator[str]:
    """Runs ``app`` on uvicorn in a thread; yields its base URL. ``tls``,
    a certificate and its key, serves it over HTTPS."""
    import uvicorn

    sock = _listening_socket()
    certificate, key = tls or (None, None)
    config = uvicorn.Config(
        app, log_level="warning", lifespan="auto", ssl_certfile=certificate, ssl_keyfile=key
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.01)
    try:
        yield f"{'https' if tls else 'http'}://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


def self_signed_certificate(directory: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 signed by its own key (openssl's command,
    as Debian has it): ``(certificate, key)``."""
    certificate, key = directory / "certificate.pem", directory / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(certificate)],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return certificate, key


@contextlib.contextmanager
def serve_process(app: str, env: dict[str, str]) -> Iterator[str]:
    """Runs ``app`` ("module:attribute" under tests/) on uvicorn in a
    process of its own; yields its base URL."""
    with serve_command([sys.executable, "-m", "uvicorn", app, "--log-level", "warning"], env) as url:
        yield url


@contextlib.contextmanager
def serve_command(command: list[str], env: dict[str, str] | None = None) -> Iterator[str]:
    """Runs a server command (uvicorn, ``agentcodec gateway``) in a process
    of its own, handing it a listening socket with ``--fd N``; yields its
    base URL once it answers ``/health``."""
    with command_server(command, env) as (url, _):
        yield url


@contextlib.contextmanager
def command_server(
    command: list[str], env: dict[str, str] | None = None
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """``serve_command``, giving the process too (to signal it)."""
    sock = _listening_socket()
    environment = {
        **os.environ,
        **(env or {}),
        "PYTHONPATH": os.pathsep.join([str(ROOT / "tests"), os.environ.get("PYTHONPATH", "")]),
    }
    process = subprocess.Popen(
        [*command, "--fd", str(sock.fileno())], pass_fds=[sock.fileno()], env=environment
    )
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    try:
        _wait_until_up(url, process)
        yield url, process
    finally:
        if process.poll() is None:
            process.terminate()
        process.wait(10)
        sock.close()


def _wait_until_up(url: str, process: subprocess.Popen[bytes]) -> None:
    import httpx

    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server process exited with {process.returncode}")
        with contextlib.suppress(httpx.HTTPError):
            httpx.get(url + "/health", timeout=1)
            return
        time.sleep(0.05)
    raise RuntimeError("the server process did not start")


def _accepts(path: Path) -> bool:
    with socket.socket(socket.AF_UNIX) as client:
        try:
            client.connect(str(path))
        except OSError:
            return False
    return True


@contextlib.contextmanager
def redis_server(directory: Path) -> Iterator[str]:
    """A redis-server of its own on a Unix socket; yields its URL. Skips
    where redis-server is not installed, unless CI requires it."""
    binary = shutil.which("redis-server")
    if binary is None:
        message = "redis-server is not installed (scripts/test.sh installs Debian's redis-server package)"
        if os.environ.get("AGENTCODEC_REQUIRE_REDIS") == "1":
            pytest.fail(message)
        pytest.skip(message)
    path = directory / "redis.sock"
    process = subprocess.Popen(
        [binary, "--port", "0", "--unixsocket", str(path), "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        # The socket file appears when it is bound, a moment before the server
        # listens on it: ready is when a connection is accepted.
        while not _accepts(path):
            if time.monotonic() > deadline or process.poll() is not None:
                raise RuntimeError("redis-server did not start")
            time.sleep(0.01)
        yield f"unix://{path}"
    finally:
        process.terminate()
        process.wait(10)


def wait_until(condition: Callable[[], object], seconds: float, message: str) -> float:
    """Polls ``condition`` until it holds, failing with ``message`` after
    ``seconds``; returns how long it took."""
    started = time.monotonic()
    while not condition():
        assert time.monotonic() - started < seconds, message
        time.sleep(0.02)
    return time.monotonic() - started
