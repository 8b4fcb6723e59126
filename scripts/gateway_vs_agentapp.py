"""The gateway in front of a real agentscope-runtime AgentApp, against that
AgentApp's own endpoints.

One AgentApp (scripts/agentapp.py: reasoning, a streamed tool call, its
result, a long answer; and the handler that fails midway) runs under uvicorn
on loopback; ``agentcodec.gateway.Gateway`` runs beside it with the
AgentApp's ``/process`` as its upstream. The same requests go to each
endpoint of scripts/agentapp_endpoints/ on both, and each pair is judged by
that endpoint's module, with its protocol's own SDK.

Prints each check; exits non-zero if one fails. Run it where
agentcodec[gateway] and agentscope-runtime are installed; scripts/test.sh --full
does, in an environment made from scripts/agentapp-constraints.txt:

    python3 -m venv /tmp/asr
    /tmp/asr/bin/pip install -c scripts/agentapp-constraints.txt agentscope-runtime \
        agentscope mcp pydantic greenlet tqdm uvicorn httpx openai ag-ui-protocol jsonpatch \
        '.[gateway]'
    /tmp/asr/bin/python scripts/gateway_vs_agentapp.py
"""

from __future__ import annotations

import sys

from agentapp import Server, endpoints, make_app, post

from agentcodec.gateway import Gateway

failures: list[str] = []


def check(what: str, ok: bool) -> None:
    if not ok:
        failures.append(what)
    print(f"{'ok  ' if ok else 'FAIL'} {what}")


def compare(fail: bool) -> None:
    label = "failing run" if fail else "agent turn"
    called = endpoints()
    with Server(make_app(fail)) as agentapp, Server(Gateway(agentapp)) as gateway:
        streams = [
            (
                endpoint,
                post(agentapp, endpoint.path, endpoint.body)[1],
                post(gateway, endpoint.path, endpoint.body)[1],
            )
            for endpoint in called
        ]
    for endpoint, theirs, ours in streams:
        endpoint.judge(label, theirs, ours, fail, check)


def main() -> int:
    compare(fail=False)
    compare(fail=True)
    print("all checks passed" if not failures else f"{len(failures)} checks failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
