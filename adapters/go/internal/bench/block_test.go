package bench

import (
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/beacon"
	"github.com/ethereum/go-ethereum/consensus/ethash"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rlp"
)

// A Prague/Osaka genesis with the four system contracts and one funded
// sender, and a block of five transfers on it made by go-ethereum's own
// chain maker: the test's expected roots come from there, not from the
// code under test.
func blockFixture(t *testing.T) (*core.Genesis, *types.Block) {
	t.Helper()
	key, err := crypto.HexToECDSA("b71c71a67e1177ad4e901695e1b4b9ee17ae16c6668d313eac2f96dbcda3f291")
	if err != nil {
		t.Fatal(err)
	}
	from := crypto.PubkeyToAddress(key.PublicKey)
	config := params.MergedTestChainConfig
	gspec := &core.Genesis{
		Config:     config,
		GasLimit:   30_000_000,
		BaseFee:    big.NewInt(params.InitialBaseFee),
		Difficulty: common.Big0,
		Alloc: types.GenesisAlloc{
			from:                             {Balance: big.NewInt(1e18)},
			params.BeaconRootsAddress:        {Code: params.BeaconRootsCode, Nonce: 1, Balance: common.Big0},
			params.HistoryStorageAddress:     {Code: params.HistoryStorageCode, Nonce: 1, Balance: common.Big0},
			params.WithdrawalQueueAddress:    {Code: params.WithdrawalQueueCode, Nonce: 1, Balance: common.Big0},
			params.ConsolidationQueueAddress: {Code: params.ConsolidationQueueCode, Nonce: 1, Balance: common.Big0},
		},
	}
	_, blocks, _ := core.GenerateChainWithGenesis(gspec, beacon.New(ethash.NewFaker()), 1, func(_ int, g *core.BlockGen) {
		signer := types.LatestSigner(config)
		for n := uint64(0); n < 5; n++ {
			g.AddTx(types.MustSignNewTx(key, signer, &types.DynamicFeeTx{
				ChainID: config.ChainID, Nonce: n, To: &common.Address{0xaa, byte(n)},
				Value: big.NewInt(1000), Gas: 21000, GasFeeCap: big.NewInt(1e10), GasTipCap: big.NewInt(1),
			}))
		}
	})
	return gspec, blocks[0]
}

func blockCaseOf(t *testing.T, gspec *core.Genesis, block *types.Block, stateRoot common.Hash) []Case {
	t.Helper()
	genesis, err := json.Marshal(gspec)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := rlp.EncodeToBytes(block)
	if err != nil {
		t.Fatal(err)
	}
	q := func(v any) json.RawMessage {
		b, _ := json.Marshal(v)
		return b
	}
	return []Case{{
		Input: map[string]json.RawMessage{"genesis": genesis, "block": q(hexOf(enc))},
		Expected: map[string]json.RawMessage{
			"state_root":    q(stateRoot.Hex()),
			"receipts_root": q(block.ReceiptHash().Hex()),
			"gas_used":      q(block.GasUsed()),
		},
	}}
}

func hexOf(b []byte) string { return "0x" + common.Bytes2Hex(b) }

func TestBlockValidate(t *testing.T) {
	gspec, block := blockFixture(t)
	if block.GasUsed() != 5*21000 {
		t.Fatalf("the fixture's block used %d gas", block.GasUsed())
	}
	cases := blockCaseOf(t, gspec, block, block.Root())
	p, err := prepareBlockValidate("block/validate/30M-transfers", cases)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Bench.(*blockBench).Close()
	if m := Check(p, cases); m != nil {
		t.Fatalf("mismatch: %+v", m)
	}
	p.Bench.Loop(3)
	if err := p.Bench.(*blockBench).Err(); err != nil {
		t.Fatal(err)
	}

	// The check can fail: an expected root the block does not give.
	wrong := blockCaseOf(t, gspec, block, common.Hash{0x01})
	p2, err := prepareBlockValidate("block/validate/30M-transfers", wrong)
	if err != nil {
		t.Fatal(err)
	}
	defer p2.Bench.(*blockBench).Close()
	if m := Check(p2, wrong); m == nil || m.Field != "state_root" {
		t.Fatalf("a wrong expected root passed: %+v", m)
	}

	// A block whose header claims another state root is refused while it
	// is validated, before anything is timed.
	h := block.Header()
	h.Root = common.Hash{0x02}
	forged := types.NewBlockWithHeader(h).WithBody(*block.Body())
	_, err = prepareBlockValidate("block/validate/30M-transfers", blockCaseOf(t, gspec, forged, h.Root))
	if err == nil || !strings.Contains(err.Error(), "state:") {
		t.Fatalf("a forged state root: %v", err)
	}
}

func TestBlockValidateListed(t *testing.T) {
	listed := map[string]bool{}
	for _, e := range newRegistry().List() {
		if e.Implementation == ImplGeth {
			listed[e.ID] = true
		}
	}
	for _, m := range BlockLimits {
		for _, k := range BlockKinds {
			if id := "block/validate/" + m + "M-" + k; !listed[id] {
				t.Errorf("%s is not registered", id)
			}
		}
	}
}
