// dyno adapter worker for Node.js: JSON Lines on stdin/stdout
// (docs/adapter-protocol.md). Nothing but protocol lines goes to stdout.

import { Console } from 'node:console';
import { createInterface } from 'node:readline';

// Any library that logs must not touch the protocol stream.
globalThis.console = new Console({ stdout: process.stderr, stderr: process.stderr });

const { Worker } = await import('./worker.js');

const worker = new Worker();
const out = process.stdout;
out.on('error', (e) => {
  process.stderr.write(`stdout: ${e.message}\n`);
  process.exit(1);
});

function reply(obj) {
  return new Promise((resolve) => out.write(JSON.stringify(obj) + '\n', () => resolve()));
}

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
let chain = Promise.resolve();
let fatal = false;

rl.on('line', (line) => {
  chain = chain.then(async () => {
    if (fatal || line.trim() === '') return;
    let req;
    try {
      req = JSON.parse(line);
    } catch (e) {
      fatal = true;
      await reply({ type: 'error', message: `unparseable request: ${e.message}`, fatal: true });
      process.exit(1);
    }
    if (req === null || typeof req !== 'object' || Array.isArray(req)) {
      fatal = true;
      await reply({ type: 'error', message: 'unparseable request: not a JSON object', fatal: true });
      process.exit(1);
    }
    await reply(await worker.handle(req));
  });
});

rl.on('close', () => {
  chain.then(() => {
    worker.close();
    process.exitCode = 0;
  });
});
