// "ethereumjs": block/validate/<limit>M-<kind> in @ethereumjs/vm's runBlock,
// the counterpart of crates/evm/src/block.rs and the Go adapter's block.go.
//
// The case is dyno's block on dyno's genesis: `genesis` (geth's genesis
// JSON) and `block` (its RLP). At prepare the genesis state goes into a
// MerkleStateManager and the genesis block into a Blockchain; the genesis
// block is built from the JSON's header fields (gasUsed among them, which
// ethereumjs's own genesis leaves out), and its hash must be the block's
// parent hash. The timed operation decodes the block from RLP, then
// runBlock validates it fully against its parent (header, body, execution,
// system calls and requests, receipts root, state root) starting from the
// genesis state root each time: `root` resets the state, so every run
// starts from the same state, as dyno's and the Go adapter's do.

import { fromHex, toHex } from 'dyno-protocol';

let libs = null;

async function load() {
  libs ??= await Promise.all([
    import('@ethereumjs/common'),
    import('@ethereumjs/block'),
    import('@ethereumjs/statemanager'),
    import('@ethereumjs/blockchain'),
    import('@ethereumjs/vm'),
  ]).then(([common, block, sm, blockchain, vm]) => ({ common, block, sm, blockchain, vm }));
  return libs;
}

export const LIMITS = ['30', '36', '60'];
export const KINDS = ['empty', 'transfers', 'mix', 'full'];

const big = (v, name) => {
  if (typeof v !== 'string' || !v.startsWith('0x')) throw new TypeError(`genesis.${name}: expected a hex quantity`);
  return BigInt(v);
};

/** The prepared state for one case: the VM, the genesis block and state
 * root, the RLP. */
export async function prepareCase(input) {
  const { common: C, block: B, sm: S, blockchain: BC, vm: V } = await load();
  const g = input.genesis;
  if (g === null || typeof g !== 'object' || typeof g.config !== 'object') {
    throw new TypeError('genesis: expected geth\'s genesis JSON object');
  }
  const rlp = fromHex(input.block, 'block');
  const common = C.createCommonFromGethGenesis(g, { chain: 'dyno' });
  const state = C.parseGethGenesisState(g);
  const stateManager = new S.MerkleStateManager({ common });
  await stateManager.generateCanonicalGenesis(state);
  const root = await stateManager.getStateRoot();
  const genesisBlock = B.createBlock(
    {
      header: {
        number: 0n,
        gasLimit: big(g.gasLimit, 'gasLimit'),
        gasUsed: big(g.gasUsed ?? '0x0', 'gasUsed'),
        timestamp: big(g.timestamp, 'timestamp'),
        extraData: fromHex(g.extraData ?? '0x', 'genesis.extraData'),
        mixHash: fromHex(g.mixHash, 'genesis.mixHash'),
        coinbase: fromHex(g.coinbase, 'genesis.coinbase'),
        baseFeePerGas: big(g.baseFeePerGas, 'baseFeePerGas'),
        difficulty: big(g.difficulty, 'difficulty'),
        nonce: new Uint8Array(8),
        stateRoot: root,
        excessBlobGas: big(g.excessBlobGas ?? '0x0', 'excessBlobGas'),
        blobGasUsed: big(g.blobGasUsed ?? '0x0', 'blobGasUsed'),
      },
    },
    { common, setHardfork: true },
  );
  const blockchain = await BC.createBlockchain({
    common,
    genesisBlock,
    genesisState: state,
    validateConsensus: false,
    validateBlocks: true,
  });
  const vm = await V.createVM({ common, stateManager, blockchain });
  if (rlp.length === 0) return { B, V, vm, common, root, rlp, genesis: genesisBlock };
  const block = B.createBlockFromRLP(rlp, { common, setHardfork: true });
  if (toHex(block.header.parentHash) !== toHex(genesisBlock.hash())) {
    throw new Error(
      `the block's parent ${toHex(block.header.parentHash)} is not the genesis ethereumjs built from the JSON (${toHex(genesisBlock.hash())})`,
    );
  }
  return { B, V, vm, common, root, rlp, genesis: genesisBlock };
}

/** One validation: decode, then runBlock from the genesis state. */
async function validate(c) {
  const block = c.B.createBlockFromRLP(c.rlp, { common: c.common, setHardfork: true });
  return c.V.runBlock(c.vm, {
    block,
    root: c.root,
    generate: false,
    skipBlockValidation: false,
    skipHeaderValidation: false,
    setHardfork: true,
  });
}

export let sink;

async function loopBlock(cs, p, n) {
  const len = cs.length;
  for (let k = 0; k < n; k++) {
    sink = await validate(cs[p]);
    if (++p === len) p = 0;
  }
  return p;
}

function blockKind() {
  // init prepares every case (async); parse then hands each case its own.
  const prepared = new Map();
  return {
    implementation: 'ethereumjs',
    library: '@ethereumjs/vm',
    async: true,
    init: async (cases) => {
      prepared.clear();
      for (let i = 0; i < cases.length; i++) {
        const input = cases[i]?.input;
        if (input === null || typeof input !== 'object') continue;
        try {
          prepared.set(input, await prepareCase(input));
        } catch (e) {
          throw new Error(`case ${i}: ${e.message}`);
        }
      }
    },
    parse: (input) => {
      const c = prepared.get(input);
      if (c === undefined) throw new TypeError('not prepared');
      return c;
    },
    call: (c) => validate(c),
    loop: loopBlock,
    encode: (res) => ({
      state_root: toHex(res.stateRoot),
      receipts_root: toHex(res.receiptsRoot),
      gas_used: Number(res.gasUsed),
    }),
  };
}

/** [id, kind] pairs: block/validate/<limit>M-<kind>. */
export function blockKinds() {
  const kind = blockKind();
  return LIMITS.flatMap((m) => KINDS.map((k) => [`block/validate/${m}M-${k}`, kind]));
}
