"""A card written by a2a_core::server::CardBuilder reads with the Python a2a-sdk's own card
types (issue 12): the 1.0 client's parser (`a2a.client.card_resolver.parse_agent_card`, the
one its card resolver uses) sees every interface in order, and the 0.3 compat model
(`a2a.compat.v0_3.types.AgentCard`) validates the 0.3 fields (url, preferredTransport,
protocolVersion, additionalInterfaces) a 0.3 client picks its interface from.

Runs core/examples/card_render.rs (binary from $A2A_CARD_RENDER, default
target/debug/examples/card_render; build it with `cargo build -p a2a-core --example
card_render`).
"""
import json
import os
import subprocess
from pathlib import Path

from a2a.client.card_resolver import parse_agent_card
from a2a.compat.v0_3 import types as v03

ROOT = Path(__file__).resolve().parents[2]
BINARY = os.environ.get(
    "A2A_CARD_RENDER", str(ROOT / "target" / "debug" / "examples" / "card_render")
)


def card() -> dict:
    out = subprocess.run([BINARY], check=True, capture_output=True, timeout=30)
    return json.loads(out.stdout)


def test_the_1_0_client_parser_reads_every_interface_in_order():
    parsed = parse_agent_card(card())
    got = [(i.url, i.protocol_binding, i.protocol_version) for i in parsed.supported_interfaces]
    assert got == [
        ("http://127.0.0.1:8080/a2a", "JSONRPC", "1.0"),
        ("http://127.0.0.1:8080/a2a/v03", "JSONRPC", "0.3"),
        ("http://127.0.0.1:8080/rest/v03", "HTTP+JSON", "0.3"),
    ]
    assert parsed.name == "booking" and parsed.capabilities.streaming
    assert [s.id for s in parsed.skills] == ["book"]


def test_the_0_3_model_validates_the_legacy_fields():
    c = v03.AgentCard.model_validate(card())
    assert c.url == "http://127.0.0.1:8080/a2a/v03"
    assert c.preferred_transport == "JSONRPC"
    assert c.protocol_version == "0.3.0"
    assert [(i.url, i.transport) for i in c.additional_interfaces] == [
        ("http://127.0.0.1:8080/a2a/v03", "JSONRPC"),
        ("http://127.0.0.1:8080/rest/v03", "HTTP+JSON"),
    ]
    assert c.skills[0].examples == ["book seat 12A"]


def test_a_0_3_reading_of_the_card_without_the_1_0_list_still_finds_the_interface():
    # What an SDK that maps a legacy card does: drop the 1.0 list, keep url/preferredTransport.
    legacy = {k: v for k, v in card().items() if k != "supportedInterfaces"}
    parsed = parse_agent_card(legacy)
    urls = [(i.url, i.protocol_binding) for i in parsed.supported_interfaces]
    assert urls[0] == ("http://127.0.0.1:8080/a2a/v03", "JSONRPC")
