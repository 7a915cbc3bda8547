// The official JavaScript SDK's client (@a2a-js/sdk, the copy tests/peers/js installs with
// `npm ci`) as an application uses it, for `a2a-testkit conformance`:
// `node js_sdk.mjs send|stream URL TEXT`. ClientFactory.createFromUrl resolves the card with
// the SDK's resolver, given the card's URL (`URL/.well-known/agent-card.json`, path '') as
// its documentation shows for a card that is not at the origin's root: given a base URL with
// a path, the resolver drops the path (`new URL('/.well-known/…', base)`, sdks.md §1.9) and
// no case could run; the JSON-RPC transport is made with the SDK's legacy (0.3)
// compatibility on, the one option needed for it to speak to a 0.3 card at all (a 1.0 card
// is spoken in 1.0 either way). No timeout, retry or resubscribe option is added. Prints
// the task's state, status text and artifact text, or the error; exit status 0 for a
// completed task or a message reply, 1 for an error, 3 for a task in another state.
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
const peer = createRequire(path.join(here, '../../peers/js/package.json'));
const { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } =
  await import(pathToFileURL(peer.resolve('@a2a-js/sdk/client')).href);
const { Role, TaskState } = await import(pathToFileURL(peer.resolve('@a2a-js/sdk')).href);

const [mode, url, text] = process.argv.slice(2);
if (!['send', 'stream'].includes(mode) || !url || text === undefined) {
  console.error('usage: node js_sdk.mjs send|stream URL TEXT');
  process.exit(2);
}
const textOf = (parts) =>
  (parts ?? []).filter((x) => x.content?.$case === 'text').map((x) => x.content.value).join('');
const stateName = (s) => Object.keys(TaskState).find((k) => TaskState[k] === s) ?? String(s);

function report(state, status, artifacts) {
  console.log(`state: ${stateName(state)}`);
  if (status) console.log(`status: ${status}`);
  if (artifacts) console.log(`text: ${artifacts}`);
  process.exit(state === TaskState.TASK_STATE_COMPLETED ? 0 : 3);
}

try {
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ legacyCompat: { enabled: true } })],
  });
  const c = await new ClientFactory(options).createFromUrl(`${url.replace(/\/$/, '')}/.well-known/agent-card.json`, '');
  const request = {
    message: { messageId: crypto.randomUUID(), role: Role.ROLE_USER, parts: [{ content: { $case: 'text', value: text } }] },
  };
  if (mode === 'send') {
    const r = await c.sendMessage(request);
    if (r.status === undefined) {
      console.log(`message: ${textOf(r.parts)}`);
      process.exit(0);
    }
    report(r.status.state, textOf(r.status.message?.parts), (r.artifacts ?? []).map((a) => textOf(a.parts)).join(''));
  }
  let state;
  let status = '';
  let artifacts = '';
  for await (const ev of c.sendMessageStream(request)) {
    const { $case, value } = ev.payload;
    if ($case === 'message') {
      console.log(`message: ${textOf(value.parts)}`);
      process.exit(0);
    } else if ($case === 'task' || $case === 'statusUpdate') {
      state = value.status.state;
      if (value.status.message) status = textOf(value.status.message.parts);
    } else if ($case === 'artifactUpdate') {
      artifacts += textOf(value.artifact.parts);
    }
  }
  report(state, status, artifacts);
} catch (e) {
  console.log(`error: ${e?.name ?? 'Error'}: ${e?.message ?? e}`);
  process.exit(1);
}
