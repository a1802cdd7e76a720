// What this adapter tells the protocol library about itself.

import { readFileSync } from 'node:fs';
import { Registry } from './registry.js';

const PACKAGE = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

/** The version a dependency's own package.json states, read at run time. */
function packageVersion(name) {
  if (name === 'node:crypto') return `OpenSSL ${process.versions.openssl}`;
  try {
    const url = new URL(`../node_modules/${name}/package.json`, import.meta.url);
    return JSON.parse(readFileSync(url, 'utf8')).version;
  } catch {
    return 'unknown';
  }
}

const registry = new Registry();

export const adapter = {
  name: PACKAGE.name,
  version: PACKAGE.version,
  prefix: 'node',
  registry,
  libraries() {
    const out = {};
    for (const name of [...registry.libraryNames(), 'dyno-protocol']) out[name] = packageVersion(name);
    return out;
  },
};
