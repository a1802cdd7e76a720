// Command interop-geth is the go-ethereum v1.17.8 side of dyno-net's live
// interop tests. It uses geth's own p2p/rlpx transport and eth/protocols/eth
// packet types.
//
//	interop-geth listen [-key HEX]       accept one RLPx connection on 127.0.0.1,
//	                                     exchange Hello, echo eth messages
//	interop-geth dial ADDR PUBKEY [-key HEX]
//	                                     dial a dyno-net listener, exchange Hello,
//	                                     send geth-encoded eth messages and check
//	                                     the echoes are byte-identical
//
// Echo: every eth message (code >= 0x10) is decoded into geth's typed
// structures (lazy rlp.RawList fields are expanded with Items(), so every
// transaction and header is really decoded), re-encoded with geth's RLP
// encoder and sent back with the same code. Ping gets Pong. Disconnect ends
// the session. Lines on stdout: "LISTEN addr pubkey", "ECHO code size",
// "DISCONNECT reason", "OK count". Errors go to stderr with exit status 1.
package main

import (
	"bytes"
	"crypto/ecdsa"
	"encoding/hex"
	"flag"
	"fmt"
	"math/big"
	"net"
	"os"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/forkid"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/protocols/eth"
	"github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/p2p/rlpx"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/holiman/uint256"
)

const (
	helloMsg      = 0x00
	disconnectMsg = 0x01
	pingMsg       = 0x02
	pongMsg       = 0x03
	ethOffset     = 0x10
)

// protoHandshake mirrors p2p.protoHandshake (unexported in geth).
type protoHandshake struct {
	Version    uint64
	Name       string
	Caps       []p2p.Cap
	ListenPort uint64
	ID         []byte
	Rest       []rlp.RawValue `rlp:"tail"`
}

type fullBody struct {
	Transactions []*types.Transaction
	Uncles       []*types.Header
	Withdrawals  []*types.Withdrawal `rlp:"optional"`
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "interop-geth: "+format+"\n", args...)
	os.Exit(1)
}

// reencode decodes an eth payload with geth's types and encodes it again.
func reencode(code uint64, data []byte) ([]byte, error) {
	switch code - ethOffset {
	case eth.StatusMsg:
		var p eth.StatusPacket
		if err := rlp.DecodeBytes(data, &p); err != nil {
			return nil, err
		}
		return rlp.EncodeToBytes(&p)
	case eth.TransactionsMsg:
		var p eth.TransactionsPacket
		if err := rlp.DecodeBytes(data, &p); err != nil {
			return nil, err
		}
		txs, err := p.Items()
		if err != nil {
			return nil, err
		}
		return rlp.EncodeToBytes(txs)
	case eth.GetBlockHeadersMsg:
		var p eth.GetBlockHeadersPacket
		if err := rlp.DecodeBytes(data, &p); err != nil {
			return nil, err
		}
		return rlp.EncodeToBytes(&p)
	case eth.BlockHeadersMsg:
		var p eth.BlockHeadersPacket
		if err := rlp.DecodeBytes(data, &p); err != nil {
			return nil, err
		}
		hs, err := p.List.Items()
		if err != nil {
			return nil, err
		}
		return rlp.EncodeToBytes(struct {
			RequestId uint64
			Headers   []*types.Header
		}{p.RequestId, hs})
	case eth.GetBlockBodiesMsg:
		var p eth.GetBlockBodiesPacket
		if err := rlp.DecodeBytes(data, &p); err != nil {
			return nil, err
		}
		return rlp.EncodeToBytes(&p)
	case eth.BlockBodiesMsg:
		var p eth.BlockBodiesPacket
		if err := rlp.DecodeBytes(data, &p); err != nil {
			return nil, err
		}
		bodies, err := p.List.Items()
		if err != nil {
			return nil, err
		}
		out := make([]fullBody, len(bodies))
		for i, b := range bodies {
			if out[i].Transactions, err = b.Transactions.Items(); err != nil {
				return nil, err
			}
			if out[i].Uncles, err = b.Uncles.Items(); err != nil {
				return nil, err
			}
			if b.Withdrawals != nil {
				if out[i].Withdrawals, err = b.Withdrawals.Items(); err != nil {
					return nil, err
				}
			}
		}
		return rlp.EncodeToBytes(struct {
			RequestId uint64
			Bodies    []fullBody
		}{p.RequestId, out})
	case eth.NewPooledTransactionHashesMsg:
		var p eth.NewPooledTransactionHashesPacket71
		if err := rlp.DecodeBytes(data, &p); err != nil {
			return nil, err
		}
		return rlp.EncodeToBytes(&p)
	}
	return nil, fmt.Errorf("no decoder for code %#x", code)
}

func hello(key *ecdsa.PrivateKey, name string) []byte {
	h := protoHandshake{
		Version: 5,
		Name:    name,
		Caps:    []p2p.Cap{{Name: "eth", Version: 69}},
		ID:      crypto.FromECDSAPub(&key.PublicKey)[1:],
	}
	b, err := rlp.EncodeToBytes(&h)
	if err != nil {
		fail("encode hello: %v", err)
	}
	return b
}

// exchangeHello writes ours, reads theirs (uncompressed), enables snappy.
func exchangeHello(c *rlpx.Conn, key *ecdsa.PrivateKey, remote *ecdsa.PublicKey) *protoHandshake {
	if _, err := c.Write(helloMsg, hello(key, "interop-geth/v1.17.8")); err != nil {
		fail("write hello: %v", err)
	}
	code, data, _, err := c.Read()
	if err != nil {
		fail("read hello: %v", err)
	}
	if code != helloMsg {
		fail("expected hello, got code %#x", code)
	}
	var theirs protoHandshake
	if err := rlp.DecodeBytes(data, &theirs); err != nil {
		fail("decode hello: %v", err)
	}
	if !bytes.Equal(theirs.ID, crypto.FromECDSAPub(remote)[1:]) {
		fail("hello id %x does not match handshake key", theirs.ID)
	}
	fmt.Printf("HELLO %s version=%d caps=%v\n", theirs.Name, theirs.Version, theirs.Caps)
	c.SetSnappy(theirs.Version >= 5)
	return &theirs
}

func listen(key *ecdsa.PrivateKey) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail("listen: %v", err)
	}
	fmt.Printf("LISTEN %s %x\n", l.Addr(), crypto.FromECDSAPub(&key.PublicKey)[1:])
	fd, err := l.Accept()
	if err != nil {
		fail("accept: %v", err)
	}
	fd.SetDeadline(time.Now().Add(60 * time.Second))
	c := rlpx.NewConn(fd, nil)
	remote, err := c.Handshake(key)
	if err != nil {
		fail("handshake: %v", err)
	}
	exchangeHello(c, key, remote)
	for {
		code, data, _, err := c.Read()
		if err != nil {
			fail("read: %v", err)
		}
		switch {
		case code == disconnectMsg:
			// A struct decodes from the list [reason]; a []DiscReason would be
			// read as a byte string.
			var d struct {
				Reason p2p.DiscReason
				Rest   []rlp.RawValue `rlp:"tail"`
			}
			if err := rlp.DecodeBytes(data, &d); err != nil {
				fail("decode disconnect %x: %v", data, err)
			}
			fmt.Printf("DISCONNECT %v\n", d.Reason)
			return
		case code == pingMsg:
			if _, err := c.Write(pongMsg, []byte{0xc0}); err != nil {
				fail("write pong: %v", err)
			}
		case code >= ethOffset:
			out, err := reencode(code, data)
			if err != nil {
				fail("decode code %#x: %v", code, err)
			}
			if _, err := c.Write(code, out); err != nil {
				fail("write echo: %v", err)
			}
			fmt.Printf("ECHO %#x %d\n", code, len(data))
		default:
			fail("unexpected code %#x", code)
		}
	}
}

// gethMessages builds one message of every supported kind with geth types.
func gethMessages() (codes []uint64, payloads [][]byte) {
	key, _ := crypto.HexToECDSA("4646464646464646464646464646464646464646464646464646464646464646")
	chainID := big.NewInt(1)
	signer := types.NewPragueSigner(chainID)
	to := common.HexToAddress("0x3535353535353535353535353535353535353535")
	al := types.AccessList{{Address: common.HexToAddress("0xaa"), StorageKeys: []common.Hash{{1}, {2}}}}
	auth, err := types.SignSetCode(key, types.SetCodeAuthorization{ChainID: *uint256.NewInt(1), Address: to, Nonce: 5})
	if err != nil {
		fail("sign auth: %v", err)
	}
	txs := []*types.Transaction{
		types.MustSignNewTx(key, signer, &types.LegacyTx{Nonce: 0, GasPrice: big.NewInt(20e9), Gas: 21000, To: &to, Value: big.NewInt(1)}),
		types.MustSignNewTx(key, signer, &types.AccessListTx{ChainID: chainID, Nonce: 1, GasPrice: big.NewInt(20e9), Gas: 50000, To: &to, AccessList: al, Data: []byte{0xde, 0xad}}),
		types.MustSignNewTx(key, signer, &types.DynamicFeeTx{ChainID: chainID, Nonce: 2, GasTipCap: big.NewInt(1e9), GasFeeCap: big.NewInt(30e9), Gas: 100000, Data: []byte{0x60, 0, 0x60, 0, 0xf3}}),
		types.MustSignNewTx(key, signer, &types.BlobTx{ChainID: uint256.NewInt(1), Nonce: 3, GasTipCap: uint256.NewInt(1e9), GasFeeCap: uint256.NewInt(30e9), Gas: 100000, To: to, Value: uint256.NewInt(0), BlobFeeCap: uint256.NewInt(1e6), BlobHashes: []common.Hash{common.HexToHash("0x01a915e4d060149eb4365960e6a7a45f334393093061116b197e3240065ff2d8")}}),
		types.MustSignNewTx(key, signer, &types.SetCodeTx{ChainID: uint256.NewInt(1), Nonce: 4, GasTipCap: uint256.NewInt(1e9), GasFeeCap: uint256.NewInt(30e9), Gas: 100000, To: to, Value: uint256.NewInt(0), AccessList: al, AuthList: []types.SetCodeAuthorization{auth}}),
	}
	baseFee := big.NewInt(7)
	wroot := common.Hash{6}
	blobGas, excess := uint64(131072), uint64(0)
	beacon, requests := common.Hash{8}, common.Hash{9}
	header := &types.Header{
		ParentHash: common.Hash{1}, UncleHash: types.EmptyUncleHash, Coinbase: common.HexToAddress("0xbb"),
		Root: common.Hash{2}, TxHash: common.Hash{3}, ReceiptHash: common.Hash{4}, Difficulty: big.NewInt(0),
		Number: big.NewInt(1234), GasLimit: 36_000_000, GasUsed: 21000, Time: 1_750_000_000, Extra: []byte("geth"),
		MixDigest: common.Hash{5}, BaseFee: baseFee, WithdrawalsHash: &wroot, BlobGasUsed: &blobGas,
		ExcessBlobGas: &excess, ParentBeaconRoot: &beacon, RequestsHash: &requests,
	}
	enc := func(v any) []byte {
		b, err := rlp.EncodeToBytes(v)
		if err != nil {
			fail("encode: %v", err)
		}
		return b
	}
	hashes := make([]common.Hash, len(txs))
	sizes := make([]uint32, len(txs))
	kinds := make([]byte, len(txs))
	for i, tx := range txs {
		hashes[i], sizes[i], kinds[i] = tx.Hash(), uint32(tx.Size()), tx.Type()
	}
	add := func(code uint64, b []byte) {
		codes = append(codes, ethOffset+code)
		payloads = append(payloads, b)
	}
	add(eth.StatusMsg, enc(&eth.StatusPacket{
		ProtocolVersion: 69, NetworkID: 1337, Genesis: common.Hash{0x11},
		ForkID: forkid.ID{Hash: [4]byte{1, 2, 3, 4}, Next: 0}, EarliestBlock: 0, LatestBlock: 1234,
		LatestBlockHash: header.Hash(),
	}))
	add(eth.TransactionsMsg, enc(txs))
	add(eth.GetBlockHeadersMsg, enc(&eth.GetBlockHeadersPacket{RequestId: 7, GetBlockHeadersRequest: &eth.GetBlockHeadersRequest{Origin: eth.HashOrNumber{Hash: header.Hash()}, Amount: 3, Skip: 1, Reverse: true}}))
	add(eth.BlockHeadersMsg, enc(struct {
		RequestId uint64
		Headers   []*types.Header
	}{7, []*types.Header{header, header}}))
	add(eth.GetBlockBodiesMsg, enc(&eth.GetBlockBodiesPacket{RequestId: 8, GetBlockBodiesRequest: []common.Hash{header.Hash()}}))
	add(eth.BlockBodiesMsg, enc(struct {
		RequestId uint64
		Bodies    []fullBody
	}{8, []fullBody{
		{Transactions: txs, Uncles: []*types.Header{header}, Withdrawals: []*types.Withdrawal{{Index: 1, Validator: 2, Address: common.HexToAddress("0x44"), Amount: 32e9}}},
		{Transactions: txs[:2], Uncles: nil},
	}}))
	add(eth.NewPooledTransactionHashesMsg, enc(&eth.NewPooledTransactionHashesPacket71{Types: kinds, Sizes: sizes, Hashes: hashes}))
	return codes, payloads
}

func dial(key *ecdsa.PrivateKey, addr, pubHex string) {
	pub, err := hex.DecodeString(pubHex)
	if err != nil || len(pub) != 64 {
		fail("bad pubkey %q", pubHex)
	}
	remote, err := crypto.UnmarshalPubkey(append([]byte{4}, pub...))
	if err != nil {
		fail("bad pubkey: %v", err)
	}
	fd, err := net.Dial("tcp", addr)
	if err != nil {
		fail("dial: %v", err)
	}
	fd.SetDeadline(time.Now().Add(60 * time.Second))
	c := rlpx.NewConn(fd, remote)
	if _, err := c.Handshake(key); err != nil {
		fail("handshake: %v", err)
	}
	exchangeHello(c, key, remote)
	codes, payloads := gethMessages()
	for i, code := range codes {
		if _, err := c.Write(code, payloads[i]); err != nil {
			fail("write %#x: %v", code, err)
		}
		got, data, _, err := c.Read()
		if err != nil {
			fail("read echo of %#x: %v", code, err)
		}
		if got != code || !bytes.Equal(data, payloads[i]) {
			fail("echo of %#x differs:\n got  %#x %x\n want %#x %x", code, got, data, code, payloads[i])
		}
		fmt.Printf("ECHO %#x %d\n", code, len(data))
	}
	disc, _ := rlp.EncodeToBytes([]any{p2p.DiscRequested})
	c.Write(disconnectMsg, disc)
	fmt.Printf("OK %d\n", len(codes))
}

func main() {
	if len(os.Args) < 2 {
		fail("usage: interop-geth listen|dial ADDR PUBKEY [-key HEX]")
	}
	mode := os.Args[1]
	fs := flag.NewFlagSet(mode, flag.ExitOnError)
	keyHex := fs.String("key", "b71c71a67e1177ad4e901695e1b4b9ee17ae16c6668d313eac2f96dbcda3f291", "node key (hex)")
	var pos []string
	args := os.Args[2:]
	for len(args) > 0 {
		fs.Parse(args)
		args = fs.Args()
		if len(args) > 0 {
			pos = append(pos, args[0])
			args = args[1:]
		}
	}
	key, err := crypto.HexToECDSA(*keyHex)
	if err != nil {
		fail("bad key: %v", err)
	}
	switch mode {
	case "listen":
		listen(key)
	case "dial":
		if len(pos) != 2 {
			fail("usage: interop-geth dial ADDR PUBKEY")
		}
		dial(key, pos[0], pos[1])
	default:
		fail("unknown mode %q", mode)
	}
}
