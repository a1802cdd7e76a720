// The worker's main loop: JSON Lines on stdin/stdout
// (docs/adapter-protocol.md). Nothing but protocol lines goes to stdout.

import { Console } from 'node:console';
import { createInterface } from 'node:readline';
import { Worker } from './worker.js';

/** Serve requests on stdin until it closes. `load` is an async function
 * returning the adapter: it runs after console output has been moved to
 * stderr, so that what a library logs while loading never reaches the
 * protocol stream. */
export async function serve(load) {
  // Any library that logs must not touch the protocol stream.
  globalThis.console = new Console({ stdout: process.stderr, stderr: process.stderr });
  const worker = new Worker(await load());
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
}
