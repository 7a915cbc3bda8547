// Drives a server with the official JavaScript SDK's client (@a2a-js/sdk, the copy
// tests/peers/js installs with `npm ci`): `node js_sdk.mjs URL`. The client comes from the
// SDK's ClientFactory and card resolver (given the card's URL), its JSON-RPC transport with
// the legacy (0.3) compatibility on, as tests/conformance/clients/js_sdk.mjs makes it (a 1.0
// card is spoken in 1.0 either way). Runs send, stream, get and cancel against an agent that
// answers the binding example servers' words (`echo <text>`, `count <n>`, `slow <seconds>`, `refuse <text>`: InvalidParams).
// One line per check; exit status 1 when any failed.
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
const peer = createRequire(path.join(here, '../../peers/js/package.json'));
const { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } =
  await import(pathToFileURL(peer.resolve('@a2a-js/sdk/client')).href);
const { Role, TaskState } = await import(pathToFileURL(peer.resolve('@a2a-js/sdk')).href);

const [url] = process.argv.slice(2);
if (!url) {
  console.error('usage: node js_sdk.mjs URL');
  process.exit(2);
}
const textOf = (parts) =>
  (parts ?? []).filter((x) => x.content?.$case === 'text').map((x) => x.content.value).join('');
const stateName = (s) => Object.keys(TaskState).find((k) => TaskState[k] === s) ?? String(s);
let failed = false;
function check(name, ok, detail) {
  failed ||= !ok;
  const d = typeof detail === 'string' ? detail : JSON.stringify(detail);
  console.log(ok ? `ok js-sdk ${name}` : `FAIL js-sdk ${name}: ${(d ?? '').slice(0, 600)}`);
}
const request = (text) => ({
  message: { messageId: crypto.randomUUID(), role: Role.ROLE_USER, parts: [{ content: { $case: 'text', value: text } }] },
});

const timer = setTimeout(() => { check('run', false, 'over 90 s'); process.exit(1); }, 90_000);
try {
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ legacyCompat: { enabled: true } })],
  });
  const c = await new ClientFactory(options).createFromUrl(`${url.replace(/\/$/, '')}/.well-known/agent-card.json`, '');

  const echoed = await c.sendMessage(request('echo hello'));
  check('send', echoed.status === undefined && textOf(echoed.parts) === 'hello', echoed);

  let state;
  let chunks = '';
  for await (const ev of c.sendMessageStream(request('count 3'))) {
    const { $case, value } = ev.payload;
    if ($case === 'task' || $case === 'statusUpdate') state = value.status.state;
    else if ($case === 'artifactUpdate') chunks += textOf(value.artifact.parts);
  }
  check('stream', state === TaskState.TASK_STATE_COMPLETED && chunks === 'chunk 1 chunk 2 chunk 3 ',
    `${stateName(state)} ${chunks}`);

  const task = await c.sendMessage(request('count 2'));
  check('send a task', task.status?.state === TaskState.TASK_STATE_COMPLETED, task);
  if (task.id) {
    const got = await c.getTask({ id: task.id, tenant: '' });
    check('get', got.id === task.id && got.status.state === TaskState.TASK_STATE_COMPLETED && got.history.length >= 1, got);
  }
  try {
    const got = await c.getTask({ id: 'no-such-task', tenant: '' });
    check('get of an unknown task', false, got);
  } catch (e) {
    check('get of an unknown task', /not ?found/i.test(`${e?.name} ${e?.message}`), `${e?.name}: ${e?.message}`);
  }

  try {
    const r = await c.sendMessage(request('refuse x'));
    check('a refused send', false, r);
  } catch (e) {
    // The SDK's name for INVALID_PARAMS (-32602) is RequestMalformedError.
    check('a refused send', /refused: x/.test(e?.message) && e?.name === 'RequestMalformedError',
      `${e?.name}: ${e?.message} (${e?.code})`);
  }
  try {
    for await (const ev of c.sendMessageStream(request('refuse x'))) check('a refused stream', false, ev);
  } catch (e) {
    check('a refused stream', /refused: x/.test(e?.message), `${e?.name}: ${e?.message} (${e?.code})`);
  }

  let id;
  let canceled;
  state = undefined;
  for await (const ev of c.sendMessageStream(request('slow 30'))) {
    const { $case, value } = ev.payload;
    if ($case === 'task' && id === undefined) {
      id = value.id;
      canceled = await c.cancelTask({ id, tenant: '', metadata: undefined });
    }
    if ($case === 'statusUpdate') state = value.status.state;
  }
  check('cancel', canceled?.status?.state === TaskState.TASK_STATE_CANCELED, canceled);
  check('the canceled stream', state === TaskState.TASK_STATE_CANCELED, stateName(state));
  if (id) {
    const got = await c.getTask({ id, tenant: '' });
    check('get after cancel', got.status.state === TaskState.TASK_STATE_CANCELED, stateName(got.status.state));
  }
} catch (e) {
  check('run', false, `${e?.name}: ${e?.message}`);
}
clearTimeout(timer);
process.exit(failed ? 1 : 0);
