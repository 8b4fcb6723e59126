"""What the gateway counts, served at ``GET /metrics`` in the Prometheus
text format (version 0.0.4): runs going on, started, refused and failed;
event streams open to clients and the events sent on them, by protocol;
what the conversions into each protocol could not carry; resumes that found
their stream and those that did not. Counted in the
process: each replica serves its own, as Prometheus scrapes replicas."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

__all__ = ["Metrics"]

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


class Metrics:
    """The gateway's counters and gauges."""

    def __init__(self, runs: Callable[[], int]) -> None:
        self._runs = runs  # runs going on, as the gateway counts them for its limits
        self.runs_started = 0
        self.runs_refused: Counter[str] = Counter()  # by reason
        self.runs_failed: Counter[str] = Counter()  # by reason
        self.streams_open: Counter[str] = Counter()  # by protocol
        self.events_sent: Counter[str] = Counter()  # by protocol
        # What conversions could not carry (the Transcoder's losses), by protocol and what.
        self.conversion_losses: Counter[tuple[str, str]] = Counter()
        self.resumes: Counter[str] = Counter()  # hit, miss

    def render(self) -> bytes:
        lines: list[str] = []

        def family(name: str, kind: str, help_text: str, samples: list[tuple[str, int]]) -> None:
            lines.append(f"# HELP agentcodec_gateway_{name} {help_text}")
            lines.append(f"# TYPE agentcodec_gateway_{name} {kind}")
            lines.extend(f"agentcodec_gateway_{name}{labels} {value}" for labels, value in samples)

        def by(label: str, counts: Counter[str]) -> list[tuple[str, int]]:
            return [(f'{{{label}="{key}"}}', value) for key, value in sorted(counts.items())]

        family("runs", "gauge", "Runs going on upstream.", [("", self._runs())])
        family("runs_started_total", "counter", "Runs started upstream.", [("", self.runs_started)])
        family(
            "runs_refused_total",
            "counter",
            "Runs that did not start: the upstream refused or did not answer, or too many went on.",
            by("reason", self.runs_refused),
        )
        family(
            "runs_failed_total",
            "counter",
            (
                "Runs that ended before their end: the upstream failed or stalled, the gateway stopped,"
                " a client cancelled the run or left it unread."
            ),
            by("reason", self.runs_failed),
        )
        family("streams_open", "gauge", "Event streams open to clients.", by("protocol", self.streams_open))
        family("events_sent_total", "counter", "Events sent to clients.", by("protocol", self.events_sent))
        family(
            "conversion_losses_total",
            "counter",
            "What conversions into a client's protocol could not carry, by what (the Transcoder's losses).",
            [
                (f'{{protocol="{protocol}",what="{what}"}}', value)
                for (protocol, what), value in sorted(self.conversion_losses.items())
            ],
        )
        family(
            "resumes_total",
            "counter",
            "Requests resuming a stream with Last-Event-ID: hit (found) or miss (gone).",
            by("outcome", self.resumes),
        )
        return ("\n".join(lines) + "\n").encode()

    def count_losses(self, protocol: str, losses: list[dict[str, object]]) -> None:
        """Counts what a run's conversion into ``protocol`` could not carry."""
        for loss in losses:
            self.conversion_losses[protocol, str(loss["what"])] += 1
