"""How far each protocol's knowledge spreads: the files that name it outside
its own places (its Rust folder and binding file, its Python package and
pure modules (its vocabulary is in its package), its tests and their helpers (``tests/<name>_*``),
fixtures, benchmark row and fixture script). A protocol is a plug-in when adding one edits few files besides
its own; this counts them, as the architecture page's checklist expects.

    python scripts/protocol_spread.py            # a line per protocol
    python scripts/protocol_spread.py --files    # and the files
    python scripts/protocol_spread.py --shared   # only files no protocol owns
    python scripts/protocol_spread.py --shared --check 8   # fails past 8 (scripts/test.sh)

A file "names" a protocol when its name appears in it, case aside, with
``-`` and ``_`` alike (``a-b`` and ``a_b`` are one name). The count is a
proxy: a producer named after a protocol (an adapter from one to another)
or a data key (a provider's name in another protocol's metadata) counts too.
``--shared`` counts only the files outside every protocol's own places: those
that adding a protocol could have to edit, a protocol's own file naming
another (as data, or as what it converts from) left to that protocol.
``--check N`` exits 1 when a protocol added after the first two (the
registry lists them in the order they came) is named in more than N files:
the budget the plug-in structure holds each new protocol to.
These lines name no protocol, so that this file counts for none.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("rust", "python", "fuzz/fuzz_targets", "fuzz/backends.py", "benches", "tests", "scripts")


def own_places(module: str) -> re.Pattern[str]:
    """The paths that are the protocol's own (``module``: its name with ``_``)."""
    return re.compile(
        "|".join(
            (
                rf"rust/{module}/",
                rf"rust/python/{module}\.rs$",
                rf"python/agentcodec/{module}/",
                rf"python/agentcodec/_pure/{module}/",
                rf"tests/test_{module}",
                rf"tests/{module}_",
                rf"tests/protocols/{module}\.py$",
                r"tests/fixtures/",
                r"benches/workloads/",
                rf"scripts/.*{module}",
            )
        )
    )


def tracked_files() -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "--", *SCANNED], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    this = str(Path(__file__).resolve().relative_to(ROOT))
    return [path for path in listed if path != this]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", action="store_true", help="list the files too")
    parser.add_argument("--shared", action="store_true", help="count only files no protocol owns")
    parser.add_argument(
        "--check",
        type=int,
        metavar="N",
        help="exit 1 if a protocol added after the first two is named in more than N files",
    )
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT / "python"))
    # The names, from the checkout.
    from agentcodec._pure.events import PROTOCOL_NAMES

    texts = {}
    for path in tracked_files():
        try:
            texts[path] = (ROOT / path).read_text(encoding="utf-8").lower()
        except (UnicodeDecodeError, FileNotFoundError):
            continue  # binary fixtures, files deleted in the work tree
    owned = [own_places(name.replace("-", "_")) for name in PROTOCOL_NAMES]
    over = []
    for name in PROTOCOL_NAMES:
        module = name.replace("-", "_")
        named = re.compile("[-_]".join(map(re.escape, name.split("-"))))
        own = own_places(module)
        spread = sorted(path for path, text in texts.items() if not own.search(path) and named.search(text))
        if args.shared:
            spread = [path for path in spread if not any(places.search(path) for places in owned)]
        print(f"{name:18} {len(spread):3} files outside its own places")
        if args.files:
            for path in spread:
                print(f"    {path}")
        if args.check is not None and name in PROTOCOL_NAMES[2:] and len(spread) > args.check:
            over.append(name)
    if over:
        print(f"named in more than {args.check} files outside their own places: {', '.join(over)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
