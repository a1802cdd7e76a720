// block/validate in @ethereumjs/vm: a Prague/Osaka genesis with the four
// system contracts (their code from EIP-4788, 2935, 7002 and 7251) and one
// funded sender, a block of three transfers built by ethereumjs's
// BlockBuilder, then validated through the worker as dyno would ask. The
// expected roots are the builder's; dyno checks the real cases against its
// own header at run time. A wrong expected root and a forged header root
// must both fail.

import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Worker } from 'dyno-protocol';
import { adapter } from '../src/adapter.js';
import { prepareCase } from '../src/block.js';

const worker = new Worker(adapter);
after(() => worker.close());

const hex = (b) => '0x' + Buffer.from(b).toString('hex');
const KEY = Uint8Array.from(Buffer.from('b71c71a67e1177ad4e901695e1b4b9ee17ae16c6668d313eac2f96dbcda3f291', 'hex'));

// The system contracts' code, as their EIPs give it.
const SYSTEM = {
  '0x000F3df6D732807Ef1319fB7B8bB8522d0Beac02':
    '0x3373fffffffffffffffffffffffffffffffffffffffe14604d57602036146024575f5ffd5b5f35801560495762001fff810690815414603c575f5ffd5b62001fff01545f5260205ff35b5f5ffd5b62001fff42064281555f359062001fff015500',
  '0x0000F90827F1C53a10cb7A02335B175320002935':
    '0x3373fffffffffffffffffffffffffffffffffffffffe14604657602036036042575f35600143038111604257611fff81430311604257611fff9006545f5260205ff35b5f5ffd5b5f35611fff60014303065500',
  '0x00000961Ef480Eb55e80D19ad83579A64c007002':
    '0x3373fffffffffffffffffffffffffffffffffffffffe1460cb5760115f54807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff146101f457600182026001905f5b5f82111560685781019083028483029004916001019190604d565b909390049250505036603814608857366101f457346101f4575f5260205ff35b34106101f457600154600101600155600354806003026004013381556001015f35815560010160203590553360601b5f5260385f601437604c5fa0600101600355005b6003546002548082038060101160df575060105b5f5b8181146101835782810160030260040181604c02815460601b8152601401816001015481526020019060020154807fffffffffffffffffffffffffffffffff00000000000000000000000000000000168252906010019060401c908160381c81600701538160301c81600601538160281c81600501538160201c81600401538160181c81600301538160101c81600201538160081c81600101535360010160e1565b910180921461019557906002556101a0565b90505f6002555f6003555b5f54807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff14156101cd57505f5b6001546002828201116101e25750505f6101e8565b01600290035b5f555f600155604c025ff35b5f5ffd',
  '0x0000BBdDc7CE488642fb579F8B00f3a590007251':
    '0x3373fffffffffffffffffffffffffffffffffffffffe1460d35760115f54807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff1461019a57600182026001905f5b5f82111560685781019083028483029004916001019190604d565b9093900492505050366060146088573661019a573461019a575f5260205ff35b341061019a57600154600101600155600354806004026004013381556001015f358155600101602035815560010160403590553360601b5f5260605f60143760745fa0600101600355005b6003546002548082038060021160e7575060025b5f5b8181146101295782810160040260040181607402815460601b815260140181600101548152602001816002015481526020019060030154905260010160e9565b910180921461013b5790600255610146565b90505f6002555f6003555b5f54807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff141561017357505f5b6001546001828201116101885750505f61018e565b01600190035b5f555f6001556074025ff35b5f5ffd',
};

async function fixture() {
  const { privateToAddress } = await import('@ethereumjs/util');
  const { createFeeMarket1559Tx } = await import('@ethereumjs/tx');
  const { buildBlock } = await import('@ethereumjs/vm');
  const from = hex(privateToAddress(KEY));
  const alloc = { [from]: { balance: '0xde0b6b3a7640000' } };
  for (const [address, code] of Object.entries(SYSTEM)) alloc[address] = { balance: '0x0', nonce: '0x1', code };
  const genesis = {
    config: {
      chainId: 1337, homesteadBlock: 0, eip150Block: 0, eip155Block: 0, eip158Block: 0, byzantiumBlock: 0,
      constantinopleBlock: 0, petersburgBlock: 0, istanbulBlock: 0, berlinBlock: 0, londonBlock: 0,
      mergeNetsplitBlock: 0, shanghaiTime: 0, cancunTime: 0, pragueTime: 0, osakaTime: 0,
      terminalTotalDifficulty: 0, depositContractAddress: '0x0000000000000000000000000000000000000000',
      blobSchedule: {
        cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 },
        prague: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
        osaka: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
      },
    },
    nonce: '0x0', timestamp: '0x684ee180', extraData: '0x', gasLimit: '0x1c9c380', gasUsed: '0x0',
    difficulty: '0x0', mixHash: '0x' + '00'.repeat(32), coinbase: '0x' + '00'.repeat(20),
    baseFeePerGas: '0x3b9aca00', excessBlobGas: '0x0', blobGasUsed: '0x0', number: '0x0',
    parentHash: '0x' + '00'.repeat(32), alloc,
  };
  // The builder works on its own VM over the same genesis.
  const c = await prepareCase({ genesis, block: '0x' });
  const builder = await buildBlock(c.vm, {
    parentBlock: c.genesis,
    headerData: {
      timestamp: c.genesis.header.timestamp + 12n,
      coinbase: '0x' + 'cc'.repeat(20),
      parentBeaconBlockRoot: new Uint8Array(32).fill(7),
    },
    blockOpts: { putBlockIntoBlockchain: false, setHardfork: true },
  });
  for (let n = 0n; n < 3n; n++) {
    const tx = createFeeMarket1559Tx(
      { nonce: n, to: '0x' + 'aa'.repeat(19) + '0' + n, value: 1000n, gasLimit: 21000n,
        maxFeePerGas: 10_000_000_000n, maxPriorityFeePerGas: 1n, chainId: 1337n },
      { common: c.common },
    ).sign(KEY);
    await builder.addTransaction(tx);
  }
  const { block } = await builder.build();
  return { genesis, block };
}

const cased = (genesis, rlp, stateRoot, block) => ({
  input: { genesis, block: hex(rlp) },
  expected: { state_root: stateRoot, receipts_root: hex(block.header.receiptTrie), gas_used: Number(block.header.gasUsed) },
});

test('ethereumjs validates a block its builder made, and a wrong root fails', async () => {
  const { genesis, block } = await fixture();
  assert.equal(block.header.gasUsed, 63000n);
  const id = 'block/validate/30M-transfers';
  const ok = await worker.handle({ type: 'prepare', id, implementation: 'ethereumjs', cases: [cased(genesis, block.serialize(), hex(block.header.stateRoot), block)] });
  assert.equal(ok.type, 'prepared', JSON.stringify(ok));
  const run = await worker.handle({ type: 'run', iterations: 1, samples: 2 });
  assert.equal(run.type, 'samples', JSON.stringify(run));
  assert.equal(run.ns.length, 2);

  // An expected root the block does not give: a mismatch.
  const wrong = await worker.handle({ type: 'prepare', id, implementation: 'ethereumjs', cases: [cased(genesis, block.serialize(), '0x' + '01'.repeat(32), block)] });
  assert.equal(wrong.type, 'mismatch');
  assert.equal(wrong.field, 'state_root');

  // A header that claims another state root: refused while validating.
  const { createBlock } = await import('@ethereumjs/block');
  const forgedHeader = { ...block.header.toJSON(), stateRoot: '0x' + '02'.repeat(32) };
  const forged = createBlock(
    { header: forgedHeader, transactions: block.transactions.map((t) => t.toJSON()), withdrawals: [] },
    { common: block.common, setHardfork: true },
  );
  const refused = await worker.handle({ type: 'prepare', id, implementation: 'ethereumjs', cases: [cased(genesis, forged.serialize(), '0x' + '02'.repeat(32), block)] });
  assert.equal(refused.type, 'error', JSON.stringify(refused));
  assert.match(refused.message, /state ?root|invalid block/i);
});

test('the block ids are offered', () => {
  const offered = worker.hello().benchmarks.filter((b) => b.implementation === 'ethereumjs').map((b) => b.id);
  for (const m of ['30', '36', '60']) {
    for (const k of ['empty', 'transfers', 'mix', 'full']) assert.ok(offered.includes(`block/validate/${m}M-${k}`), `${m}M-${k}`);
  }
});
