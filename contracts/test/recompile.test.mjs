// Checks that the checked-in build/*.json artifacts are exactly what the pinned
// solc produces from the current sources, and that they are sane.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';

import {
  ROOT,
  BUILD_DIR,
  COMMAND,
  SETTINGS,
  CompileError,
  readSources,
  compile,
  artifacts,
  serialize,
} from '../compile.mjs';

const require = createRequire(import.meta.url);
const solc = require('solc');

const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));
const pkg = readJson(join(ROOT, 'package.json'));
const pinned = pkg.devDependencies.solc;

const buildFiles = readdirSync(BUILD_DIR).filter((f) => f.endsWith('.json')).sort();
const built = Object.fromEntries(
  buildFiles.map((f) => [f.slice(0, -'.json'.length), readJson(join(BUILD_DIR, f))]),
);
const sources = readSources();

/** Independent standard-JSON compile straight through solc, using the settings recorded in a build file. */
function freshCompile(settings) {
  const input = { language: 'Solidity', sources, settings };
  const output = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  assert.deepEqual(errors, [], 'fresh compile reported errors');
  return output;
}

test('build/ holds exactly one artifact per compiled contract', () => {
  const { output } = compile(sources);
  assert.deepEqual(Object.keys(built).sort(), Object.keys(artifacts(output)).sort());
  assert.deepEqual(Object.keys(built).sort(), ['Logs', 'Loop', 'Store', 'Token']);
});

test('recompiling yields byte-identical bytecode and deployedBytecode', () => {
  for (const [name, artifact] of Object.entries(built)) {
    const fresh = freshCompile(artifact.settings).contracts[artifact.source]?.[name];
    assert.ok(fresh, `${name} not found in fresh compile of ${artifact.source}`);
    assert.equal(artifact.bytecode, `0x${fresh.evm.bytecode.object}`, `${name}.bytecode differs`);
    assert.equal(
      artifact.deployedBytecode,
      `0x${fresh.evm.deployedBytecode.object}`,
      `${name}.deployedBytecode differs`,
    );
    assert.deepEqual(artifact.abi, fresh.abi, `${name}.abi differs`);
    assert.deepEqual(artifact.selectors, fresh.evm.methodIdentifiers, `${name}.selectors differ`);
  }
});

test('build files are exactly what `npm run build` would write now', () => {
  const { output } = compile(sources);
  for (const [name, artifact] of Object.entries(artifacts(output))) {
    const onDisk = readFileSync(join(BUILD_DIR, `${name}.json`), 'utf8');
    assert.equal(onDisk, serialize(artifact), `build/${name}.json is stale: run ${COMMAND}`);
  }
});

test('recorded settings and command match compile.mjs', () => {
  for (const [name, artifact] of Object.entries(built)) {
    assert.deepEqual(artifact.settings, SETTINGS, `${name}.settings`);
    assert.equal(artifact.command, COMMAND, `${name}.command`);
    assert.equal(artifact.contract, name);
    assert.deepEqual(artifact.settings.metadata, { bytecodeHash: 'none', appendCBOR: false });
  }
});

test('solc version is pinned consistently', () => {
  assert.match(pinned, /^\d+\.\d+\.\d+$/, 'package.json must pin an exact solc version');
  assert.equal(require('solc/package.json').version, pinned, 'installed solc differs from package.json');
  assert.equal(solc.semver().split('+')[0], pinned, 'loaded compiler differs from package.json');
  for (const [name, artifact] of Object.entries(built)) {
    assert.equal(artifact.solc.split('+')[0], pinned, `${name}.solc differs from package.json`);
    assert.equal(artifact.solc, solc.version(), `${name}.solc differs from the loaded compiler`);
  }
  for (const [file, { content }] of Object.entries(sources)) {
    assert.match(content, /^\/\/ SPDX-License-Identifier: MIT$/m, `${file} SPDX header`);
    const pragmas = [...content.matchAll(/^pragma solidity ([^;]+);$/gm)].map((m) => m[1]);
    assert.deepEqual(pragmas, [pinned], `${file} must contain exactly "pragma solidity ${pinned};"`);
  }
});

test('bytecode is non-empty hex without a metadata trailer', () => {
  for (const [name, { bytecode, deployedBytecode }] of Object.entries(built)) {
    for (const [field, code] of [['bytecode', bytecode], ['deployedBytecode', deployedBytecode]]) {
      assert.match(code, /^0x(?:[0-9a-f]{2})+$/, `${name}.${field} is not non-empty hex`);
      // CBOR metadata would carry the "solc" key: a2/a1 ... 64 736f6c63 ...
      assert.ok(!code.includes('64736f6c6343'), `${name}.${field} carries CBOR metadata`);
    }
    assert.ok(bytecode.endsWith(deployedBytecode.slice(2)), `${name} creation code embeds runtime code`);
  }
});

test('ABIs expose the benchmark entry points', () => {
  const signature = (f) => `${f.name}(${f.inputs.map((i) => i.type).join(',')})`;
  const fn = (name, sig) => built[name].abi.find((e) => e.type === 'function' && signature(e) === sig);

  const transfer = fn('Token', 'transfer(address,uint256)');
  assert.ok(transfer, 'Token ABI has transfer(address,uint256)');
  assert.deepEqual(transfer.outputs.map((o) => o.type), ['bool']);
  for (const sig of [
    'name()', 'symbol()', 'decimals()', 'totalSupply()', 'balanceOf(address)',
    'allowance(address,address)', 'approve(address,uint256)', 'transferFrom(address,address,uint256)',
  ]) {
    assert.ok(fn('Token', sig), `Token ABI has ${sig}`);
  }
  const ctor = built.Token.abi.find((e) => e.type === 'constructor');
  assert.deepEqual(ctor.inputs.map((i) => i.type), ['uint256']);
  for (const ev of ['Transfer', 'Approval']) {
    assert.ok(built.Token.abi.find((e) => e.type === 'event' && e.name === ev), `Token emits ${ev}`);
  }

  assert.equal(fn('Store', 'read(uint256,uint256)').stateMutability, 'view');
  assert.equal(fn('Store', 'write(uint256,uint256)').stateMutability, 'nonpayable');
  assert.equal(fn('Loop', 'spin(uint256)').stateMutability, 'pure');

  // Logs emits the ERC-20 Transfer event (same ABI entry, hence same topic, as Token's).
  assert.equal(fn('Logs', 'emitTransfers(uint256,uint256)').stateMutability, 'nonpayable');
  const transferEvent = (name) => built[name].abi.find((e) => e.type === 'event' && e.name === 'Transfer');
  assert.ok(transferEvent('Logs'), 'Logs emits Transfer');
  assert.deepEqual(transferEvent('Logs'), transferEvent('Token'));
  assert.deepEqual(transferEvent('Logs').inputs.map((i) => [i.type, i.indexed]), [
    ['address', true], ['address', true], ['uint256', false],
  ]);

  // Well-known ERC-20 selector.
  assert.equal(built.Token.selectors['transfer(address,uint256)'], 'a9059cbb');
});

test('compiler errors fail loudly with file:line', () => {
  const broken = {
    'Broken.sol': {
      content: `// SPDX-License-Identifier: MIT\npragma solidity ${pinned};\ncontract Broken {\n    function f() external { x = 1; }\n}\n`,
    },
  };
  assert.throws(() => compile(broken), (err) => {
    assert.ok(err instanceof CompileError);
    assert.match(err.message, /Broken\.sol:4:\d+: DeclarationError: Undeclared identifier/);
    return true;
  });
});
