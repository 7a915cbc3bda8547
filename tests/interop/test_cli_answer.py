"""The answer through the `a2a` command line against both real peers, every protocol
version and binding each offers: every part kind received (`parts`), every part kind sent
and mirrored back (`mirror`: text, data, file bytes, file URL, message metadata), on send
and on stream (the stream's end object carries the assembled answer), and the human output
printing every part."""

from __future__ import annotations

import base64
import json
import subprocess
from pathlib import Path

import pytest

VERSIONS = ['0.3', '1.0']
BINDINGS = ['jsonrpc', 'http+json']
TIMEOUT = 30
HELLO = base64.b64encode(b'hello file\n').decode()


def run(a2a_bin: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([a2a_bin, *args], capture_output=True, text=True, timeout=TIMEOUT)


def opts(version: str, binding: str) -> list[str]:
    return ['--allow-http', '--protocol', version, '--binding', binding, '--json']


def last(out: str) -> dict:
    return json.loads(out.strip().splitlines()[-1])


def by_kind(parts: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for p in parts:
        out.setdefault(p['kind'], []).append(p)
    return out


def file_bytes(peer, version: str, binding: str, part: dict) -> bytes:
    """A file part's bytes as the peer sent them. Known quirk (tests/peers/README.md):
    the Python a2a-sdk 1.3.0 writes 0.3 HTTP+JSON `fileWithBytes` base64-encoded twice;
    the answer reports the wire faithfully, so the test decodes once more there."""
    raw = base64.b64decode(part['bytes'])
    if peer.kind == 'python' and version == '0.3' and binding == 'http+json':
        raw = base64.b64decode(raw)
    return raw


def js_rest03(peer, version: str, binding: str) -> bool:
    return peer.kind == 'js' and version == '0.3' and binding == 'http+json'


def py_rest03(peer, version: str, binding: str) -> bool:
    return peer.kind == 'python' and version == '0.3' and binding == 'http+json'


def check_parts_answer(result: dict, peer, version: str, binding: str) -> None:
    assert result['kind'] == 'task' and result['status']['state'] == 'completed'
    parts = result['artifacts'][0]['parts']
    assert [p['kind'] for p in parts] == ['text', 'data', 'file', 'file']
    assert parts[0]['text'] == 'hi there'
    assert parts[1]['data'] == {'answer': 42, 'items': ['a', 'b'], 'ok': True}
    assert file_bytes(peer, version, binding, parts[2]) == b'hello file\n'
    # Known quirk: the JS SDK's 0.3 HTTP+JSON layer drops file names.
    assert parts[2]['name'] == (None if js_rest03(peer, version, binding) else 'hello.txt')
    assert parts[2]['media_type'] == 'text/plain'
    assert parts[3]['uri'] == 'https://files.example/report.pdf'
    assert parts[3]['media_type'] == 'application/pdf'
    assert result['text'] == 'hi there'


@pytest.mark.parametrize('binding', BINDINGS)
@pytest.mark.parametrize('version', VERSIONS)
@pytest.mark.parametrize('command', ['send', 'stream'])
def test_every_part_kind_comes_back(peer, a2a_bin: str, command: str, version: str,
                                    binding: str) -> None:
    p = run(a2a_bin, command, peer.url, 'parts hi there', *opts(version, binding))
    assert p.returncode == 0, p.stderr
    end = last(p.stdout)
    assert end['state'] == 'completed'
    check_parts_answer(end['result'], peer, version, binding)
    if command == 'stream':
        assert end['unreadable_events'] == 0 and end['dropped_events'] == 0


@pytest.mark.parametrize('binding', BINDINGS)
@pytest.mark.parametrize('version', VERSIONS)
@pytest.mark.parametrize('command', ['send', 'stream'])
def test_every_part_kind_sent_is_mirrored(peer, a2a_bin: str, tmp_path: Path, command: str,
                                          version: str, binding: str) -> None:
    f = tmp_path / 'note.txt'
    f.write_bytes(b'hello file\n')
    file_args = ['--file', str(f)]
    if py_rest03(peer, version, binding):
        # Known quirk: the Python SDK's 0.3 HTTP+JSON layer base64-decodes the (already
        # decoded) fileWithBytes a second time and fails (send: HTTP 500; stream: the
        # connection is dropped); file bytes cannot reach it there from a client that
        # follows the proto. The CLI reports that failure, never a success.
        p = run(a2a_bin, command, peer.url, 'mirror me', *file_args, *opts(version, binding))
        assert p.returncode == (4 if command == 'send' else 3), p.stdout
        assert last(p.stdout)['result'] is None
        file_args = []
    p = run(a2a_bin, command, peer.url, 'mirror me', '--data', '{"k":[1,2]}', *file_args,
            '--file-url', 'https://files.example/a.pdf;type=application/pdf',
            '--metadata', '{"trace":"t-1"}', *opts(version, binding))
    assert p.returncode == 0, p.stderr
    result = last(p.stdout)['result']
    art = result['artifacts'][0]
    parts = art['parts']
    want = ['text', 'data', 'file', 'file'] if file_args else ['text', 'data', 'file']
    assert [q['kind'] for q in parts] == want
    assert parts[0]['text'] == 'mirror me'
    assert parts[1]['data'] == {'k': [1, 2]}
    if file_args:
        assert file_bytes(peer, version, binding, parts[2]) == b'hello file\n'
        assert parts[2]['name'] == (None if js_rest03(peer, version, binding) else 'note.txt')
        assert parts[2]['media_type'] == 'text/plain'
    assert parts[-1]['uri'] == 'https://files.example/a.pdf'
    assert parts[-1]['media_type'] == 'application/pdf'
    assert art['metadata'] == {'trace': 't-1'}


def test_human_output_prints_every_part(peer, a2a_bin: str, tmp_path: Path) -> None:
    p = run(a2a_bin, 'send', peer.url, 'parts hi there', '--allow-http', '--output-dir',
            str(tmp_path))
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith('hi there\n{\n  "answer": 42')  # 42.0 from protobuf's Value
    assert '[file] hello.txt (text/plain, 11 bytes) saved to' in p.stdout
    assert '[file] report.pdf (application/pdf) at https://files.example/report.pdf' in p.stdout
    assert (tmp_path / 'hello.txt').read_bytes() == b'hello file\n'
