"""The PEP 517 build backend of agentcodec.

With a Rust toolchain on PATH, every hook is handed to maturin, which builds
the native extension. Without one, or with ``AGENTCODEC_NO_EXTENSIONS=1`` in
the environment, wheels are built here as pure Python (``py3-none-any``) from
``python/agentcodec``: the package then runs on its pure-Python backend.

Only the standard library is used on the pure path, so it needs nothing from
an index (``tomli`` on Python < 3.11 aside).
"""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import sys
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "python" / "agentcodec"
MATURIN = "maturin>=1.9,<2"


def native_build() -> bool:
    """Whether to build the native extension."""
    if os.environ.get("AGENTCODEC_NO_EXTENSIONS", "").strip() not in ("", "0"):
        return False
    return shutil.which("cargo") is not None


def _maturin() -> Any:
    import maturin  # noqa: PLC0415  (present only when a native build asked for it)

    return maturin


# --- PEP 517 hooks -------------------------------------------------------


def get_requires_for_build_wheel(config_settings: Any = None) -> list[str]:
    if native_build():
        return [MATURIN]
    return ["tomli>=1.1"] if sys.version_info < (3, 11) else []


def get_requires_for_build_editable(config_settings: Any = None) -> list[str]:
    return get_requires_for_build_wheel(config_settings)


def get_requires_for_build_sdist(config_settings: Any = None) -> list[str]:
    return [MATURIN]


def build_wheel(
    wheel_directory: str, config_settings: Any = None, metadata_directory: str | None = None
) -> str:
    if native_build():
        return str(_maturin().build_wheel(wheel_directory, config_settings, metadata_directory))
    return _PureWheel().write(Path(wheel_directory), editable=False)


def build_editable(
    wheel_directory: str, config_settings: Any = None, metadata_directory: str | None = None
) -> str:
    if native_build():
        return str(_maturin().build_editable(wheel_directory, config_settings, metadata_directory))
    return _PureWheel().write(Path(wheel_directory), editable=True)


def build_sdist(sdist_directory: str, config_settings: Any = None) -> str:
    return str(_maturin().build_sdist(sdist_directory, config_settings))


# --- the pure-Python wheel -----------------------------------------------


def _load_pyproject() -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib  # noqa: PLC0415
    else:
        import tomli as tomllib  # noqa: PLC0415
    with open(ROOT / "pyproject.toml", "rb") as file:
        return tomllib.load(file)


class _PureWheel:
    """A ``py3-none-any`` wheel of ``python/agentcodec`` with core metadata
    taken from ``pyproject.toml``."""

    TAG = "py3-none-any"

    def __init__(self) -> None:
        self.project = _load_pyproject()["project"]
        self.name = self.project["name"]
        self.version = self.project["version"]
        self.dist_info = f"{self.name}-{self.version}.dist-info"

    def write(self, directory: Path, *, editable: bool) -> str:
        directory.mkdir(parents=True, exist_ok=True)
        filename = f"{self.name}-{self.version}-{self.TAG}.whl"
        records: list[str] = []
        with zipfile.ZipFile(directory / filename, "w", zipfile.ZIP_DEFLATED) as wheel:

            def add(arcname: str, data: bytes) -> None:
                # A fixed timestamp keeps the wheel reproducible.
                info = zipfile.ZipInfo(arcname, date_time=(2020, 1, 1, 0, 0, 0))
                info.external_attr = 0o644 << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                wheel.writestr(info, data)
                digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
                records.append(f"{arcname},sha256={digest.decode()},{len(data)}")

            if editable:
                add(f"_{self.name}_editable.pth", f"{PACKAGE.parent}\n".encode())
            else:
                for path in sorted(self._package_files()):
                    add(path.relative_to(PACKAGE.parent).as_posix(), path.read_bytes())
            add(f"{self.dist_info}/METADATA", self._metadata().encode())
            add(f"{self.dist_info}/WHEEL", self._wheel_file().encode())
            scripts = self.project.get("scripts", {})
            if scripts:
                lines = ["[console_scripts]"] + [f"{key} = {value}" for key, value in scripts.items()]
                add(f"{self.dist_info}/entry_points.txt", ("\n".join(lines) + "\n").encode())
            license_file = ROOT / "LICENSE"
            if license_file.exists():
                add(f"{self.dist_info}/licenses/LICENSE", license_file.read_bytes())
            records.append(f"{self.dist_info}/RECORD,,")
            wheel.writestr(f"{self.dist_info}/RECORD", "\n".join(records) + "\n")
        return filename

    def _package_files(self) -> list[Path]:
        files = []
        for path in PACKAGE.rglob("*"):
            if not path.is_file() or "__pycache__" in path.parts:
                continue
            # Compiled extensions left by a developer build stay out of a pure wheel.
            if path.suffix in (".so", ".pyd", ".pyc", ".dylib"):
                continue
            files.append(path)
        return files

    def _wheel_file(self) -> str:
        return f"Wheel-Version: 1.0\nGenerator: agentcodec_build\nRoot-Is-Purelib: true\nTag: {self.TAG}\n"

    def _metadata(self) -> str:
        project = self.project
        lines = [
            "Metadata-Version: 2.1",
            f"Name: {self.name}",
            f"Version: {self.version}",
        ]
        if "description" in project:
            lines.append(f"Summary: {project['description']}")
        if "requires-python" in project:
            lines.append(f"Requires-Python: {project['requires-python']}")
        license_info = project.get("license")
        if isinstance(license_info, dict) and "text" in license_info:
            lines.append(f"License: {license_info['text']}")
        if project.get("keywords"):
            lines.append(f"Keywords: {','.join(project['keywords'])}")
        for author in project.get("authors", []):
            if "name" in author:
                lines.append(f"Author: {author['name']}")
        lines.extend(f"Classifier: {classifier}" for classifier in project.get("classifiers", []))
        lines.extend(f"Requires-Dist: {requirement}" for requirement in project.get("dependencies", []))
        for extra, requirements in project.get("optional-dependencies", {}).items():
            lines.append(f"Provides-Extra: {extra}")
            for requirement in requirements:
                spec, marker = requirement, f'extra == "{extra}"'
                if ";" in requirement:
                    spec, existing = (part.strip() for part in requirement.split(";", 1))
                    marker = f"({existing}) and {marker}"
                lines.append(f"Requires-Dist: {spec}; {marker}")
        for label, url in project.get("urls", {}).items():
            lines.append(f"Project-URL: {label}, {url}")
        body = ""
        readme = project.get("readme")
        if isinstance(readme, str) and (ROOT / readme).exists():
            lines.append("Description-Content-Type: text/markdown")
            body = "\n" + (ROOT / readme).read_text(encoding="utf-8")
        return "\n".join(lines) + "\n" + body
