// Compiles every contracts/*.sol with solc-js (standard-JSON interface) using
// fixed settings and writes build/<Contract>.json.
//
// Usage: npm --prefix contracts run build
//
// Importable: the test suite reuses SETTINGS / readSources / compile.

import { readFileSync, readdirSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const solc = require('solc');

export const ROOT = fileURLToPath(new URL('.', import.meta.url));
export const BUILD_DIR = join(ROOT, 'build');
export const COMMAND = 'npm --prefix contracts run build';

/** Compiler settings; recorded verbatim in every build file. */
export const SETTINGS = Object.freeze({
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'prague',
  metadata: { bytecodeHash: 'none', appendCBOR: false },
  outputSelection: {
    '*': {
      '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object', 'evm.methodIdentifiers'],
    },
  },
});

/** Full solc version string, e.g. "0.8.37+commit.f401782d.Emscripten.clang". */
export const SOLC_VERSION = solc.version();

export class CompileError extends Error {}

/** Reads every top-level *.sol in contracts/, sorted by name: { [fileName]: { content } }. */
export function readSources(dir = ROOT) {
  const files = readdirSync(dir).filter((f) => f.endsWith('.sol')).sort();
  if (files.length === 0) throw new CompileError(`no .sol files found in ${dir}`);
  return Object.fromEntries(files.map((f) => [f, { content: readFileSync(join(dir, f), 'utf8') }]));
}

/** "File.sol:line:col" for a solc sourceLocation, or null. */
function locate(sources, loc) {
  if (!loc?.file) return null;
  const text = sources[loc.file]?.content;
  if (text === undefined || !(loc.start >= 0)) return loc.file;
  const before = text.slice(0, loc.start);
  const line = before.split('\n').length;
  const col = loc.start - before.lastIndexOf('\n');
  return `${loc.file}:${line}:${col}`;
}

/**
 * Runs solc's standard-JSON compile. Throws CompileError (message lists every
 * error as "file:line:col: Type: message") if solc reports any error.
 * Returns { output, warnings } where warnings are formatted strings.
 */
export function compile(sources, settings = SETTINGS) {
  const input = { language: 'Solidity', sources, settings };
  const findImports = (path) => ({ error: `imports are not allowed (tried to import "${path}")` });
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports }));

  const format = (e) => {
    const where = locate(sources, e.sourceLocation) ?? '<solc>';
    return `${where}: ${e.type}: ${e.message}`;
  };
  const diagnostics = output.errors ?? [];
  const errors = diagnostics.filter((e) => e.severity === 'error').map(format);
  if (errors.length > 0) {
    throw new CompileError(`solc ${SOLC_VERSION} failed:\n${errors.join('\n')}`);
  }
  const warnings = diagnostics.filter((e) => e.severity !== 'error').map(format);
  return { output, warnings };
}

const hex = (s) => `0x${s}`;
const sortKeys = (obj) =>
  Object.fromEntries(Object.entries(obj).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** Turns solc output into { [Contract]: artifact }, with a fixed key order. */
export function artifacts(output, settings = SETTINGS) {
  const result = {};
  for (const source of Object.keys(output.contracts ?? {}).sort()) {
    for (const [name, c] of Object.entries(output.contracts[source]).sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (result[name]) {
        throw new CompileError(`contract name ${name} defined in both ${result[name].source} and ${source}`);
      }
      result[name] = {
        contract: name,
        source,
        solc: SOLC_VERSION,
        settings,
        abi: c.abi,
        selectors: sortKeys(c.evm.methodIdentifiers),
        bytecode: hex(c.evm.bytecode.object),
        deployedBytecode: hex(c.evm.deployedBytecode.object),
        command: COMMAND,
      };
    }
  }
  return result;
}

export function serialize(artifact) {
  return `${JSON.stringify(artifact, null, 2)}\n`;
}

function main() {
  const sources = readSources();
  const { output, warnings } = compile(sources);
  for (const w of warnings) console.warn(w);
  const built = artifacts(output);

  mkdirSync(BUILD_DIR, { recursive: true });
  // Drop artifacts of contracts that no longer exist so build/ mirrors the sources.
  for (const f of readdirSync(BUILD_DIR)) {
    if (f.endsWith('.json') && !built[f.slice(0, -'.json'.length)]) rmSync(join(BUILD_DIR, f));
  }
  for (const [name, artifact] of Object.entries(built)) {
    writeFileSync(join(BUILD_DIR, `${name}.json`), serialize(artifact));
    const size = (artifact.deployedBytecode.length - 2) / 2;
    console.log(`${artifact.source} -> build/${name}.json (runtime ${size} bytes)`);
  }
  console.log(`compiled ${Object.keys(built).length} contracts with solc ${SOLC_VERSION}`);
}

if (resolve(process.argv[1] ?? '') === fileURLToPath(import.meta.url)) {
  try {
    main();
  } catch (err) {
    console.error(err instanceof CompileError ? err.message : err);
    process.exit(1);
  }
}
