#!/usr/bin/env python3
"""Seed corpora for the fuzz targets of core/fuzz, written from the shared fixtures.

Each target gets a directory of inputs laid out the way that target reads its bytes (see
core/fuzz/README.md), built from bindings/fixtures/*.json, so the fuzzer starts from streams,
responses, cards and requests the project already knows to be interesting instead of from
nothing. Deterministic: the same fixtures give the same files (named by index and a hash).

usage: scripts/fuzz-seeds.py OUT_DIR     (writes OUT_DIR/<target>/<file>, replacing OUT_DIR)
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / 'bindings' / 'fixtures'
TARGETS = ['answer_read', 'sse_decode', 'sse_roundtrip', 'http1_response', 'http1_request', 'card_parse', 'classify',
           'server_request', 'ffi_feed', 'trust_parse']


def load(name: str) -> dict:
    return json.loads((FIXTURES / name).read_text(encoding='utf-8'))


def sse_inputs() -> list[tuple[bytes, dict]]:
    out = []
    for case in load('sse.json')['cases']:
        raw = base64.b64decode(case['input_base64']) if 'input_base64' in case else case['input'].encode()
        out.append((raw, case.get('options', {})))
    return out


def outcome_bodies() -> list[tuple[dict, bytes]]:
    out = []
    for row in load('outcomes.json')['rows']:
        inp = row['input']
        body = base64.b64decode(inp['body_base64']) if 'body_base64' in inp else inp.get('body', '').encode()
        out.append((inp, body))
    return out


def http1_response(inp: dict, body: bytes, chunked: bool) -> bytes:
    status = inp.get('status', 200)
    head = [f'HTTP/1.1 {status} X']
    if inp.get('content_type'):
        head.append(f'Content-Type: {inp["content_type"]}')
    if chunked:
        head.append('Transfer-Encoding: chunked')
        framed = b''.join(b'%x\r\n%s\r\n' % (len(body[i:i + 40]), body[i:i + 40]) for i in range(0, len(body), 40))
        framed += b'0\r\nX-Trailer: 1\r\n\r\n'
    else:
        head.append(f'Content-Length: {len(body)}')
        framed = body
    return ('\r\n'.join(head) + '\r\n\r\n').encode() + framed


def http1_request(exp: dict, body: bytes, framing: str) -> bytes:
    """A request as a client sends it (framing 'length' or 'chunked'), or with an ambiguous
    length as a smuggler does ('both', 'two')."""
    head = [f'{exp.get("method", "POST")} /{exp.get("path", "").lstrip("/")} HTTP/1.1', 'Host: 127.0.0.1:8080']
    head += [f'{n}: {v}' for n, v in exp.get('headers', [])]
    if framing == 'chunked':
        head.append('Transfer-Encoding: chunked')
        framed = b''.join(b'%x;e=1\r\n%s\r\n' % (len(body[i:i + 40]), body[i:i + 40]) for i in range(0, len(body), 40))
        framed += b'0\r\nX-Trailer: 1\r\n\r\n'
    else:
        head.append(f'Content-Length: {len(body)}')
        if framing == 'both':
            head.append('Transfer-Encoding: chunked')
        if framing == 'two':
            head.append(f'Content-Length: {len(body) + 1}')
        framed = body
    return ('\r\n'.join(head) + '\r\n\r\n').encode() + framed


def seeds() -> dict[str, list[bytes]]:
    s: dict[str, list[bytes]] = {t: [] for t in TARGETS}
    # sse_decode: max_line, max_event (mod 48), flags (bit 0 dispatch at EOF), number of chunk
    # sizes, the sizes, then the stream.
    for raw, opts in sse_inputs():
        flags = 1 if opts.get('dispatch_at_eof') else 0
        s['sse_decode'].append(bytes([47, 47, flags, 0]) + raw)
        s['sse_decode'].append(bytes([47, 47, flags | 2, 2, 3, 1]) + raw)
        # sse_roundtrip reads an arbitrary tuple from the bytes: any bytes are a valid input.
        s['sse_roundtrip'].append(raw)
        # ffi_feed: max_line, max_event (mod 48, plus 1), flags (bit 0 dispatch at EOF, bit 2
        # event-stream content type, bits 5-7 the status), number of chunk sizes, the sizes,
        # then the bytes (an event stream here, a response body below).
        s['ffi_feed'].append(bytes([47, 47, flags | 4, 0]) + raw)
        s['ffi_feed'].append(bytes([47, 47, flags | 4 | 8, 2, 3, 1]) + raw)
    # classify: selector byte (version, binding, status, stream flag, method) + body.
    for k, (inp, body) in enumerate(outcome_bodies()):
        stream = 16 if (inp.get('content_type') or '').startswith('text/event-stream') else 0
        version = {'0.3': 1, '1.0': 2}.get(inp.get('version'), 0)
        s['classify'].append(bytes([(k * 37) & 0xE0 | stream | (k & 0x0C) | version]) + body)
        # http1_response: control byte (bit 7 HEAD, low 5 bits piece size - 1) + a response.
        s['http1_response'].append(bytes([k % 31]) + http1_response(inp, body, chunked=k % 3 == 0))
        s['ffi_feed'].append(bytes([47, 47, (k * 32) & 0xE0 | stream >> 2, 1, 7]) + body)
    # card_parse: the card documents (trust_parse reads them as JSON and as signed cards).
    for case in load('cards.json')['cases']:
        s['card_parse'].append(json.dumps(case['card']).encode())
        s['trust_parse'].append(json.dumps(case['card']).encode())
    # trust_parse: RFC 8785's examples, a JWK Set and a protected header (base64url).
    s['trust_parse'].append(b'{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],'
                            b'"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","literals":[null,true,false]}')
    s['trust_parse'].append(b'{"keys":[{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","kid":"ed"},'
                            b'{"kty":"EC","crv":"P-256","x":"MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4",'
                            b'"y":"4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM","kid":"ec"}]}')
    s['trust_parse'].append(b'eyJhbGciOiJFUzI1NiIsInR5cCI6IkpPU0UiLCJraWQiOiJrZXktMSJ9')
    # server_request: selector (bit 0 REST, bits 1-2 verb, bits 2-4 version header, bits 6-7
    # versions served) + target + LF + body; the requests the builders make.
    for k, case in enumerate(load('requests.json')['cases']):
        exp = case['expect']
        body = json.dumps(exp['body']).encode() if exp.get('body') is not None else b''
        rest = case['interface']['binding'] != 'JSONRPC'
        verb = {'GET': 0, 'POST': 1, 'DELETE': 2, 'PUT': 3}.get(exp.get('method', 'POST'), 1)
        version = 1 if case['interface']['version'] == '1.0' else 3
        sel = (1 if rest else 0) | (verb << 1 if rest else 0) | (version << 2 if not rest else 0)
        s['server_request'].append(bytes([sel & 0x3F]) + exp.get('path', '').encode() + b'\n' + body)
        s['server_request'].append(bytes([(k * 53) & 0xFF]) + exp.get('path', '').encode() + b'\n' + body)
        # http1_request: control byte (bit 7 a 16-byte body limit; low 5 bits piece size - 1)
        # + the request as sent, chunked, or with an ambiguous length; two of them pipelined.
        framing = ('length', 'chunked', 'both', 'two')[k % 4]
        wire = http1_request(exp, body, framing)
        s['http1_request'].append(bytes([k % 31 | (0x80 if k % 5 == 0 else 0)]) + wire + wire)
    for wire in ('wire_objects.json', 'wire_tolerance.json'):
        for case in load(wire)['cases']:
            s['server_request'].append(b'\x00\n' + json.dumps(case['json']).encode())
    # answer_read: the bytes are read both as a result body and as a whole event stream.
    answers = load('answers.json')
    for case in answers['results']:
        s['answer_read'].append(json.dumps(case['body']).encode())
    for case in answers['unreadable']:
        if 'body_b64' in case:
            s['answer_read'].append(base64.b64decode(case['body_b64']))
        else:
            s['answer_read'].append(case['body_text'].encode())
    for case in answers['streams']:
        s['answer_read'].append(''.join(f'data: {e}\n\n' for e in case['events']).encode())
    return s


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = Path(sys.argv[1])
    shutil.rmtree(out, ignore_errors=True)
    for target, inputs in seeds().items():
        d = out / target
        d.mkdir(parents=True)
        for i, data in enumerate(inputs):
            (d / f'{i:04}-{hashlib.sha1(data).hexdigest()[:12]}').write_bytes(data)
        print(f'fuzz-seeds: {target}: {len(inputs)} inputs')
    return 0


if __name__ == '__main__':
    sys.exit(main())
