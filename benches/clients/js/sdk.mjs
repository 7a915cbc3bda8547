// The official JavaScript SDK's client (@a2a-js/sdk 1.3.0, the copy tests/peers/js installs
// with `npm ci`) in the client-overhead harness: ClientFactory.createFromUrl resolves the
// card once and picks the interface the SDK prefers (JSON-RPC at 1.0 on the bench server),
// then sendMessage and sendMessageStream as an application calls them, every answer
// asserted. `node sdk.mjs 0.3` hands the SDK the same card without its 1.0 interfaces and
// a JSON-RPC transport with the SDK's legacy (0.3) compatibility on, so it speaks 0.3 (the
// objects the application sees are the same). Contract (environment, JSON line):
// benches/clients/rust/src/lib.rs.
// Run with `node --expose-gc` (the memory figure collects garbage before each reading).
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
const peer = createRequire(path.join(here, '../../../tests/peers/js/package.json'));
const { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, DefaultAgentCardResolver } =
  await import(pathToFileURL(peer.resolve('@a2a-js/sdk/client')).href);
const { Role, TaskState } = await import(pathToFileURL(peer.resolve('@a2a-js/sdk')).href);

const num = (name, def) => {
  const v = process.env[name];
  if (v === undefined) return def;
  const n = Number.parseInt(v, 10);
  if (Number.isNaN(n)) throw new Error(`${name}=${v} is not a number`);
  return n;
};
const p = {
  url: process.env.BENCH_URL,
  sends: num('BENCH_SENDS', 2000),
  warmup: num('BENCH_WARMUP', 200),
  events: num('BENCH_EVENTS', 10000),
  warmupEvents: num('BENCH_WARMUP_EVENTS', 1000),
  idle: num('BENCH_IDLE', 100),
};
if (!p.url) throw new Error('BENCH_URL must name the bench server');

function check(ok, what) {
  if (!ok) throw new Error(`wrong answer: ${typeof what === 'function' ? what() : what}`);
}
const cpuNs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
};
const rssKiB = () => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) : 0;
};
const textOf = (parts) =>
  parts.filter((x) => x.content?.$case === 'text').map((x) => x.content.value).join('');
let seq = 0;
const request = (text) => ({
  message: { messageId: `m-${++seq}`, role: Role.ROLE_USER, parts: [{ content: { $case: 'text', value: text } }] },
});

async function send(c) {
  const r = await c.sendMessage(request('ping'));
  check(r.status?.state === TaskState.TASK_STATE_COMPLETED && textOf(r.artifacts[0].parts) === 'ping',
    () => JSON.stringify(r));
}

async function stream(c, n) {
  let events = 0;
  let state;
  let last = '';
  for await (const ev of c.sendMessageStream(request(`stream ${n}`))) {
    events++;
    const { $case, value } = ev.payload;
    if ($case === 'task' || $case === 'statusUpdate') state = value.status.state;
    else if ($case === 'artifactUpdate') last = textOf(value.artifact.parts);
  }
  check(events === n, `${events} events, wanted ${n}`);
  check(state === TaskState.TASK_STATE_COMPLETED, `end state ${state}`);
  check(last === `chunk ${n - 4}`, `last artifact ${last}`);
}

const v03 = process.argv[2] === '0.3';
let c;
if (v03) {
  const raw = await (await fetch(`${p.url}/.well-known/agent-card.json`)).json();
  raw.supportedInterfaces = raw.supportedInterfaces.filter((i) => i.protocolVersion === '0.3');
  const card = new DefaultAgentCardResolver().normalizeAgentCard(raw);
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ legacyCompat: { enabled: true } })],
  });
  c = await new ClientFactory(options).createFromAgentCard(card);
} else {
  c = await new ClientFactory().createFromUrl(p.url);
}
check(c.protocolVersion === (v03 ? '0.3' : '1.0'), `the client speaks ${c.protocolVersion}`);
for (let i = 0; i < p.warmup; i++) await send(c);
await stream(c, Math.max(p.warmupEvents, 4));

const r = { client: v03 ? 'js-sdk-0.3' : 'js-sdk', sends: p.sends, events: p.events, idle_streams: p.idle };
let wall = process.hrtime.bigint();
let cpu = cpuNs();
for (let i = 0; i < p.sends; i++) await send(c);
const sendWall = Number(process.hrtime.bigint() - wall) / 1e9;
const sendCpu = cpuNs() - cpu;
wall = process.hrtime.bigint();
cpu = cpuNs();
await stream(c, p.events);
const streamWall = Number(process.hrtime.bigint() - wall) / 1e9;
const streamCpu = cpuNs() - cpu;

let before = 0;
let after = 0;
if (p.idle > 0) {
  global.gc?.();
  before = rssKiB();
  const open = [];
  for (let i = 0; i < p.idle; i++) {
    const it = c.sendMessageStream(request('hold'));
    const first = await it.next();
    check(!first.done && first.value.payload.$case === 'task', () => JSON.stringify(first));
    open.push(it);
  }
  global.gc?.();
  after = rssKiB();
  await Promise.all(open.map((it) => it.return()));
}
Object.assign(r, {
  sends_per_s: p.sends / sendWall,
  cpu_us_per_send: sendCpu / 1000 / p.sends,
  events_per_s: p.events / streamWall,
  cpu_us_per_event: streamCpu / 1000 / p.events,
  rss_before_kib: before,
  rss_after_kib: after,
  rss_kib_per_stream: p.idle > 0 ? (after - before) / p.idle : 0,
});
console.log(JSON.stringify(r));
process.exit(0);
