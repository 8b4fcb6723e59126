"""Backend selection, the public namespace and version consistency."""

from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import agentcodec
from conftest import NATIVE, PURE, requires_native

ROOT = Path(__file__).resolve().parent.parent


def run_python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != "AGENTCODEC_BACKEND"}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={**environ, **env}, check=False
    )


def test_default_backend_is_native_when_installed() -> None:
    result = run_python("import agentcodec; print(agentcodec.backend)")
    assert result.stdout.strip() == ("native" if NATIVE is not None else "python")


def test_force_python() -> None:
    result = run_python(
        "import agentcodec; print(agentcodec.backend, agentcodec.SSEDecoder.__module__)",
        AGENTCODEC_BACKEND="python",
    )
    assert result.stdout.split() == ["python", "agentcodec._pure.sse_decoder"]


@requires_native
def test_force_native() -> None:
    result = run_python("import agentcodec; print(agentcodec.backend)", AGENTCODEC_BACKEND="native")
    assert result.stdout.strip() == "native"


def test_force_native_where_missing_is_a_clear_import_error() -> None:
    # Hide the extension by making its import fail.
    code = (
        "import sys; sys.modules['agentcodec._native'] = None\n"
        "try:\n    import agentcodec\nexcept ImportError as e:\n    print('ImportError:', e)\n"
    )
    result = run_python(code, AGENTCODEC_BACKEND="native")
    assert "ImportError: AGENTCODEC_BACKEND=native, but the native extension" in result.stdout


def test_fallback_to_python_where_native_is_missing() -> None:
    code = (
        "import sys; sys.modules['agentcodec._native'] = None\nimport agentcodec; print(agentcodec.backend)"
    )
    assert run_python(code).stdout.strip() == "python"


def test_bad_backend_value() -> None:
    result = run_python("import agentcodec", AGENTCODEC_BACKEND="rust")
    assert "AGENTCODEC_BACKEND must be 'native' or 'python', not 'rust'" in result.stderr


def test_public_names_match_the_backends() -> None:
    for name in (
        "SSEDecoder",
        "SSEEvent",
        "encode_sse",
        "encode_sse_comment",
        "DEFAULT_MAX_LINE_BYTES",
        "DEFAULT_MAX_EVENT_BYTES",
        "Transcoder",
    ):
        assert getattr(agentcodec, name) is getattr(agentcodec._backend.impl, name)
        assert hasattr(PURE, name)
        if NATIVE is not None:
            assert hasattr(NATIVE, name)
    assert set(agentcodec.__all__) <= set(dir(agentcodec))
    from agentcodec import events

    for public, name in (
        ("Assembler", "NeutralAssembler"),
        ("Decoder", "NeutralDecoder"),
        ("Encoder", "NeutralEncoder"),
    ):
        assert getattr(events, public) is getattr(agentcodec._backend.impl, name)
        assert hasattr(PURE, name)
        if NATIVE is not None:
            assert hasattr(NATIVE, name)
    assert set(events.__all__) <= set(dir(events))


def test_versions_agree() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text()
    cargo = (ROOT / "Cargo.toml").read_text()
    version = re.search(r'^version = "(.+)"', pyproject, re.M)
    cargo_version = re.search(r'^version = "(.+)"', cargo, re.M)
    if version is None or cargo_version is None:
        pytest.skip("source tree not available")
    assert agentcodec.__version__ == version.group(1) == cargo_version.group(1) == PURE.__version__
    if NATIVE is not None:
        assert NATIVE.__version__ == agentcodec.__version__


def test_stubs_and_marker_ship() -> None:
    package = Path(agentcodec.__file__).parent
    assert (package / "py.typed").exists()
    assert (package / "_native.pyi").exists()


def test_pure_wheel(tmp_path: Path) -> None:
    """The build backend's pure wheel holds the package and no extension."""
    backend_dir = ROOT / "build_backend"
    if not backend_dir.exists():
        pytest.skip("source tree not available")
    code = (
        f"import sys; sys.path.insert(0, {str(backend_dir)!r}); import agentcodec_build as b; "
        f"print(b.build_wheel({str(tmp_path)!r}))"
    )
    result = run_python(code, AGENTCODEC_NO_EXTENSIONS="1")
    assert result.returncode == 0, result.stderr
    name = result.stdout.strip()
    assert name == f"agentcodec-{agentcodec.__version__}-py3-none-any.whl"
    with zipfile.ZipFile(tmp_path / name) as wheel:
        names = wheel.namelist()
        metadata = wheel.read(f"agentcodec-{agentcodec.__version__}.dist-info/METADATA").decode()
        entry_points = wheel.read(f"agentcodec-{agentcodec.__version__}.dist-info/entry_points.txt").decode()
    assert "agentcodec/__init__.py" in names
    assert "agentcodec/_pure/sse_decoder.py" in names
    # Every module of the package, the pure backend's protocol packages too,
    # and the protocols' vocabularies.
    package = ROOT / "python" / "agentcodec"
    sources = {
        path.relative_to(ROOT / "python").as_posix()
        for pattern in ("*.py", "_vocabulary/*.txt")
        for path in package.rglob(pattern)
    }
    assert sources <= set(names), sorted(sources - set(names))
    assert "agentcodec/py.typed" in names
    assert not [n for n in names if n.endswith((".so", ".pyd", ".pyc"))]
    assert f"Version: {agentcodec.__version__}" in metadata
    assert "agentcodec = agentcodec.cli:main" in entry_points


@requires_native
def test_both_backends_have_the_same_signatures() -> None:
    """The same parameters, kinds and defaults (the native classes once
    showed ``max_line_bytes=Ellipsis`` where the pure ones show the number)."""
    assert NATIVE is not None

    def signatures(module: ModuleType) -> dict[str, list[tuple[str, Any, Any]]]:
        return {
            name: [
                (parameter.name, parameter.kind, parameter.default)
                for parameter in inspect.signature(getattr(module, name)).parameters.values()
            ]
            for name in module.__all__
            if isinstance(getattr(module, name), type)
        }

    native, pure = signatures(NATIVE), signatures(PURE)
    assert native == pure
    assert ("max_line_bytes", inspect.Parameter.KEYWORD_ONLY, 67108864) in pure["Transcoder"]


@pytest.mark.parametrize(
    ("make", "name"),
    [
        (lambda backend: backend.Transcoder("agui", "openai-responses"), "Transcoder"),
        (lambda backend: backend.NeutralDecoder("agui"), "events.Decoder"),
        (lambda backend: backend.NeutralAssembler("agui"), "events.Assembler"),
        (lambda backend: backend.AGUIAssembler(), "assembler"),
    ],
    ids=["Transcoder", "events.Decoder", "events.Assembler", "Assembler"],
)
def test_errors_name_what_was_fed(backend: ModuleType, make: Any, name: str) -> None:
    streaming = make(backend)
    method = "Assembler" if name == "assembler" else name
    with pytest.raises(TypeError, match=rf"^{re.escape(method)}\.feed\(\) takes bytes-like data, not str"):
        streaming.feed("data: {}\n\n")
    with pytest.raises(agentcodec.AGUIError, match=r"^the stream held no AG-UI event: it held no events$"):
        streaming.close()
    with pytest.raises(agentcodec.AGUIError, match=rf"^the {re.escape(name)} is closed$"):
        streaming.feed(b"data: {}\n\n")


def test_help_shows_no_backend_module_among_the_packages_names() -> None:
    """help(agentcodec) listed the backend's module, ``impl``, as a name of
    the package."""
    import pydoc

    text = pydoc.render_doc(agentcodec, renderer=pydoc.plaintext)
    assert "impl" not in text
    modules = [name for name, value in vars(agentcodec).items() if isinstance(value, ModuleType)]
    assert not [name for name in modules if "impl" in name]
