package bench

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/beacon"
	"github.com/ethereum/go-ethereum/consensus/ethash"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/trie"
)

// BlockLimits and BlockKinds name the block/validate/<limit>M-<kind> ids:
// the same blocks as dyno's revm benchmark, produced by dyno and handed
// over as geth's genesis JSON and the block's RLP.
var (
	BlockLimits = []string{"30", "36", "60"}
	BlockKinds  = []string{"empty", "transfers", "mix", "full"}
)

// blockCase is one block on its genesis: go-ethereum's core holds the
// genesis committed in an in-memory database (a BlockChain over it, for
// headers, the consensus engine and the processor), and the block as RLP.
type blockCase struct {
	chain  *core.BlockChain
	parent *types.Header
	rlp    []byte
}

// validateBlock is the timed operation, what go-ethereum does to a block
// it is given before it may become part of the chain: decode the RLP
// (so no sender is remembered from the last run), verify the header
// (the beacon engine over the parent), validate the body against the
// header (transactions and withdrawals roots), process it on a fresh
// state over the parent's root (senders recovered, every transaction
// executed, the system calls, the requests), and validate the state
// (gas, bloom, receipts root, requests hash, state root). Nothing is
// written: the next run starts from the same parent state, as dyno's
// revm benchmark does. The outputs are the computed state root, receipts
// root and gas.
func validateBlock(c *blockCase) (common.Hash, common.Hash, uint64, error) {
	block := new(types.Block)
	if err := rlp.DecodeBytes(c.rlp, block); err != nil {
		return common.Hash{}, common.Hash{}, 0, fmt.Errorf("decoding the block: %w", err)
	}
	if err := c.chain.Engine().VerifyHeader(c.chain, block.Header()); err != nil {
		return common.Hash{}, common.Hash{}, 0, fmt.Errorf("header: %w", err)
	}
	if err := c.chain.Validator().ValidateBody(block); err != nil {
		return common.Hash{}, common.Hash{}, 0, fmt.Errorf("body: %w", err)
	}
	statedb, err := c.chain.StateAt(c.parent.Root, c.parent.Number, c.parent.Time)
	if err != nil {
		return common.Hash{}, common.Hash{}, 0, fmt.Errorf("parent state: %w", err)
	}
	res, err := c.chain.Processor().Process(context.Background(), block, statedb, nil, nil, vm.Config{}, nil)
	if err != nil {
		return common.Hash{}, common.Hash{}, 0, fmt.Errorf("processing: %w", err)
	}
	if err := c.chain.Validator().ValidateState(block, statedb, res, false); err != nil {
		return common.Hash{}, common.Hash{}, 0, fmt.Errorf("state: %w", err)
	}
	root := statedb.IntermediateRoot(c.chain.Config().Rules(block.Number(), true, block.Time()))
	receipts := types.DeriveSha(res.Receipts, trie.NewStackTrie(nil))
	return root, receipts, res.GasUsed, nil
}

// newBlockCase commits the genesis and parses the block.
func newBlockCase(cases []Case, i int) (*blockCase, error) {
	raw, ok := cases[i].Input["genesis"]
	if !ok {
		return nil, fmt.Errorf("case %d: no genesis", i)
	}
	genesis := new(core.Genesis)
	if err := json.Unmarshal(raw, genesis); err != nil {
		return nil, fmt.Errorf("case %d: genesis: %v", i, err)
	}
	rlpBytes, err := inputHex(cases, i, "block")
	if err != nil {
		return nil, err
	}
	engine := beacon.New(ethash.NewFaker())
	chain, err := core.NewBlockChain(rawdb.NewMemoryDatabase(), genesis, engine, core.DefaultConfig())
	if err != nil {
		return nil, fmt.Errorf("case %d: committing the genesis: %v", i, err)
	}
	return &blockCase{chain: chain, parent: chain.CurrentBlock(), rlp: rlpBytes}, nil
}

// blockBench loops the validation over the cases; it keeps its first
// error (a block that stopped validating) for the worker.
type blockBench struct {
	cases []*blockCase
	pos   int
	err   error
}

func (b *blockBench) Loop(n int) {
	for i := 0; i < n; i++ {
		var err error
		Sink32, _, SinkU64, err = validateBlock(b.cases[b.pos])
		if err != nil && b.err == nil {
			b.err = err
		}
		b.pos++
		if b.pos == len(b.cases) {
			b.pos = 0
		}
	}
}

func (b *blockBench) Err() error { return b.err }

// Close stops the cases' chains.
func (b *blockBench) Close() error {
	for _, c := range b.cases {
		if c != nil {
			c.chain.Stop()
		}
	}
	return nil
}

func prepareBlockValidate(_ string, cases []Case) (*Prepared, error) {
	b := &blockBench{cases: make([]*blockCase, len(cases))}
	for i := range cases {
		c, err := newBlockCase(cases, i)
		if err != nil {
			_ = b.Close()
			return nil, err
		}
		b.cases[i] = c
	}
	outs := make([]Output, len(cases))
	for i, c := range b.cases {
		root, receipts, gas, err := validateBlock(c)
		if err != nil {
			_ = b.Close()
			return nil, fmt.Errorf("case %d: %v", i, err)
		}
		outs[i] = Output{
			{Name: "state_root", Value: Hex(root[:])},
			{Name: "receipts_root", Value: Hex(receipts[:])},
			{Name: "gas_used", Value: int64(gas)},
		}
	}
	return &Prepared{Bench: b, Outputs: outs}, nil
}
