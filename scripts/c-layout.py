#!/usr/bin/env python3
"""The C compiler's layout of every struct in include/a2a_core.h, as JSON.

The bindings mirror the header's structs by hand (Python ctypes, Java JNA); their layout
tests compare each mirror with what this prints, so a field added, removed, retyped or
reordered in Rust (and so in the generated header) fails those tests until the mirrors
follow. Nothing here trusts the header's own claims: the sizes, alignments and offsets come
from a small C program compiled against the header with the system C compiler (`$CC`,
default `cc`) and run.

Output (stdout, or --out FILE):
  {
    "header": "include/a2a_core.h",
    "pointer_size": 8,
    "structs": {                      # every `typedef struct NAME { ... } NAME;`
      "a2a_str": {
        "size": 16, "align": 8,
        "fields": [{"name": "ptr", "offset": 0, "size": 8}, ...],   # declaration order
        "refs": ["a2a_..."]           # struct types its fields name (by value or pointer)
      }, ...
    },
    "opaque": ["a2a_abort", ...],     # `typedef struct NAME NAME;` (handles, never mirrored)
    "functions": {"a2a_fn": ["a2a_struct", ...], ...}   # struct types each prototype names
  }

Used by bindings/python/tests/test_layout.py and by the Java binding's LayoutTest
(scripts/ci/40-python.sh and 55-java.sh run both).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

STRUCT_RE = re.compile(r'typedef struct (a2a_\w+) \{(.*?)\} \1;', re.S)
OPAQUE_RE = re.compile(r'typedef struct (a2a_\w+) \1;')
FIELD_RE = re.compile(r'^(?P<type>[\w\s]+?)\s*(?P<ptr>[\s*]*?)\s*(?P<name>\w+)\s*(?:\[(?P<n>\d+)\])?$')
FUNC_RE = re.compile(r'^[A-Za-z_][\w\s*]*?\b(a2a_\w+)\s*\(([^;{}]*?)\)\s*;', re.S | re.M)
REF_RE = re.compile(r'\bstruct (a2a_\w+)\b')


def strip_comments(text: str) -> str:
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    return re.sub(r'//[^\n]*', '', text)


def parse(header_text: str) -> dict:
    """Struct names, field names and prototypes from the (cbindgen-generated) header."""
    text = strip_comments(header_text)
    structs: dict[str, dict] = {}
    for name, body in STRUCT_RE.findall(text):
        fields = []
        for decl in body.split(';'):
            decl = ' '.join(decl.split())
            if not decl:
                continue
            m = FIELD_RE.match(decl)
            if not m:
                raise SystemExit(f'c-layout: cannot read field `{decl}` of {name}')
            fields.append(m.group('name'))
        if not fields:
            raise SystemExit(f'c-layout: struct {name} has no fields')
        structs[name] = {'fields': fields, 'refs': sorted(set(REF_RE.findall(body)) - {name})}
    opaque = sorted(set(OPAQUE_RE.findall(text)))
    # Prototypes: everything outside typedef blocks that looks like `T a2a_fn(...);`.
    rest = STRUCT_RE.sub('', text)
    rest = re.sub(r'typedef [^;{]*?\{.*?\}[^;]*;', '', rest, flags=re.S)
    rest = re.sub(r'(?m)^\s*#.*$', '', rest)
    rest = re.sub(r'(?s)\benum \w+\s*\{.*?\};', '', rest)
    functions = {fn: sorted(set(REF_RE.findall(m.group(0))))
                 for m in FUNC_RE.finditer(rest) for fn in [m.group(1)]}
    declared = len(re.findall(r'^typedef struct a2a_\w+ \{', text, re.M))
    if declared != len(structs):
        raise SystemExit(f'c-layout: read {len(structs)} of {declared} struct definitions')
    return {'structs': structs, 'opaque': opaque, 'functions': functions}


def c_program(structs: dict) -> str:
    """A C11 program printing sizeof/_Alignof/offsetof of every struct and field as JSON."""
    out = ['#include <stdio.h>', '#include <stddef.h>', '#include "a2a_core.h"', '',
           '#define FIELD(T, f, sep) printf("%s{\\"name\\": \\"" #f "\\", \\"offset\\": %zu, '
           '\\"size\\": %zu}", sep, offsetof(T, f), sizeof(((T *)0)->f))', '',
           'int main(void) {',
           '  printf("{\\"pointer_size\\": %zu, \\"structs\\": {", sizeof(void *));']
    for i, (name, info) in enumerate(structs.items()):
        sep = ', ' if i else ''
        out.append(f'  printf("{sep}\\"{name}\\": {{\\"size\\": %zu, \\"align\\": %zu, \\"fields\\": [", '
                   f'sizeof({name}), _Alignof({name}));')
        for j, field in enumerate(info['fields']):
            out.append(f'  FIELD({name}, {field}, "{", " if j else ""}");')
        out.append('  printf("]}");')
    out += ['  printf("}}\\n");', '  return 0;', '}', '']
    return '\n'.join(out)


def check_tiling(name: str, info: dict) -> None:
    """The fields the parser read cover the struct: no gap a missed field could sit in."""
    end, align = 0, info['align']
    for f in info['fields']:
        if f['offset'] < end:
            raise SystemExit(f'c-layout: {name}.{f["name"]} overlaps the previous field')
        # A gap of a field's size or more could hold a field the parser did not see.
        if f['offset'] - end >= max(f['size'], 1) and f['offset'] - end >= 8:
            raise SystemExit(f'c-layout: {name}: {f["offset"] - end} unexplained bytes before {f["name"]}')
        end = f['offset'] + f['size']
    if info['size'] - end >= align:
        raise SystemExit(f'c-layout: {name}: {info["size"] - end} unexplained bytes at the end')


def layout(header: Path, cc: str) -> dict:
    parsed = parse(header.read_text(encoding='utf-8'))
    with tempfile.TemporaryDirectory(prefix='a2a-c-layout-') as tmp:
        src, exe = Path(tmp) / 'layout.c', Path(tmp) / 'layout'
        src.write_text(c_program(parsed['structs']), encoding='utf-8')
        cmd = [*cc.split(), '-std=c11', '-Wall', '-Wextra', '-Werror', '-pedantic',
               f'-I{header.parent}', str(src), '-o', str(exe)]
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise SystemExit(f'c-layout: {" ".join(cmd)} failed:\n{done.stdout}{done.stderr}')
        measured = json.loads(subprocess.run([str(exe)], capture_output=True, text=True,
                                             check=True, timeout=60).stdout)
    structs = {}
    for name, info in measured['structs'].items():
        check_tiling(name, info)
        structs[name] = {**info, 'refs': parsed['structs'][name]['refs']}
    try:
        shown = str(header.resolve().relative_to(ROOT))
    except ValueError:
        shown = str(header)
    return {'header': shown, 'pointer_size': measured['pointer_size'], 'structs': structs,
            'opaque': parsed['opaque'], 'functions': parsed['functions']}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--header', type=Path, default=ROOT / 'include' / 'a2a_core.h')
    ap.add_argument('--out', type=Path, help='write the JSON here instead of stdout')
    args = ap.parse_args()
    table = layout(args.header, os.environ.get('CC', 'cc'))
    text = json.dumps(table, indent=1) + '\n'
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text, encoding='utf-8')
    else:
        sys.stdout.write(text)
    return 0


if __name__ == '__main__':
    sys.exit(main())
