#!/usr/bin/env bash
# Java binding (bindings/java): builds liba2a_core once (debug, as scripts/ci/30-c.sh does),
# then `mvn -B -q install -Ppeers` over both modules (the build also compiles the release
# library and bundles it in a2a-core's jar at linux-x86-64/liba2a_core.so; the tests load the
# debug one, named in A2A_CORE_LIB; the `peers` profile adds the tests that need the peers and
# the `a2a` binary, which a plain `mvn install` on a fresh clone leaves out):
#   a2a-core       JNA binding + the shared fixtures (sse, outcomes, error_ids, idempotency,
#                  cards, requests), tally, SSE encoder, CloseUnderLoadTest (A2aClient
#                  closed while threads are inside calls), and LayoutTest: every JNA Structure
#                  against the C compiler's sizeof/offsetof of include/a2a_core.h
#                  (scripts/c-layout.py, run with the .venv's python and the system cc)
#   a2a-java-http  the driver's A2aClient against the real Python and JS peers and the
#                  fault server; the asynchronous A2aClient (client machine on java.net.http:
#                  AsyncFaultTest, AsyncPeerTest); drop-in A2AHttpClient for a2a-java 0.3.2.Final: real Python peer tests
#                  through a2a-java's Client + JSONRPCTransport, side-by-side fault tests
#                  against the stock JdkA2AHttpClient, on the project's `a2a-testkit fault-server`
#                  and on a fault server in the test code (loopback only)
# Needs JDK 17+ and Maven 3.8+ (installed from Debian when missing and running as root;
# Maven then downloads the dependencies from Maven Central), and the .venv of
# scripts/ci/05-setup.sh for the Python a2a-sdk peer, and its npm ci of tests/peers/js for
# the JS peer.
set -euo pipefail
cd "$(dirname "$0")/../.."
started=$(date +%s)

java_major() {
  java -version 2>&1 | sed -nE 's/.*version "([0-9]+)(\.[0-9]+)*.*/\1/p' | head -n 1
}
if ! command -v java >/dev/null 2>&1 || ! command -v mvn >/dev/null 2>&1 \
   || [ "$(java_major)" -lt 17 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "55-java: installing openjdk-17-jdk-headless and maven from Debian"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jdk-headless maven >/dev/null
  fi
fi
command -v mvn >/dev/null 2>&1 || { echo "55-java: Maven is required" >&2; exit 1; }
major=$(java_major)
if [ -z "$major" ] || [ "$major" -lt 17 ]; then
  echo "55-java: JDK 17 or newer is required (found: $(java -version 2>&1 | head -n 1))" >&2
  exit 1
fi
if [ ! -x .venv/bin/python ]; then
  echo "55-java: .venv is missing (the Python a2a-sdk peer): run scripts/ci/05-setup.sh" >&2
  exit 1
fi
if [ ! -d tests/peers/js/node_modules ] || ! command -v node >/dev/null 2>&1; then
  echo "55-java: node or tests/peers/js/node_modules is missing (the JS peer): run scripts/ci/05-setup.sh" >&2
  exit 1
fi

cargo build -p a2a-core-ffi
# The project's fault-injecting server (`a2a-testkit fault-server`, testkit/) for
# ProjectFaultServerTest and A2aClientFaultTest, found through A2A_TESTKIT_BIN.
cargo build -p a2a-testkit
target="${CARGO_TARGET_DIR:-$PWD/target}"
lib="$target/debug/liba2a_core.so"
[ -f "$lib" ] || { echo "55-java: $lib was not built" >&2; exit 1; }
export A2A_CORE_LIB="$lib"
export A2A_TESTKIT_BIN="$target/debug/a2a-testkit"
echo "55-java: $(java -version 2>&1 | head -n 1), $(mvn -v 2>/dev/null | head -n 1 | sed 's/\x1b\[[0-9;]*m//g'), A2A_CORE_LIB=$A2A_CORE_LIB"

cd bindings/java
rm -rf a2a-core/target/surefire-reports a2a-java-http/target/surefire-reports adk-e2e/target/surefire-reports
mvn -B -q install -Ppeers

# Summary from the Surefire reports; a skipped test counts as a failure here.
python3 - <<'PY'
import glob, sys
import xml.etree.ElementTree as ET
total = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
per = {}
for f in sorted(glob.glob("*/target/surefire-reports/TEST-*.xml")):
    r = ET.parse(f).getroot()
    mod = f.split("/")[0]
    for k in total:
        n = int(r.get(k, 0))
        total[k] += n
        per.setdefault(mod, 0)
        if k == "tests":
            per[mod] += n
mods = ", ".join(f"{m}: {n}" for m, n in per.items())
print(f"55-java: {total['tests']} tests ({mods}), {total['failures']} failures, "
      f"{total['errors']} errors, {total['skipped']} skipped")
if total["tests"] == 0 or total["failures"] or total["errors"] or total["skipped"]:
    sys.exit(1)
PY
# The README's example, compiled and run against the built classes; its output must be
# exactly what the README shows (examples/Example.expected).
out=$(mktemp -d)
mvn -B -q -pl a2a-core dependency:build-classpath -Dmdep.includeScope=runtime -Dmdep.outputFile="$out/cp.txt" >/dev/null
cp="a2a-core/target/classes:$(cat "$out/cp.txt")"
javac -d "$out" -cp "$cp" examples/Example.java
java -cp "$out:$cp" Example > "$out/actual.txt"
diff -u examples/Example.expected "$out/actual.txt" || { echo "55-java: README example output changed" >&2; exit 1; }
# The trust example (signed card, webhook check, push verdicts): its output is the README's.
javac -d "$out" -cp "$cp" examples/TrustExample.java
java -cp "$out:$cp" TrustExample > "$out/trust.txt"
diff -u examples/TrustExample.expected "$out/trust.txt" || { echo "55-java: README trust example output changed" >&2; exit 1; }
# The README's A2aClient example needs an agent: compiled only, so the README cannot drift.
javac -d "$out" -cp "$cp" examples/ClientExample.java examples/AsyncExample.java
# The serving example (A2aServer on com.sun.net.httpserver): compiled, started, and its card
# and one JSON-RPC call checked on the wire (A2aServerTest covers the rest).
javac -d "$out" -cp "$cp" examples/ServeExample.java
java -cp "$out:$cp" ServeExample >"$out/serve.out" 2>"$out/serve.err" &
serve_pid=$!
for _ in $(seq 1 300); do grep -q "^READY " "$out/serve.out" 2>/dev/null && break; sleep 0.1; done
serve_url=$(sed -n 's/^READY //p' "$out/serve.out")
[ -n "$serve_url" ] || { cat "$out/serve.err"; kill "$serve_pid"; echo "55-java: ServeExample did not start" >&2; exit 1; }
served=$(curl -sf -H 'Content-Type: application/json' -H 'A2A-Version: 1.0' \
  -d '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m-1","role":"ROLE_USER","parts":[{"text":"echo served"}]}}}' \
  "$serve_url/")
kill "$serve_pid"
wait "$serve_pid" 2>/dev/null || true
grep -q '"parts":\[{"text":"served"}\]' <<<"$served" || { echo "55-java: ServeExample answered: $served" >&2; exit 1; }
rm -rf "$out"
echo "55-java: README example output matches"

# The same drop-in classes (compiled against 0.3.2.Final above; -Dmaven.main.skip keeps them)
# under the other a2a-java 0.3.x versions (README, "Across a2a-java 0.3.x"): 0.3.3.Final runs
# every side-by-side, resilience, peer and unit test of the drop-in; 0.3.0.Beta1 (ADK 0.5.0's
# pin), whose Client itself ends streams and plain sends differently, the HTTP-client tests.
# useIncrementalCompilation=false: the test classes too stay as compiled against 0.3.2.Final
# (a2a-java's message constants are inlined into them). With the default, the compiler
# plugin recompiles every test source when a dependency jar is newer than its last build,
# as a freshly downloaded 0.3.0.Beta1 is, and two test files import io.a2a.common, which
# 0.3.0.Beta1 does not have.
sdk_tests() {
  mvn -B -q -pl a2a-java-http -Ppeers -Da2a.sdk.version="$1" -Dmaven.main.skip=true \
    -Dmaven.compiler.useIncrementalCompilation=false test -Dtest="$2"
  echo "55-java: a2a-java $1: $2 passed"
}
sdk_tests 0.3.3.Final 'SideBySide*Test,DropInResilienceTest,PythonPeerTest,A2aCoreHttpClientTest'
sdk_tests 0.3.0.Beta1 'A2aCoreHttpClientTest,DropInResilienceTest'
# ADK for Java (google-adk-a2a 0.5.0 from Maven Central): RemoteA2AAgent run by InMemoryRunner
# over the stock client and the drop-in, against the fault server and the Python SDK peer.
mvn -B -q -Padk,peers -pl adk-e2e test
grep -q 'tests="6"' adk-e2e/target/surefire-reports/TEST-dev.a2acore.adk.RemoteA2AAgentTest.xml \
  || { echo "55-java: the ADK end-to-end test did not run its 6 cases" >&2; exit 1; }
echo "55-java: ADK RemoteA2AAgent end-to-end passed"

# Both artifacts are installed, the core jar carries the library, and a Maven project of the
# user's own (outside the repository) depending on it runs with no variable set.
m2="$HOME/.m2/repository"   # Maven's default local repository
for a in a2a-core a2a-java-http; do
  [ -f "$m2/dev/a2acore/$a/0.1.0/$a-0.1.0.jar" ] || { echo "55-java: $a-0.1.0.jar is not installed" >&2; exit 1; }
done
grep -qx 'linux-x86-64/liba2a_core.so' <<<"$(jar tf "$m2/dev/a2acore/a2a-core/0.1.0/a2a-core-0.1.0.jar")" \
  || { echo "55-java: the a2a-core jar does not bundle linux-x86-64/liba2a_core.so" >&2; exit 1; }
user=$(mktemp -d)
mkdir -p "$user/src/main/java"
cat > "$user/pom.xml" <<'EOM'
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId>
  <artifactId>first</artifactId>
  <version>1</version>
  <properties>
    <maven.compiler.source>17</maven.compiler.source>
    <maven.compiler.target>17</maven.compiler.target>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <dependencies>
    <dependency>
      <groupId>dev.a2acore</groupId>
      <artifactId>a2a-core</artifactId>
      <version>0.1.0</version>
    </dependency>
  </dependencies>
</project>
EOM
cat > "$user/src/main/java/First.java" <<'EOM'
import dev.a2acore.A2aCore;
import dev.a2acore.SseDecoder;
import dev.a2acore.SseEvent;
import java.nio.charset.StandardCharsets;

public class First {
    public static void main(String[] args) {
        try (SseDecoder decoder = new SseDecoder()) {
            byte[] chunk = ": keep-alive\n\ndata: {\"kind\":\"status-update\",\"final\":true}\n\n"
                .getBytes(StandardCharsets.UTF_8);
            for (SseEvent event : decoder.feed(chunk)) {
                System.out.println(event.type() + " " + event.data());
            }
        }
        System.out.println("liba2a_core " + A2aCore.version() + " from " + A2aCore.libraryPath());
    }
}
EOM
(cd "$user" && mvn -B -q package dependency:build-classpath -Dmdep.outputFile=cp.txt >/dev/null \
  && env -u A2A_CORE_LIB -u A2A_BIN java -cp "target/classes:$(cat cp.txt)" First) > "$user/out.txt"
cat "$user/out.txt"
grep -qx 'message {"kind":"status-update","final":true}' "$user/out.txt" \
  || { echo "55-java: the user project's output is wrong" >&2; exit 1; }
grep -q "^liba2a_core 0.1.0 from " "$user/out.txt" && ! grep -q "$PWD/../../target" "$user/out.txt" \
  || { echo "55-java: the user project did not load the bundled library" >&2; exit 1; }
rm -rf "$user"
echo "55-java: done in $(( $(date +%s) - started ))s"
