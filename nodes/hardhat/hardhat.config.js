// Hardhat 3 config for dyno's temporary dev node (`hardhat node`, network "node").
// Defaults are Hardhat's own (automine: one block per transaction, block gas
// limit 60 000 000, chain id 31337, 20 prefunded unlocked accounts).
// `hardhat node` has no command-line flags for mining or gas, so two optional
// environment variables set them:
//   DYNO_HARDHAT_BLOCK_TIME  seconds between blocks (interval mining, automine off)
//   DYNO_HARDHAT_GAS_LIMIT   block gas limit
//   DYNO_HARDHAT_CHAIN_ID    chain id (dyno uses geth's dev chain id, 1337, on every
//                            node, so one set of pre-signed transactions fits all)
const env = (name) => {
  const v = process.env[name];
  if (v === undefined || v === "") return undefined;
  if (!/^[0-9]+(\.[0-9]+)?$/.test(v)) throw new Error(`${name} must be a number, got ${JSON.stringify(v)}`);
  return Number(v);
};
const blockTime = env("DYNO_HARDHAT_BLOCK_TIME");
const gasLimit = env("DYNO_HARDHAT_GAS_LIMIT");
const chainId = env("DYNO_HARDHAT_CHAIN_ID");

const node = { type: "edr-simulated" };
if (blockTime !== undefined && blockTime > 0) node.mining = { auto: false, interval: Math.round(blockTime * 1000) };
if (gasLimit !== undefined) node.blockGasLimit = gasLimit;
if (chainId !== undefined) node.chainId = chainId;

export default { networks: { node } };
