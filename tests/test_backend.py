"""Backend selection, the public namespace and version consistency."""

from __future__ import annotations

import importlib
import inspect
import os
import pickle
import re
import subprocess
import sys
import zipfile
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import agentcodec
from agentcodec.events import PROTOCOLS
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
        for pattern in ("*.py", "*/vocabulary.txt")
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
        (lambda backend: backend.Transcoder("agentscope", "langchain"), "Transcoder"),
        (lambda backend: backend.NeutralDecoder("agentscope"), "events.Decoder"),
        (lambda backend: backend.NeutralAssembler("agentscope"), "events.Assembler"),
        (lambda backend: backend.AgentScopeAssembler(), "assembler"),
    ],
    ids=["Transcoder", "events.Decoder", "events.Assembler", "Assembler"],
)
def test_errors_name_what_was_fed(backend: ModuleType, make: Any, name: str) -> None:
    streaming = make(backend)
    method = "Assembler" if name == "assembler" else name
    with pytest.raises(TypeError, match=rf"^{re.escape(method)}\.feed\(\) takes bytes-like data, not str"):
        streaming.feed("data: {}\n\n")
    with pytest.raises(
        agentcodec.AgentScopeError, match=r"^the stream held no AgentScope event: it held no events$"
    ):
        streaming.close()
    with pytest.raises(agentcodec.AgentScopeError, match=rf"^the {re.escape(name)} is closed$"):
        streaming.feed(b"data: {}\n\n")


def test_help_shows_no_backend_module_among_the_packages_names() -> None:
    """help(agentcodec) listed the backend's module, ``impl``, as a name of
    the package."""
    import pydoc

    text = pydoc.render_doc(agentcodec, renderer=pydoc.plaintext)
    assert "impl" not in text
    modules = [name for name, value in vars(agentcodec).items() if isinstance(value, ModuleType)]
    assert not [name for name in modules if "impl" in name]


@requires_native
def test_the_native_backend_does_not_load_the_pure_one() -> None:
    # Every public module, and an error raised by every protocol's native
    # assembler: the pure backend as a whole stays unloaded (its package
    # hands out its names on first use; the errors are modules of their own).
    # Four protocols' public ``encode`` is their pure module's ``frame``,
    # which loads that protocol's pure modules alone.
    code = (
        "import importlib, pkgutil, sys\n"
        "import agentcodec, agentcodec._protocols as protocols\n"
        "for info in pkgutil.walk_packages(agentcodec.__path__, 'agentcodec.'):\n"
        "    if not info.name.startswith(('agentcodec._', 'agentcodec.gateway', 'agentcodec.server',"
        " 'agentcodec.client', 'agentcodec.cli')):\n"
        "        importlib.import_module(info.name)\n"
        "for name in agentcodec.events.PROTOCOLS:\n"
        "    try:\n"
        "        protocols.assembler(name).feed_event([])\n"
        "    except agentcodec.AgentCodecError as error:\n"
        "        assert type(error).__module__ == f\"agentcodec._pure.{name.replace('-', '_')}.errors\"\n"
        "print(sorted(name for name in sys.modules if name.endswith(('.api', '.registry', '.transcode'))))\n"
    )
    result = run_python(code, AGENTCODEC_BACKEND="native")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


@pytest.mark.parametrize("backend_name", ["native", "python"])
def test_every_module_imports_first(backend_name: str) -> None:
    # The pure backend loads its names on first use, and its protocols'
    # modules import each other: whichever module a program imports first,
    # on either backend, imports without a cycle. The package is dropped
    # from sys.modules between imports (the native extension aside, which
    # initializes once a process). On the pure backend, where the first
    # import loads the whole backend (a quarter of a second each time), the
    # protocols' packages and their pure assemblers and errors only.
    if backend_name == "native" and NATIVE is None:
        pytest.skip("the native extension is not installed")
    code = (
        "import importlib, pkgutil, sys\n"
        "import agentcodec\n"
        "names = [info.name for info in pkgutil.walk_packages(agentcodec.__path__, 'agentcodec.')]\n"
        f"if {backend_name == 'python'}:\n"
        "    protocols = [name.replace('-', '_') for name in agentcodec.events.PROTOCOLS]\n"
        "    names = [f'agentcodec.{p}' for p in protocols]\n"
        "    names += [f'agentcodec._pure.{p}.{m}' for p in protocols for m in ('assembler', 'errors')]\n"
        "for name in names:\n"
        "    if name.startswith(('agentcodec.gateway', 'agentcodec.__main__')):\n"
        "        continue\n"
        "    for loaded in [key for key in sys.modules if key.startswith('agentcodec')]:\n"
        "        if loaded != 'agentcodec._native':\n"
        "            del sys.modules[loaded]\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except ImportError as error:\n"
        "        if 'starlette' in str(error) or 'redis' in str(error) or 'httpx' in str(error):\n"
        "            continue\n"
        "        print(name, error)\n"
        "print('done', len(names))\n"
    )
    result = run_python(code, AGENTCODEC_BACKEND=backend_name)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("done"), result.stdout


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_errors_pickled_before_they_moved_still_load(protocol: str) -> None:
    # Each protocol's exceptions were classes of agentcodec._errors; a
    # pickle of one names that module.
    errors = importlib.import_module(f"agentcodec._pure.{protocol.replace('-', '_')}.errors")
    classes = [getattr(errors, name) for name in errors.__all__]
    assert len(classes) >= 2  # the stream's and the event's
    for cls in classes:
        if cls is agentcodec.ResumeGapError:
            error = cls(3, 9)
        elif cls.__name__.endswith("EventError"):
            error = cls(3, "is bad")
        else:
            error = cls("bad")
        old = pickle.dumps(error, protocol=0).replace(cls.__module__.encode(), b"agentcodec._errors")
        assert b"agentcodec._errors" in old
        again = pickle.loads(old)
        assert type(again) is cls
        assert again.args == error.args
