#!/usr/bin/env bash
# Go binding (bindings/go): builds liba2a_core exactly as scripts/ci/30-c.sh does
# (`cargo build -p a2a-core-ffi`, debug, in ${CARGO_TARGET_DIR:-target}), then in
# bindings/go runs `go vet ./...`, a gofmt check, and `go test ./...` (the shared fixtures
# plus the end-to-end tests against the real Python a2a-sdk peer and the JS @a2a-js/sdk
# peer, started by tests/peers/launch.py, the Python one with --ping 1; the net/http
# HTTPClient's tests against the project's fault server, a2a-testkit fault-server, started
# here as A2A_TEST_FAULT_URL; the trust end-to-end test against `a2a demo --serve`, built
# here and named by A2A_BIN); then the tests
# once more with GOEXPERIMENT=cgocheck2 (the runtime checks every pointer the binding
# hands to C: the memory rule of the C ABI), once with -race, and the decoder benchmark
# once (a smoke run). Last, a module of the user's own, outside the repository (a `replace`
# line onto bindings/go), built against the scripts/install layout in a temporary prefix
# through pkg-config, with -tags a2a_pkgconfig (shared) and -tags a2a_pkgconfig_static, and
# run both ways.
#
# Needs: scripts/ci/05-setup.sh (.venv with the Python peer, the JS peer's node_modules),
# a C compiler for cgo (installed from Debian when missing), and Go >= 1.24. When no such
# Go is installed, the go1.24 toolchain is fetched as the Go module golang.org/toolchain
# from the Go module proxy (what `go` itself does for GOTOOLCHAIN) into
# build/go-toolchain, checked against a pinned SHA-256.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

need() { command -v "$1" >/dev/null 2>&1; }
if ! need cc; then
  echo "50-go: installing a C compiler for cgo"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq build-essential >/dev/null
fi
if [ ! -x .venv/bin/python ] || [ ! -d tests/peers/js/node_modules/@a2a-js/sdk ]; then
  echo "50-go: .venv or the JS peer's node_modules is missing: run scripts/ci/05-setup.sh" >&2
  exit 1
fi

# --- Go >= 1.24 -----------------------------------------------------------------------
go_ok() {
  local v
  v=$("$1" env GOVERSION 2>/dev/null) || return 1   # e.g. go1.26.8
  v=${v#go}
  local major=${v%%.*} rest=${v#*.}
  local minor=${rest%%[.a-z]*}
  [ "$major" -gt 1 ] || { [ "$major" -eq 1 ] && [ "$minor" -ge 24 ]; }
}
GO=""
if need go && go_ok go; then
  GO=$(command -v go)
else
  TC_VERSION=1.24.11
  case "$(uname -m)" in
    x86_64) TC_ARCH=amd64; TC_SHA256=8a9685c09d449928863152512648530dafde05e7d41fcbb21baba3a852e84ef4 ;;
    *) echo "50-go: no Go >= 1.24 installed and no pinned toolchain for $(uname -m); install Go >= 1.24" >&2; exit 1 ;;
  esac
  tc_dir="$root/build/go-toolchain/go$TC_VERSION"
  if [ ! -x "$tc_dir/bin/go" ]; then
    proxy=${GOPROXY:-https://proxy.golang.org}; proxy=${proxy%%,*}
    [ "$proxy" = direct ] || [ "$proxy" = off ] && proxy=https://proxy.golang.org
    zip="$root/build/go-toolchain/go$TC_VERSION.zip"
    mkdir -p "$root/build/go-toolchain"
    echo "50-go: fetching golang.org/toolchain v0.0.1-go$TC_VERSION.linux-$TC_ARCH from $proxy"
    curl -sfSL -o "$zip" "$proxy/golang.org/toolchain/@v/v0.0.1-go$TC_VERSION.linux-$TC_ARCH.zip"
    echo "$TC_SHA256  $zip" | sha256sum -c --quiet -
    rm -rf "$tc_dir.tmp" && mkdir -p "$tc_dir.tmp"
    python3 - "$zip" "$tc_dir.tmp" <<'PY'
import sys, zipfile, os
zf, dest = zipfile.ZipFile(sys.argv[1]), sys.argv[2]
for info in zf.infolist():
    name = info.filename.split('/', 2)[-1] if info.filename.count('/') >= 2 else None
    if not name or name.endswith('/'):
        continue
    path = os.path.join(dest, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with zf.open(info) as src, open(path, 'wb') as out:
        out.write(src.read())
    if name.startswith('bin/') or name.startswith('pkg/tool/'):
        os.chmod(path, 0o755)
PY
    mv "$tc_dir.tmp" "$tc_dir"
    rm -f "$zip"
  fi
  GO="$tc_dir/bin/go"
  export GOROOT="$tc_dir"
fi
export GOTOOLCHAIN=local   # never switch toolchains behind our back
export GOFLAGS=-mod=mod    # the module has no dependencies; nothing to verify against go.sum
echo "50-go: $("$GO" version)"

# --- the library, as 30-c.sh builds it --------------------------------------------------
cargo build -p a2a-core-ffi
cargo build -p a2a-testkit   # the fault server for HTTPClient's tests (httpclient_fault_test.go)
# The reference agent, `a2a demo --serve`, for the trust end-to-end test (e2e_trust_test.go:
# OAuth2 through its /oauth2/token, its signed card).
cargo build -p a2a-core --features driver --bin a2a
target_dir="${CARGO_TARGET_DIR:-target}"
case "$target_dir" in /*) ;; *) target_dir="$root/$target_dir" ;; esac
lib_dir="$target_dir/debug"
export A2A_BIN="$target_dir/debug/a2a"
# The debug build is linked only when named: -tags a2a_debug (<repo>/target/debug).
tags=(-tags a2a_debug)
if [ "$lib_dir" != "$root/target/debug" ]; then
  # Elsewhere, say where it is.
  tags=(-tags a2a_system)
  export CGO_LDFLAGS="-L$lib_dir -Wl,-rpath,$lib_dir ${CGO_LDFLAGS:-}"
fi
export CGO_ENABLED=1

# The project's fault server (a2a-testkit fault-server) for the net/http client's tests.
fault_dir=$(mktemp -d)
"$target_dir/debug/a2a-testkit" fault-server --port 0 >"$fault_dir/out" 2>"$fault_dir/err" &
fault_pid=$!
trap 'kill "$fault_pid" 2>/dev/null || true; rm -rf "$fault_dir"' EXIT
for _ in $(seq 1 200); do
  grep -q '^READY ' "$fault_dir/out" 2>/dev/null && break
  sleep 0.1
done
A2A_TEST_FAULT_URL=$(sed -n 's/^READY //p' "$fault_dir/out" | head -n 1)
[ -n "$A2A_TEST_FAULT_URL" ] || { cat "$fault_dir/err"; echo "50-go: the fault server did not start within 20 s" >&2; exit 1; }
export A2A_TEST_FAULT_URL

cd bindings/go
"$GO" vet "${tags[@]}" ./...
# staticcheck, pinned (v0.8.2 supports the Go here), installed once from the module proxy
# into build/go-tools; skipped with a note when it cannot be installed.
sc="$root/build/go-tools/staticcheck-v0.8.2"
if [ ! -x "$sc" ]; then
  mkdir -p "$root/build/go-tools"
  if (cd "$root/build/go-tools" && GOBIN="$root/build/go-tools/bin" GOFLAGS= "$GO" install honnef.co/go/tools/cmd/staticcheck@v0.8.2); then
    mv "$root/build/go-tools/bin/staticcheck" "$sc"
  else
    echo "50-go: staticcheck could not be installed from the module proxy: skipped"
  fi
fi
if [ -x "$sc" ]; then
  echo "--- staticcheck"
  "$sc" "${tags[@]}" ./...
fi
fmt_out=$("$(dirname "$GO")/gofmt" -l .)
if [ -n "$fmt_out" ]; then
  echo "50-go: gofmt would change:"; echo "$fmt_out"; exit 1
fi

# Both real peers: the Python one (with 1 s keep-alives) for the full end-to-end tests, the
# JS one for the driver client's cross-check (A2A_REQUIRE_JS_PEER makes its absence fail).
launch=("$root/.venv/bin/python" "$root/tests/peers/launch.py" python,js --ping 1 --)
echo "--- go test (fixtures + end-to-end against the Python and JS peers)"
"${launch[@]}" env CI=true A2A_PEER_PING=1 A2A_REQUIRE_JS_PEER=1 "$GO" test "${tags[@]}" -count=1 ./...
echo "--- go test with GOEXPERIMENT=cgocheck2 (every pointer passed to C is checked)"
"${launch[@]}" env CI=true A2A_PEER_PING=1 A2A_REQUIRE_JS_PEER=1 GOEXPERIMENT=cgocheck2 "$GO" test "${tags[@]}" -count=1 ./...
echo "--- go test -race (the driver client's calls, hooks and Close under load run across goroutines)"
"${launch[@]}" env CI=true A2A_PEER_PING=1 A2A_REQUIRE_JS_PEER=1 "$GO" test "${tags[@]}" -race -count=1 ./...
echo "--- benchmark (one short run: a smoke test, not a measurement)"
"$GO" test "${tags[@]}" -run '^$' -bench . -benchtime 200x ./...

echo "--- the serving example (examples/serve: AgentServer on net/http), one call on the wire"
"$GO" build "${tags[@]}" -o "$root/build/go-serve-example" ./examples/serve
serve_out=$(mktemp)
"$root/build/go-serve-example" >"$serve_out" 2>&1 &
serve_pid=$!
for _ in $(seq 1 100); do grep -q '^READY ' "$serve_out" && break; sleep 0.1; done
serve_url=$(sed -n 's/^READY //p' "$serve_out")
served=$(curl -sf -H 'Content-Type: application/json' -H 'A2A-Version: 1.0' \
  -d '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m-1","role":"ROLE_USER","parts":[{"text":"echo served"}]}}}' \
  "$serve_url/" || true)
kill "$serve_pid"; wait "$serve_pid" 2>/dev/null || true
rm -f "$serve_out" "$root/build/go-serve-example"
grep -q '"parts":\[{"text":"served"}\]' <<<"$served" || { echo "50-go: examples/serve answered: $served" >&2; exit 1; }

echo "--- a module of the user's own against the installed library (pkg-config)"
cd "$root"
work=$(mktemp -d)
trap 'rm -rf "$work"; kill "$fault_pid" 2>/dev/null || true; rm -rf "$fault_dir"' EXIT
scripts/install --prefix "$work/prefix" >/dev/null 2>"$work/install.log" || { cat "$work/install.log"; exit 1; }
mkdir "$work/first"
cat > "$work/first/go.mod" <<EOM
module example.com/first

go 1.24

require a2a.local/a2a v0.0.0

replace a2a.local/a2a => $root/bindings/go
EOM
cat > "$work/first/main.go" <<'EOM'
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"time"

	a2a "a2a.local/a2a"
)

func main() {
	dec, err := a2a.NewDecoder(nil)
	if err != nil {
		log.Fatal(err)
	}
	defer dec.Close()
	events, err := dec.Feed([]byte(": keep-alive\n\ndata: {\"kind\":\"status-update\",\"final\":true}\n\n"))
	if err != nil {
		log.Fatal(err)
	}
	for _, ev := range events {
		fmt.Printf("%s %s\n", ev.Type, ev.Data)
	}
	fmt.Println("keep-alives:", dec.Comments(), "library:", a2a.LibraryVersion())

	// An agent of our own on loopback, called with HTTPClient over net/http.
	agent := &a2a.AgentServer{Name: "first", Description: "echo", Version: "1",
		Handler: func(ctx context.Context, a *a2a.AgentContext) error { a.Reply("hello, " + a.Text()); return nil }}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	go func() { _ = http.Serve(ln, agent) }()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	client, err := a2a.NewHTTPClient(ctx, "http://"+ln.Addr().String())
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	o, err := client.SendText(ctx, "Go", nil)
	if err != nil {
		log.Fatal(err)
	}
	text, _ := o.GetText()
	fmt.Println("send:", o.Channel, text)
	_, err = client.GetTask(ctx, "t-404", nil)
	var oe *a2a.OutcomeError
	fmt.Println("get:", errors.As(err, &oe), err)
}
EOM
(
  cd "$work/first"
  unset CGO_LDFLAGS
  export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig"
  [ "$("$GO" list -tags a2a_pkgconfig -f '{{join .CgoPkgConfig " "}}' a2a.local/a2a)" = a2a_core ] \
    || { echo "50-go: -tags a2a_pkgconfig does not link through pkg-config" >&2; exit 1; }
  CGO_LDFLAGS="-Wl,-rpath,$work/prefix/lib" "$GO" build -tags a2a_pkgconfig -o first-shared .
  # Go's build cache keys a cgo package by its #cgo lines and CGO_* variables, not by what
  # pkg-config printed: without a variable naming this run's prefix, the package compiled
  # against an earlier run's prefix (a temporary directory, removed since) comes from the
  # cache and the link looks for that run's archive. (The shared build above is keyed by its
  # rpath.) -L is harmless here: the .pc names the archive by its full path.
  CGO_LDFLAGS="-L$work/prefix/lib" "$GO" build -tags a2a_pkgconfig_static -o first-static .
  readelf -d first-shared | grep -q 'NEEDED.*\[liba2a_core.so.0.1\]' || { echo "50-go: first-shared does not load liba2a_core.so.0.1" >&2; exit 1; }
  if readelf -d first-static | grep -q 'NEEDED.*liba2a_core'; then echo "50-go: first-static needs the shared library" >&2; exit 1; fi
  ./first-shared > shared.out
  mv "$work/prefix" "$work/prefix.away"   # the static one needs nothing from the prefix
  ./first-static > static.out
  mv "$work/prefix.away" "$work/prefix"
  cat shared.out
  cmp -s shared.out static.out || { diff -u shared.out static.out; exit 1; }
  grep -q '^message {"kind":"status-update","final":true}$' shared.out
  grep -q '^keep-alives: 1 ' shared.out
  grep -q '^send: message hello, Go$' shared.out
  grep -q '^get: true a2a: protocol/TaskNotFound' shared.out
)
echo "Go binding: all checks passed"
