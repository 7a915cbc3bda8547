#!/usr/bin/env node
// A deterministic A2A test agent on the JavaScript `@a2a-js/sdk` server (express).
//
// The twin of tests/peers/python/peer.py, used by a2a-core's interop tests as a real peer.
// It answers by the first word of the user's text (full table in tests/peers/README.md):
//
//   echo <x>        completed task, one artifact "echo" with the text <x>
//   fail            FAILED task, status message "Agent execution failed. (error_id: <12 hex>)"
//   crash           the executor throws (the SDK's own failure path)
//   slow <s>        working, sleeps <s> seconds, then one artifact and completed
//   stream <n>      working, n artifact updates chunk-0..chunk-(n-1), completed
//   ticks <n> [<s>] working, n status updates "tick i" <s> seconds apart (default 1), completed
//   input           input-required; the follow-up message completes it ("got input: <text>")
//   reject          rejected task
//   cancel-me       working until canceled (or completed after --cancel-wait seconds)
//   message <x>     a direct Message reply with the text <x> (no task)
//
// Command line contract (shared with the Python peer):
//
//   node peer.mjs [--host 127.0.0.1] [--port 0] [--version both|1.0|0.3] [--ping SECONDS]
//
// Port 0 picks a free port. Once the server listens, exactly one line `READY <base_url>` is
// printed on standard output. SIGTERM/SIGINT stop it. `--ping` is accepted for symmetry but
// has no effect: the JS SDK sends no SSE keep-alive comments (a quirk the tests rely on).

import { randomBytes, randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import express from 'express';
import { DefaultRequestHandler, InMemoryTaskStore, AgentEvent } from '@a2a-js/sdk/server';
import {
  jsonRpcHandler,
  restHandler,
  agentCardHandler,
  UserBuilder,
} from '@a2a-js/sdk/server/express';
import { duplicateInterfacesForLegacy } from '@a2a-js/sdk/compat/v0_3';

// Numeric proto enums as the SDK's TypeScript types define them.
const State = {
  SUBMITTED: 1,
  WORKING: 2,
  COMPLETED: 3,
  FAILED: 4,
  CANCELED: 5,
  INPUT_REQUIRED: 6,
  REJECTED: 7,
};
const ROLE_AGENT = 2;
const MAX_SLEEP_SECONDS = 600;

const { values: opts } = parseArgs({
  options: {
    host: { type: 'string', default: '127.0.0.1' },
    port: { type: 'string', default: '0' },
    version: { type: 'string', default: 'both' },
    ping: { type: 'string', default: '15' },
    'cancel-wait': { type: 'string', default: '60' },
    grace: { type: 'string', default: '3' },
  },
  strict: true,
});
if (!['both', '1.0', '0.3'].includes(opts.version)) {
  console.error(`--version must be both, 1.0 or 0.3 (got ${opts.version})`);
  process.exit(2);
}
const cancelWait = Number(opts['cancel-wait']);
const compat = opts.version !== '1.0';

function log(...args) {
  console.error('js-peer', ...args);
}

function textPart(text) {
  return { content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: {} };
}

function agentMessage(taskId, contextId, text) {
  return {
    messageId: randomUUID(),
    contextId,
    taskId,
    role: ROLE_AGENT,
    parts: [textPart(text)],
    metadata: {},
    extensions: [],
    referenceTaskIds: [],
  };
}

function userText(message) {
  return (message?.parts ?? [])
    .filter((p) => p.content?.$case === 'text')
    .map((p) => p.content.value)
    .join('\n')
    .trim();
}

function number(arg, dflt, lo, hi) {
  const v = arg === undefined || arg === '' ? dflt : Number(arg);
  const n = Number.isFinite(v) ? v : dflt;
  return Math.min(Math.max(n, lo), hi);
}

// Sleep that a cancel can cut short.
function sleep(seconds, signal) {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, seconds * 1000);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      resolve();
    });
  });
}

class DeterministicExecutor {
  constructor() {
    this.running = new Map(); // taskId -> { abort: AbortController, contextId }
  }

  async execute(ctx, bus) {
    const { taskId, contextId } = ctx;
    const message = ctx.userMessage;
    const text = userText(message);
    const [head = '', ...restWords] = text.split(/\s+/);
    const rest = text.slice(head.length).trim();
    const now = () => new Date().toISOString();
    const status = (state, msg) =>
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: { state, message: msg, timestamp: now() },
          metadata: {},
        }),
      );
    const artifact = (parts, { artifactId = randomUUID(), name, append = false, lastChunk = true, metadata = {} }) =>
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: { artifactId, name, description: '', parts, metadata, extensions: [] },
          append,
          lastChunk,
          metadata: {},
        }),
      );

    // A follow-up message to a task parked in input-required completes it.
    if (ctx.task && ctx.task.status?.state === State.INPUT_REQUIRED) {
      artifact([textPart(`got input: ${text}`)], { name: 'input' });
      status(State.COMPLETED);
      return;
    }

    if (head === 'message') {
      bus.publish(
        AgentEvent.message({
          messageId: randomUUID(),
          contextId,
          taskId: '',
          role: ROLE_AGENT,
          parts: [textPart(rest)],
          metadata: {},
          extensions: [],
          referenceTaskIds: [],
        }),
      );
      return;
    }

    // First event: the SUBMITTED snapshot with the user's message as history.
    if (!ctx.task) {
      bus.publish(
        AgentEvent.task({
          id: taskId,
          contextId,
          status: { state: State.SUBMITTED, message: undefined, timestamp: now() },
          artifacts: [],
          history: [message],
          metadata: {},
        }),
      );
    }

    if (head === 'crash') {
      throw new Error('deliberate uncaught crash requested by "crash"');
    }
    if (head === 'fail') {
      const errorId = randomBytes(6).toString('hex');
      log(`fail requested: error_id=${errorId} task=${taskId}`);
      status(State.FAILED, agentMessage(taskId, contextId, `Agent execution failed. (error_id: ${errorId})`));
      return;
    }
    if (head === 'reject') {
      status(State.REJECTED, agentMessage(taskId, contextId, 'rejected by request'));
      return;
    }
    if (head === 'input') {
      status(State.INPUT_REQUIRED, agentMessage(taskId, contextId, 'need more input'));
      return;
    }

    status(State.WORKING);
    const abort = new AbortController();
    this.running.set(taskId, { abort, contextId });
    try {
      if (head === 'echo') {
        artifact([textPart(rest)], { name: 'echo' });
      } else if (head === 'parts') {
        // One of every part kind: text, data, file bytes, file URL.
        artifact(
          [
            textPart(rest || 'every part kind'),
            { content: { $case: 'data', value: { answer: 42, items: ['a', 'b'], ok: true } }, mediaType: 'application/json', filename: '', metadata: {} },
            { content: { $case: 'raw', value: Buffer.from('hello file\n') }, mediaType: 'text/plain', filename: 'hello.txt', metadata: {} },
            { content: { $case: 'url', value: 'https://files.example/report.pdf' }, mediaType: 'application/pdf', filename: 'report.pdf', metadata: {} },
          ],
          { name: 'parts' },
        );
      } else if (head === 'mirror') {
        // The user's parts and message metadata back, as the SDK read them.
        artifact(message?.parts ?? [], { name: 'mirror', metadata: message?.metadata ?? {} });
      } else if (head === 'slow') {
        await sleep(number(restWords[0], 1, 0, MAX_SLEEP_SECONDS), abort.signal);
        if (abort.signal.aborted) return;
        artifact([textPart(`slept ${rest || '1'} s`)], { name: 'slow' });
      } else if (head === 'stream') {
        const n = Math.floor(number(restWords[0], 3, 0, 10000));
        for (let i = 0; i < n; i++) {
          artifact([textPart(`chunk ${i}`)], { artifactId: `chunk-${i}`, name: `chunk-${i}` });
        }
      } else if (head === 'ticks') {
        const n = Math.floor(number(restWords[0], 3, 0, 10000));
        const interval = number(restWords[1], 1, 0, 60);
        for (let i = 0; i < n; i++) {
          await sleep(interval, abort.signal);
          if (abort.signal.aborted) return;
          status(State.WORKING, agentMessage(taskId, contextId, `tick ${i}`));
        }
      } else if (head === 'cancel-me') {
        await sleep(cancelWait, abort.signal);
        if (abort.signal.aborted) return;
        artifact([textPart('not canceled')], { name: 'cancel-me' });
      } else {
        artifact(
          [
            textPart(
              `unknown command '${head}'; known: echo fail crash slow stream ticks input reject cancel-me message parts mirror`,
            ),
          ],
          { name: 'unknown' },
        );
      }
      status(State.COMPLETED);
    } finally {
      this.running.delete(taskId);
    }
  }

  async cancelTask(taskId, bus) {
    const run = this.running.get(taskId);
    run?.abort.abort();
    const contextId = run?.contextId ?? '';
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: {
          state: State.CANCELED,
          message: agentMessage(taskId, contextId, 'cancelled by request'),
          timestamp: new Date().toISOString(),
        },
        metadata: {},
      }),
    );
  }
}

let baseUrl = '';

function buildCard() {
  const v1 = [
    { url: `${baseUrl}/`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
    { url: `${baseUrl}/rest`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: '1.0' },
  ];
  let interfaces;
  if (opts.version === 'both') interfaces = duplicateInterfacesForLegacy(v1, ['JSONRPC', 'HTTP+JSON']);
  else if (opts.version === '1.0') interfaces = v1;
  else interfaces = v1.map((i) => ({ ...i, protocolVersion: '0.3' }));
  return {
    name: 'js-deterministic-peer',
    description:
      'Deterministic test agent (a2a-core interop tests): echo, fail, crash, slow, stream, ticks, input, reject, cancel-me, message',
    supportedInterfaces: interfaces,
    provider: undefined,
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: 'deterministic',
        name: 'deterministic',
        description: 'Answers by the first word of the text',
        tags: ['test'],
        examples: ['echo hello', 'stream 3', 'fail'],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}

// Listen first so that port 0 is resolved before the card (which names the URL) is built; the
// A2A routes are mounted before READY is printed, so no request can see a half-built app.
const app = express();
const server = app.listen(Number(opts.port), opts.host, () => {
  const { port } = server.address();
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  baseUrl = `http://${host}:${port}`;
  const card = buildCard();
  const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new DeterministicExecutor());
  const legacyCompat = { enabled: compat };
  const userBuilder = UserBuilder.noAuthentication;
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: async () => card, legacyCompat }));
  app.use('/rest', restHandler({ requestHandler, userBuilder, legacyCompat }));
  app.use('/', jsonRpcHandler({ requestHandler, userBuilder, legacyCompat }));
  process.stdout.write(`READY ${baseUrl}\n`);
  log(`serving ${baseUrl} (version=${opts.version}; no SSE keep-alives in this SDK)`);
});
server.on('error', (err) => {
  log(`listen failed: ${err.message}`);
  process.exit(1);
});

function shutdown(signal) {
  log(`${signal}: shutting down`);
  server.close(() => process.exit(0));
  server.closeIdleConnections();
  // Open streams (cancel-me, slow) would keep close() waiting: cut them after the grace period.
  setTimeout(() => {
    server.closeAllConnections();
    process.exit(0);
  }, Number(opts.grace) * 1000).unref();
}
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));
