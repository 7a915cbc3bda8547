"""The tally's Prometheus exposition parses with prometheus_client's own text parser.

Runs core/examples/tally_render.rs (binary from $A2A_TALLY_RENDER, default
target/debug/examples/tally_render; build it with `cargo build -p a2a-core --example
tally_render`) and checks every sample's labels and value.
"""
import os
import subprocess
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

ROOT = Path(__file__).resolve().parents[2]
BINARY = os.environ.get(
    "A2A_TALLY_RENDER", str(ROOT / "target" / "debug" / "examples" / "tally_render")
)


def render() -> str:
    out = subprocess.run([BINARY], check=True, capture_output=True, timeout=30)
    return out.stdout.decode("utf-8")


def samples():
    families = list(text_string_to_metric_families(render()))
    assert [f.name for f in families] == ["a2a_outcomes"]
    fam = families[0]
    assert fam.type == "counter"
    assert fam.documentation.startswith("Outcomes of A2A calls")
    return {
        (s.labels["agent"], s.labels["method"], s.labels["channel"], s.labels["code"]): s.value
        for s in fam.samples
        if s.name == "a2a_outcomes_total"
    }


def test_values_per_agent_method_channel_code():
    got = samples()
    assert got[("planner", "tasks/get", "protocol", "TaskNotFound")] == 3.0
    assert got[("planner", "message/send", "task", "failed")] == 1.0
    assert got[("planner", "message/send", "task", "completed")] == 2.0
    assert got[("planner", "message/send", "protocol", "-32050")] == 1.0


def test_escaped_label_values_round_trip():
    got = samples()
    key = ('weird "agent"\\with\nnewline', "POST /v1/message:send", "transport", "Timeout")
    assert got[key] == 1.0


def test_every_sample_has_exactly_the_four_labels():
    families = list(text_string_to_metric_families(render()))
    for s in families[0].samples:
        assert set(s.labels) == {"agent", "method", "channel", "code"}
    assert len(families[0].samples) == 5
