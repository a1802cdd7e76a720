package bench

import (
	"bytes"
	"crypto/ecdsa"
	"encoding/hex"
	"math/big"
	"net"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/forkid"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/protocols/eth"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/golang/snappy"
	"github.com/holiman/uint256"
)

// testBody is a block body as plain typed lists (no rlp.RawList), so the
// test's encodings do not go through the code under test.
type testBody struct {
	Transactions []*types.Transaction
	Uncles       []*types.Header
	Withdrawals  []*types.Withdrawal `rlp:"optional"`
}

func netTestKey(t testing.TB, b byte) *ecdsa.PrivateKey {
	t.Helper()
	k, err := crypto.ToECDSA(bytes.Repeat([]byte{b}, 32))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// netTestTxs signs n transactions of every type (legacy, EIP-2930,
// EIP-1559, EIP-4844 without sidecar, EIP-7702) in turn.
func netTestTxs(t testing.TB, n int) []*types.Transaction {
	t.Helper()
	key := netTestKey(t, 0x46)
	chainID := big.NewInt(1)
	signer := types.NewPragueSigner(chainID)
	to := common.HexToAddress("0x3535353535353535353535353535353535353535")
	al := types.AccessList{{Address: common.HexToAddress("0xaa"), StorageKeys: []common.Hash{{1}, {2}}}}
	auth, err := types.SignSetCode(key, types.SetCodeAuthorization{ChainID: *uint256.NewInt(1), Address: to, Nonce: 5})
	if err != nil {
		t.Fatal(err)
	}
	txs := make([]*types.Transaction, n)
	for i := range txs {
		nonce := uint64(i)
		data := seq(uint64(i), i%70)
		var d types.TxData
		switch i % 5 {
		case 0:
			d = &types.LegacyTx{Nonce: nonce, GasPrice: big.NewInt(20e9), Gas: 21000, To: &to, Value: big.NewInt(int64(i) + 1), Data: data}
		case 1:
			d = &types.AccessListTx{ChainID: chainID, Nonce: nonce, GasPrice: big.NewInt(20e9), Gas: 50000, To: &to, AccessList: al, Data: data}
		case 2:
			d = &types.DynamicFeeTx{ChainID: chainID, Nonce: nonce, GasTipCap: big.NewInt(1e9), GasFeeCap: big.NewInt(30e9), Gas: 100000, Data: data}
		case 3:
			d = &types.BlobTx{ChainID: uint256.NewInt(1), Nonce: nonce, GasTipCap: uint256.NewInt(1e9), GasFeeCap: uint256.NewInt(30e9), Gas: 100000, To: to,
				Value: uint256.NewInt(0), BlobFeeCap: uint256.NewInt(1e6), BlobHashes: []common.Hash{common.HexToHash("0x01a915e4d060149eb4365960e6a7a45f334393093061116b197e3240065ff2d8")}}
		case 4:
			d = &types.SetCodeTx{ChainID: uint256.NewInt(1), Nonce: nonce, GasTipCap: uint256.NewInt(1e9), GasFeeCap: uint256.NewInt(30e9), Gas: 100000, To: to,
				Value: uint256.NewInt(0), AccessList: al, AuthList: []types.SetCodeAuthorization{auth}}
		}
		txs[i] = types.MustSignNewTx(key, signer, d)
	}
	return txs
}

// netTestHeaders: Prague headers (every optional field set) and, every
// third one, a pre-London header.
func netTestHeaders(n int) []*types.Header {
	hs := make([]*types.Header, n)
	for i := range hs {
		h := &types.Header{
			ParentHash: common.Hash{1, byte(i)}, UncleHash: types.EmptyUncleHash, Coinbase: common.HexToAddress("0xbb"),
			Root: common.Hash{2}, TxHash: common.Hash{3}, ReceiptHash: common.Hash{4}, Difficulty: big.NewInt(0),
			Number: big.NewInt(int64(1000 + i)), GasLimit: 36_000_000, GasUsed: 21000 * uint64(i), Time: 1_750_000_000 + uint64(i),
			Extra: []byte("geth"), MixDigest: common.Hash{5},
		}
		if i%3 == 2 {
			h.Difficulty = big.NewInt(131072)
			h.Bloom[7] = 0x80
		} else {
			wroot, beacon, requests := common.Hash{6}, common.Hash{8}, common.Hash{9}
			blobGas, excess := uint64(131072), uint64(i)
			h.BaseFee, h.WithdrawalsHash, h.BlobGasUsed, h.ExcessBlobGas = big.NewInt(7+int64(i)), &wroot, &blobGas, &excess
			h.ParentBeaconRoot, h.RequestsHash = &beacon, &requests
		}
		hs[i] = h
	}
	return hs
}

// netTestMessages are one eth/69 message of each kind, encoded by geth's
// rlp from plain typed values, by codec name.
func netTestMessages(t testing.TB) map[string][]byte {
	t.Helper()
	enc := func(v any) []byte {
		b, err := rlp.EncodeToBytes(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	txs := netTestTxs(t, 12)
	headers := netTestHeaders(5)
	hashes := make([]common.Hash, len(txs))
	sizes := make([]uint32, len(txs))
	kinds := make([]byte, len(txs))
	for i, tx := range txs {
		hashes[i], sizes[i], kinds[i] = tx.Hash(), uint32(tx.Size()), tx.Type()
	}
	return map[string][]byte{
		"status": enc(&eth.StatusPacket{
			ProtocolVersion: 69, NetworkID: 1, Genesis: common.Hash{0x11},
			ForkID: forkid.ID{Hash: [4]byte{1, 2, 3, 4}, Next: 0}, EarliestBlock: 0, LatestBlock: 1234,
			LatestBlockHash: headers[0].Hash(),
		}),
		"transactions-100": enc(txs),
		"block-headers-100": enc(struct {
			RequestId uint64
			Headers   []*types.Header
		}{7, headers}),
		"block-bodies-10": enc(struct {
			RequestId uint64
			Bodies    []testBody
		}{8, []testBody{
			{Transactions: txs, Uncles: headers[:1], Withdrawals: []*types.Withdrawal{{Index: 1, Validator: 2, Address: common.HexToAddress("0x44"), Amount: 32e9}}},
			{Transactions: txs[:2]}, // pre-Shanghai: no withdrawals list
			{Withdrawals: []*types.Withdrawal{}},
		}}),
		"new-pooled-tx-hashes-100": enc(&eth.NewPooledTransactionHashesPacket71{Types: kinds, Sizes: sizes, Hashes: hashes}),
	}
}

func TestNetListed(t *testing.T) {
	want := []string{"net/route/mixed", "net/handshake/local"}
	for _, m := range NetMessages {
		want = append(want, "net/encode/"+m, "net/decode/"+m)
	}
	for _, id := range want {
		if impl := implFor(t, id); impl != ImplGeth {
			t.Errorf("%s listed as %q, want %q", id, impl, ImplGeth)
		}
	}
	for _, e := range List() {
		if strings.HasPrefix(e.ID, "net/") && e.Library != LibGeth {
			t.Errorf("%s: library %q", e.ID, e.Library)
		}
	}
}

// TestNetStatusIndependent: geth's encoding of the Status the test uses
// equals the test's own generic encoder's.
func TestNetStatusIndependent(t *testing.T) {
	msgs := netTestMessages(t)
	hash := netTestHeaders(1)[0].Hash()
	genesis := common.Hash{0x11}
	tree := []any{[]byte{69}, []byte{1}, genesis[:], []any{[]byte{1, 2, 3, 4}, []byte{}}, []byte{}, []byte{0x04, 0xd2}, hash[:]}
	if want := testEncode(tree); !bytes.Equal(msgs["status"], want) {
		t.Fatalf("status %x, want %x", msgs["status"], want)
	}
}

func TestNetEncodeDecodeGolden(t *testing.T) {
	msgs := netTestMessages(t)
	for _, name := range NetMessages {
		msg := msgs[name]
		wire := snappy.Encode(nil, msg)
		t.Run(name, func(t *testing.T) {
			enc := []Case{mkCase(map[string]any{"message": hx(msg)}, map[string]any{"message": hx(msg)})}
			p := mustPrepare(t, "net/encode/"+name, ImplGeth, enc)
			if got, err := snappy.Decode(nil, SinkBytes); err != nil || !bytes.Equal(got, msg) {
				t.Fatalf("encode loop output does not decompress to the message (%v)", err)
			}
			if err := p.Bench.(Failing).Err(); err != nil {
				t.Fatal(err)
			}
			dec := []Case{mkCase(map[string]any{"wire": hx(wire)}, map[string]any{"message": hx(msg)})}
			p = mustPrepare(t, "net/decode/"+name, ImplGeth, dec)
			if err := p.Bench.(Failing).Err(); err != nil {
				t.Fatal(err)
			}

			// A wrong expected message is a mismatch, for both.
			bad := append([]byte(nil), msg...)
			bad[len(bad)-1] ^= 1
			for id, c := range map[string]Case{
				"net/encode/" + name: mkCase(map[string]any{"message": hx(msg)}, map[string]any{"message": hx(bad)}),
				"net/decode/" + name: mkCase(map[string]any{"wire": hx(wire)}, map[string]any{"message": hx(bad)}),
			} {
				cases := []Case{c}
				p, err := Prepare(id, ImplGeth, cases)
				if err != nil {
					t.Fatal(err)
				}
				if m := Check(p, cases); m == nil || m.Field != "message" || m.Case != 0 {
					t.Fatalf("%s with a wrong expected message: %+v", id, m)
				}
			}
		})
	}
}

// TestNetDecodeExpands: the decode loop's value holds every item decoded.
func TestNetDecodeExpands(t *testing.T) {
	msgs := netTestMessages(t)
	dec := wireDecoder(netCodecByName("block-bodies-10"))
	v, err := dec(snappy.Encode(nil, msgs["block-bodies-10"]))
	if err != nil {
		t.Fatal(err)
	}
	bs := v.(*netBodies)
	if bs.RequestID != 8 || len(bs.Bodies) != 3 || len(bs.Bodies[0].Transactions) != 12 || len(bs.Bodies[0].Uncles) != 1 ||
		!bs.Bodies[0].HasWithdrawals || len(bs.Bodies[0].Withdrawals) != 1 || bs.Bodies[1].HasWithdrawals || !bs.Bodies[2].HasWithdrawals {
		t.Fatalf("bodies: %+v", bs)
	}
	if bs.Bodies[0].Transactions[3].Type() != types.BlobTxType || bs.Bodies[0].Uncles[0].Number.Uint64() != 1000 {
		t.Fatal("items not decoded")
	}
	v, err = wireDecoder(netCodecByName("transactions-100"))(snappy.Encode(nil, msgs["transactions-100"]))
	if err != nil {
		t.Fatal(err)
	}
	if txs := v.([]*types.Transaction); len(txs) != 12 || txs[4].Type() != types.SetCodeTxType {
		t.Fatalf("transactions: %v", txs)
	}
}

func netRouteCases(t testing.TB) ([]Case, [][]byte) {
	msgs := netTestMessages(t)
	codes := map[string]uint64{"status": 0x10, "transactions-100": 0x12, "block-headers-100": 0x14, "block-bodies-10": 0x16, "new-pooled-tx-hashes-100": 0x18}
	var cases []Case
	var expected [][]byte
	for _, name := range NetMessages {
		cases = append(cases, mkCase(map[string]any{"code": codes[name], "wire": hx(snappy.Encode(nil, msgs[name]))}, map[string]any{"message": hx(msgs[name])}))
		expected = append(expected, msgs[name])
	}
	return cases, expected
}

func TestNetRoute(t *testing.T) {
	cases, msgs := netRouteCases(t)
	mustPrepare(t, "net/route/mixed", ImplGeth, cases)

	// A wrong expected message is a mismatch at that case.
	bad := append([]byte(nil), msgs[3]...)
	bad[len(bad)-1] ^= 1
	cases[3].Expected["message"] = raw(hx(bad))
	p, err := Prepare("net/route/mixed", ImplGeth, cases)
	if err != nil {
		t.Fatal(err)
	}
	if m := Check(p, cases); m == nil || m.Case != 3 || m.Field != "message" {
		t.Fatalf("wrong expected message: %+v", m)
	}

	// A code with no decoder is an error: unknown, or an eth message this
	// table does not route (GetBlockHeaders 0x13).
	for _, code := range []uint64{0x11, 0x13, 0x00, 0x28} {
		cases, _ := netRouteCases(t)
		cases[1].Input["code"] = raw(code)
		if _, err := Prepare("net/route/mixed", ImplGeth, cases); err == nil || !strings.Contains(err.Error(), "no decoder") {
			t.Fatalf("code %#x: %v", code, err)
		}
	}
	// Inside the loop too: the error is recorded, the loop stops.
	cases, _ = netRouteCases(t)
	p = mustPrepare(t, "net/route/mixed", ImplGeth, cases)
	l := p.Bench.(*netLoop[netRouteCase])
	l.cases[2].code = 0x11
	l.Loop(10)
	if err := l.Err(); err == nil || !strings.Contains(err.Error(), "case 2") {
		t.Fatalf("loop error: %v", err)
	}
}

func TestNetBadInputs(t *testing.T) {
	msgs := netTestMessages(t)
	for _, c := range []struct {
		id    string
		input map[string]any
		want  string
	}{
		{"net/encode/status", map[string]any{}, "no field"},
		{"net/encode/status", map[string]any{"message": hx(msgs["transactions-100"])}, "not a status"},
		{"net/encode/transactions-100", map[string]any{"message": "0xc1"}, "not a transactions-100"},
		{"net/decode/status", map[string]any{"wire": hx(msgs["status"])}, "snappy"},
		{"net/decode/block-headers-100", map[string]any{"wire": hx(snappy.Encode(nil, msgs["status"]))}, "case 0"},
		{"net/decode/new-pooled-tx-hashes-100", map[string]any{"wire": hx(snappy.Encode(nil, testEncode([]any{[]byte{1, 2}, []any{[]byte{9}}, []any{}})))}, "invalid len"},
		{"net/route/mixed", map[string]any{"wire": "0x00"}, "no field"},
		{"net/handshake/local", map[string]any{"initiator_key": hx(make([]byte, 31)), "responder_key": hx(make([]byte, 32))}, "31 bytes"},
		{"net/handshake/local", map[string]any{"initiator_key": hx(bytes.Repeat([]byte{1}, 32)), "responder_key": hx(make([]byte, 32))}, "responder_key"},
	} {
		if _, err := Prepare(c.id, ImplGeth, []Case{mkCase(c.input, map[string]any{"message": "0x"})}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: error %v, want %q", c.id, c.input, err, c.want)
		}
	}
	if _, err := Prepare("net/encode/receipts", ImplGeth, []Case{mkCase(nil, nil)}); err == nil {
		t.Error("unknown message accepted")
	}
}

func netHandshakeCaseFor(ik, rk *ecdsa.PrivateKey, nodeID []byte) Case {
	return mkCase(map[string]any{"initiator_key": hx(crypto.FromECDSA(ik)), "responder_key": hx(crypto.FromECDSA(rk))},
		map[string]any{"node_id": hx(nodeID)})
}

func TestNetHandshake(t *testing.T) {
	a, b, c := netTestKey(t, 1), netTestKey(t, 2), netTestKey(t, 3)
	idB := crypto.FromECDSAPub(&b.PublicKey)[1:]
	idC := crypto.FromECDSAPub(&c.PublicKey)[1:]
	cases := []Case{netHandshakeCaseFor(a, b, idB), netHandshakeCaseFor(a, c, idC), netHandshakeCaseFor(c, b, idB)}
	p := mustPrepare(t, "net/handshake/local", ImplGeth, cases)
	hb := p.Bench.(*netHandshakeBench)
	t.Cleanup(func() { hb.Close() })
	if len(hb.responders) != 2 {
		t.Fatalf("%d responders for 2 responder keys", len(hb.responders))
	}
	for _, r := range hb.responders {
		if ip := r.ln.Addr().(*net.TCPAddr).IP; !ip.Equal(net.IPv4(127, 0, 0, 1)) {
			t.Fatalf("listening on %v", r.ln.Addr())
		}
	}
	if got := hex.EncodeToString(p.Outputs[1][0].Value.(Hex)); got != hex.EncodeToString(idC) || p.Outputs[1][0].Name != "node_id" {
		t.Fatalf("output %v", p.Outputs[1])
	}
	hb.Loop(4)
	if err := hb.Err(); err != nil {
		t.Fatal(err)
	}

	// A node id of another key is a mismatch.
	wrong := []Case{netHandshakeCaseFor(a, b, idC)}
	p2, err := Prepare("net/handshake/local", ImplGeth, wrong)
	if err != nil {
		t.Fatal(err)
	}
	p2.Bench.(*netHandshakeBench).Close()
	if m := Check(p2, wrong); m == nil || m.Field != "node_id" {
		t.Fatalf("wrong node id: %+v", m)
	}

	// Once the responders are closed, the loop fails instead of hanging.
	if err := hb.Close(); err != nil {
		t.Fatal(err)
	}
	hb.Loop(3)
	if err := hb.Err(); err == nil {
		t.Fatal("no error after the listeners closed")
	}
}

// BenchmarkNetDecodeBodies runs the adapter's decode loop on the test's
// block bodies.
func BenchmarkNetDecodeBodies(b *testing.B) {
	msg := netTestMessages(b)["block-bodies-10"]
	cases := []Case{mkCase(map[string]any{"wire": hx(snappy.Encode(nil, msg))}, map[string]any{"message": hx(msg)})}
	p, err := Prepare("net/decode/block-bodies-10", ImplGeth, cases)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	p.Bench.Loop(b.N)
}
