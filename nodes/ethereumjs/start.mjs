// Starts the pinned EthereumJS client (node_modules/@ethereumjs/client) with
// the caller's flags, after two changes dyno needs, both in this process:
//
// - `--gethGenesis FILE` is read with EthereumJS's own parser
//   (parseGethGenesis and parseGethGenesisState of @ethereumjs/common) and
//   passed on as `--customChain` and `--customGenesisState` files, with the
//   genesis header's gasUsed put back: the client's geth-genesis path drops
//   it (its parser has no such field), which gives the genesis block another
//   hash than geth's, and the next block another base fee.
// - A newPayload of more than 200 transactions is executed: by default the
//   client answers SYNCING to one and leaves it to its sync, which a replay
//   without peers never runs (the limit, Config.ENGINE_NEWPAYLOAD_MAX_TXS_EXECUTE,
//   has no flag). dyno's blocks hold up to 1 400 transactions; geth executes
//   every payload in its newPayload call.
// - ./loopback.cjs (loaded with --require by HOME/run) makes every TCP
//   listener without an address listen on 127.0.0.1: the client binds its
//   RLPx and Prometheus servers to every interface and has no flag to say
//   otherwise.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'

import { parseGethGenesis, parseGethGenesisState } from '@ethereumjs/common'

const args = process.argv.slice(2)
const at = args.indexOf('--gethGenesis')
if (at >= 0) {
  const file = args[at + 1]
  if (file === undefined) {
    console.error('start.mjs: --gethGenesis needs a file')
    process.exit(2)
  }
  let geth
  try {
    geth = JSON.parse(readFileSync(file, 'utf-8'))
  } catch (e) {
    console.error(`start.mjs: reading the genesis ${file}: ${e.message}`)
    process.exit(2)
  }
  const params = parseGethGenesis(geth, path.parse(file).name)
  if (geth.gasUsed !== undefined) params.genesis.gasUsed = geth.gasUsed
  const dirAt = args.indexOf('--dataDir')
  const dir = dirAt >= 0 ? args[dirAt + 1] : path.dirname(file)
  const out = path.join(dir, 'dyno-genesis')
  mkdirSync(out, { recursive: true })
  const chain = path.join(out, 'chain.json')
  const state = path.join(out, 'state.json')
  writeFileSync(chain, JSON.stringify(params))
  // JSON has no undefined: an account's missing code, storage or nonce
  // would come back as null, which the client does not take.
  const accounts = Object.fromEntries(
    Object.entries(parseGethGenesisState(geth)).map(([address, [balance, code, storage, nonce]]) => [
      address,
      [balance, code ?? '0x', storage ?? [], nonce ?? '0x0'],
    ]),
  )
  writeFileSync(state, JSON.stringify(accounts))
  args.splice(at, 2, '--customChain', chain, '--customGenesisState', state)
}
// Whatever the client writes relative to its working directory (a log
// file, its rotation's audit file) lands in its data directory.
const dataAt = args.indexOf('--dataDir')
if (dataAt >= 0 && args[dataAt + 1] !== undefined) {
  mkdirSync(args[dataAt + 1], { recursive: true })
  process.chdir(args[dataAt + 1])
}
process.argv = [process.argv[0], process.argv[1], ...args]
const require = createRequire(import.meta.url)
const client = path.dirname(require.resolve('@ethereumjs/client/package.json'))
const { Config } = await import(path.join(client, 'dist/esm/src/config.js'))
Config.ENGINE_NEWPAYLOAD_MAX_TXS_EXECUTE = Number.MAX_SAFE_INTEGER
await import(path.join(client, 'dist/esm/bin/cli.js'))
