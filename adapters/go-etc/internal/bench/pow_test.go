package bench

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dyno/adapters/go-protocol/protocol"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus"
	"github.com/ethereum/go-ethereum/consensus/ethash"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/params/types/ctypes"
	"github.com/ethereum/go-ethereum/rlp"
)

// Expected values. Sources:
//   - the small cache/dataset/hashimoto vectors: core-geth v1.12.22
//     consensus/ethash/algorithm_test.go (TestCacheGeneration, TestDatasetGeneration,
//     TestHashimoto); the 32 KiB dataset by its keccak-256 (computed from that file's hex);
//   - mainnet block 1: a recorded eth_getBlockByNumber(1) reply (lmittmann/w3
//     module/eth/testdata/get_block_by_number__1.golden), checked here against the block
//     hash 0x88e96d45…6cb6; its parent is the mainnet genesis header;
//   - testdata/dyno-pow-cases.jsonl: prepare requests printed by the Rust crate dyno-pow
//     (rust-ethereum's ethash 0.4.0), `cargo run --release --example cases`: the
//     cross-implementation check.
const (
	coreGethCache1024Epoch0Prefix = "7ce2991c951f7bf4c4c1bb119887ee07871eb5339d7b97b8588e85c742de90e5bafd5bbe6ce93a134fb6be9ad3e30db99d9528a2ea7846833f52e9ca119b6b54"
	coreGethCache1024Epoch0Suffix = "845f64fd8324bb85312979dead74f764c9677aab89801ad4f927f1c00f12e28f22422bb44200d1969d9ab377dd6b099dc6dbc3222e9321b2c1e84f8e2f07731c"
	block1Hash                    = "0x88e96d4537bea4d9c05d12549907b32561d3bf31f45aae734cdc119f13406cb6"
	block1SealHash                = "0x85913a3057ea8bec78cd916871ca73802e77724e014dda65add3405d02240eb7"
	block1MixDigest               = "0x969b900de27b6ac6a67742365dd65f55a0526c41fd18e1b16f1a1215c2e66f59"
	block1Result                  = "0x000000002bc095dd4de049873e6302c3f14a7f2e5b5a1f60cdf1f1798164d610"
	genesisHash                   = "0xd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3"
	// keccak-256 of the first 512 items of the real epoch-0 dataset (32 KiB),
	// as both core-geth and dyno-pow compute them.
	epoch0First32KKeccak = "0x6bde09c6180d4a61beb0d03734b828b2c05110d6554d635441fcae500491331d"
)

// block1 is mainnet block 1's header.
func block1() *types.Header {
	return &types.Header{
		ParentHash:  common.HexToHash(genesisHash),
		UncleHash:   types.EmptyUncleHash,
		Coinbase:    common.HexToAddress("0x05a56e2d52c817161883f50c441c3228cfe54d9f"),
		Root:        common.HexToHash("0xd67e4d450343046425ae4271474353857ab860dbc0a1dde64b41b5cd3a532bf3"),
		TxHash:      types.EmptyRootHash,
		ReceiptHash: types.EmptyRootHash,
		Difficulty:  big.NewInt(17171480576),
		Number:      big.NewInt(1),
		GasLimit:    5000,
		Time:        0x55ba4224,
		Extra:       common.FromHex("0x476574682f76312e302e302f6c696e75782f676f312e342e32"),
		MixDigest:   common.HexToHash(block1MixDigest),
		Nonce:       types.EncodeNonce(0x539bd4979fef1ec4),
	}
}

// genesis is the mainnet genesis header (hash 0xd4e5…8fa3).
func genesis() *types.Header {
	return &types.Header{
		UncleHash:   types.EmptyUncleHash,
		Root:        common.HexToHash("0xd7f8974fb5ac78d9ac099b9ad5018bedc2ce0a72dad1827a1709da30580f0544"),
		TxHash:      types.EmptyRootHash,
		ReceiptHash: types.EmptyRootHash,
		Difficulty:  big.NewInt(0x400000000),
		Number:      big.NewInt(0),
		GasLimit:    5000,
		Extra:       common.FromHex("0x11bbe8db4e347b4e8c937c1c8370e4b5ed33adb3db69cbdb7a38e1e50b1b82fa"),
		Nonce:       types.EncodeNonce(0x42),
	}
}

func hexOf(b []byte) string { return "0x" + hex.EncodeToString(b) }

func mustRLP(t *testing.T, h *types.Header) string {
	t.Helper()
	enc, err := rlp.EncodeToBytes(h)
	if err != nil {
		t.Fatal(err)
	}
	return hexOf(enc)
}

// mkCase builds a Case from Go values.
func mkCase(t *testing.T, input, expected map[string]any) protocol.Case {
	t.Helper()
	c := protocol.Case{Input: map[string]json.RawMessage{}, Expected: map[string]json.RawMessage{}}
	for k, v := range input {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		c.Input[k] = b
	}
	for k, v := range expected {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		c.Expected[k] = b
	}
	return c
}

// prepareAndCheck runs Prepare and Check as the worker does.
func prepareAndCheck(t *testing.T, id string, cases []protocol.Case) (*protocol.Prepared, *protocol.Mismatch) {
	t.Helper()
	p, err := Registry.Prepare(id, ImplCoreGeth, cases)
	if err != nil {
		t.Fatalf("%s: prepare: %v", id, err)
	}
	return p, protocol.Check(p, cases)
}

// rustRequest is one line of testdata/dyno-pow-cases.jsonl.
type rustRequest struct {
	ID             string          `json:"id"`
	Implementation string          `json:"implementation"`
	Cases          []protocol.Case `json:"cases"`
}

func rustRequests(t *testing.T) map[string]rustRequest {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "dyno-pow-cases.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]rustRequest{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r rustRequest
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		out[r.ID] = r
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// corrupt flips the last hex digit of case i's expected field (a hex string).
func corrupt(t *testing.T, cases []protocol.Case, i int, field string) []protocol.Case {
	t.Helper()
	out := make([]protocol.Case, len(cases))
	copy(out, cases)
	exp := map[string]json.RawMessage{}
	for k, v := range cases[i].Expected {
		exp[k] = v
	}
	var s string
	if err := json.Unmarshal(exp[field], &s); err != nil {
		t.Fatal(err)
	}
	last := "0"
	if strings.HasSuffix(s, "0") {
		last = "1"
	}
	exp[field], _ = json.Marshal(s[:len(s)-1] + last)
	out[i] = protocol.Case{Input: cases[i].Input, Expected: exp}
	return out
}

// TestLinknamedFunctionsMatchCoreGethVectors checks every go:linkname'd
// function against core-geth's own test vectors, so a signature or
// behaviour change in the pinned module fails here.
func TestLinknamedFunctionsMatchCoreGethVectors(t *testing.T) {
	cache := make([]uint32, 1024/4)
	generateCache(cache, 0, epochLength, make([]byte, 32))
	c := hexOf(words(cache))
	if !strings.HasPrefix(c, "0x"+coreGethCache1024Epoch0Prefix) || !strings.HasSuffix(c, coreGethCache1024Epoch0Suffix) {
		t.Fatalf("1 KiB epoch-0 cache differs from core-geth's TestCacheGeneration: %.80s…", c)
	}
	dataset := make([]uint32, 32*1024/4)
	generateDataset(dataset, 0, epochLength, cache)
	if got := hexOf(crypto.Keccak256(words(dataset))); got != coreGethDataset32K {
		t.Fatalf("32 KiB dataset keccak %s, want %s (core-geth TestDatasetGeneration)", got, coreGethDataset32K)
	}
	hash := common.FromHex("0xc9149cc0386e689d789a1c2f3d5d169a61a6218ed30e74414dc736e442ef3d1f")
	const wantDigest = "0xe4073cffaef931d37117cefd9afd27ea0f1cad6a981dd2605c4a1ac97c519800"
	const wantResult = "0xd3539235ee2e6f8db665c0a72169f55b7f6c605712330b778ec3944f0eb5a557"
	d, r := hashimotoLight(32*1024, cache, hash, 0)
	if hexOf(d) != wantDigest || hexOf(r) != wantResult {
		t.Fatalf("hashimotoLight: %x %x", d, r)
	}
	d, r = hashimotoFull(dataset, hash, 0)
	if hexOf(d) != wantDigest || hexOf(r) != wantResult {
		t.Fatalf("hashimotoFull: %x %x", d, r)
	}
	if cacheSize(0) != 16776896 || datasetSize(0) != 1073739904 || cacheSize(195) != 42334912 || datasetSize(195) != 2709518464 {
		t.Fatalf("sizes: %d %d %d %d", cacheSize(0), datasetSize(0), cacheSize(195), datasetSize(195))
	}
}

// coreGethDataset32K is keccak-256 of core-geth's TestDatasetGeneration
// vector (cache 1 KiB, dataset 32 KiB, epoch 0), the 32768 bytes of its hex.
const coreGethDataset32K = "0x29929d8f6b3dfd631e20b924c42ec55b818977b40a4a85146a6a920a5d51dcec"

func TestEpoch0CacheAndFirstDatasetItems(t *testing.T) {
	c := lightCache(0)
	if len(c)*4 != 16776896 {
		t.Fatalf("epoch-0 cache has %d bytes", len(c)*4)
	}
	first := make([]uint32, 32*1024/4)
	generateDataset(first, 0, epochLength, c)
	if got := hexOf(crypto.Keccak256(words(first))); got != epoch0First32KKeccak {
		t.Fatalf("first 512 epoch-0 dataset items: keccak %s, want %s (dyno-pow)", got, epoch0First32KKeccak)
	}
}

func TestBlock1(t *testing.T) {
	h := block1()
	if h.Hash().Hex() != block1Hash {
		t.Fatalf("block 1 hashes to %s", h.Hash().Hex())
	}
	if g := genesis(); g.Hash().Hex() != genesisHash {
		t.Fatalf("genesis hashes to %s", g.Hash().Hex())
	}
	if s := sealer.SealHash(h).Hex(); s != block1SealHash {
		t.Fatalf("seal hash %s", s)
	}
	d, r := hashimotoLight(datasetSize(0), lightCache(0), sealer.SealHash(h).Bytes(), h.Nonce.Uint64())
	if hexOf(d) != block1MixDigest || hexOf(r) != block1Result {
		t.Fatalf("hashimotoLight(block 1) = %x, %x", d, r)
	}
}

// stubChain is a ChainHeaderReader holding the mainnet genesis only.
type stubChain struct{ genesis *types.Header }

func (c stubChain) Config() ctypes.ChainConfigurator { return params.MainnetChainConfig }
func (c stubChain) CurrentHeader() *types.Header     { return c.genesis }
func (c stubChain) GetHeader(h common.Hash, n uint64) *types.Header {
	if n == 0 && h == c.genesis.Hash() {
		return c.genesis
	}
	return nil
}
func (c stubChain) GetHeaderByNumber(n uint64) *types.Header {
	if n == 0 {
		return c.genesis
	}
	return nil
}
func (c stubChain) GetHeaderByHash(h common.Hash) *types.Header { return c.GetHeader(h, 0) }
func (c stubChain) GetTd(common.Hash, uint64) *big.Int          { return nil }

var _ consensus.ChainHeaderReader = stubChain{}

// TestVerifySealAgreesWithCoreGethVerifyHeader: the timed verification
// (verifySeal) and core-geth's full VerifyHeader (difficulty, gas, time,
// then the seal, through its own cache) agree on block 1 and on block 1
// with another nonce.
func TestVerifySealAgreesWithCoreGethVerifyHeader(t *testing.T) {
	engine := ethash.New(ethash.Config{PowMode: ethash.ModeNormal, CachesInMem: 2}, nil, false)
	defer engine.Close()
	chain := stubChain{genesis()}
	good := block1()
	if err := engine.VerifyHeader(chain, good, true); err != nil {
		t.Fatalf("core-geth VerifyHeader(block 1): %v", err)
	}
	if !verifySeal(&verifyCase{header: good, cache: lightCache(0), size: datasetSize(0)}) {
		t.Fatal("verifySeal(block 1) = false")
	}
	bad := block1()
	bad.Nonce = types.EncodeNonce(0x539bd4979fef1ec5)
	if err := engine.VerifyHeader(chain, bad, true); err == nil || !strings.Contains(err.Error(), "mix digest") {
		t.Fatalf("core-geth VerifyHeader(tampered nonce) = %v, want invalid mix digest", err)
	}
	if verifySeal(&verifyCase{header: bad, cache: lightCache(0), size: datasetSize(0)}) {
		t.Fatal("verifySeal(tampered nonce) = true")
	}
}

func TestVerifyHeaderPrepare(t *testing.T) {
	good := block1()
	badNonce := block1()
	badNonce.Nonce = types.EncodeNonce(0x539bd4979fef1ec5)
	badMix := block1()
	badMix.MixDigest[31] ^= 1
	// A correct mix digest but a difficulty far above what the result meets.
	weak := block1()
	weak.Difficulty = new(big.Int).Lsh(big.NewInt(1), 200)
	d, _ := hashimotoLight(datasetSize(0), lightCache(0), sealer.SealHash(weak).Bytes(), weak.Nonce.Uint64())
	copy(weak.MixDigest[:], d)
	cases := []protocol.Case{
		mkCase(t, map[string]any{"header": mustRLP(t, good)}, map[string]any{"valid": true}),
		mkCase(t, map[string]any{"header": mustRLP(t, badNonce)}, map[string]any{"valid": false}),
		mkCase(t, map[string]any{"header": mustRLP(t, badMix)}, map[string]any{"valid": false}),
		mkCase(t, map[string]any{"header": mustRLP(t, weak)}, map[string]any{"valid": false}),
	}
	p, m := prepareAndCheck(t, IDVerifyHeader, cases)
	if m != nil {
		t.Fatalf("mismatch: case %d %s: %v", m.Case, m.Field, m.Actual)
	}
	p.Bench.Loop(9)
	// Expecting the tampered header to verify is a mismatch on case 1.
	cases[1] = mkCase(t, map[string]any{"header": mustRLP(t, badNonce)}, map[string]any{"valid": true})
	if _, m := prepareAndCheck(t, IDVerifyHeader, cases); m == nil || m.Case != 1 || m.Field != "valid" {
		t.Fatalf("tampered nonce expected valid: %+v", m)
	}
	// The requests dyno-pow prints agree.
	r := rustRequests(t)[IDVerifyHeader]
	if _, m := prepareAndCheck(t, IDVerifyHeader, r.Cases); m != nil {
		t.Fatalf("dyno-pow's cases: mismatch %+v", m)
	}
	// Bad inputs are errors, not outputs.
	for _, in := range []string{"0x", "0xc0", "0x" + strings.Repeat("ab", 10)} {
		if _, err := Registry.Prepare(IDVerifyHeader, ImplCoreGeth, []protocol.Case{mkCase(t, map[string]any{"header": in}, nil)}); err == nil {
			t.Errorf("header %s accepted", in)
		}
	}
	post := block1()
	post.WithdrawalsHash = &common.Hash{}
	if _, err := Registry.Prepare(IDVerifyHeader, ImplCoreGeth, []protocol.Case{mkCase(t, map[string]any{"header": mustRLP(t, post)}, nil)}); err == nil {
		t.Error("post-merge header accepted")
	}
}

func TestHashimotoLightPrepare(t *testing.T) {
	cases := []protocol.Case{mkCase(t,
		map[string]any{"header_hash": block1SealHash, "nonce": "0x539bd4979fef1ec4"},
		map[string]any{"mix_digest": block1MixDigest, "result": block1Result})}
	cases = append(cases, rustRequests(t)[IDHashimotoLight].Cases...)
	if len(cases) != 5 {
		t.Fatalf("%d cases", len(cases))
	}
	p, m := prepareAndCheck(t, IDHashimotoLight, cases)
	if m != nil {
		t.Fatalf("mismatch: case %d %s: %v", m.Case, m.Field, m.Actual)
	}
	p.Bench.Loop(6)
	if _, m := prepareAndCheck(t, IDHashimotoLight, corrupt(t, cases, 3, "result")); m == nil || m.Case != 3 || m.Field != "result" {
		t.Fatalf("corrupted result: %+v", m)
	}
	if _, m := prepareAndCheck(t, IDHashimotoLight, corrupt(t, cases, 0, "mix_digest")); m == nil || m.Case != 0 || m.Field != "mix_digest" {
		t.Fatalf("corrupted mix digest: %+v", m)
	}
	for _, in := range []map[string]any{
		{"header_hash": block1SealHash},
		{"header_hash": "0x1234", "nonce": "0x539bd4979fef1ec4"},
		{"header_hash": block1SealHash, "nonce": "0x539bd4979fef1e"},
		{"header_hash": block1SealHash, "nonce": 5},
	} {
		if _, err := Registry.Prepare(IDHashimotoLight, ImplCoreGeth, []protocol.Case{mkCase(t, in, nil)}); err == nil {
			t.Errorf("input %v accepted", in)
		}
	}
}

func TestEtchashEpochPrepare(t *testing.T) {
	cases := rustRequests(t)[IDEtchashEpoch].Cases
	if len(cases) != 5 {
		t.Fatalf("%d cases", len(cases))
	}
	// Expected values, from core-geth itself (a Go program calling
	// CalcEpochLength/CalcEpoch/SeedHash/cacheSize/datasetSize):
	// 11_699_999 → 30000, 389, 0x8223…743f; 11_700_000 and 11_700_001 →
	// 60000, 195, 0xe79f…6c65 (ETC); 2_520_000 → 60000, 42 (Mordor);
	// 11_700_000 without ECIP-1099 → 30000, 390, the same seed as 195 at 60k.
	want := []struct {
		length, epoch uint64
		seed          string
	}{
		{30000, 389, "0x82232565de6c6216a88e3d3b4a49c8ad5e5913b731e78c93c7e29e50b9f0743f"},
		{60000, 195, "0xe79f0f63030bf691445c2b9d0266b24a9619e355194067f2ad2c73a8e0a26c65"},
		{60000, 195, "0xe79f0f63030bf691445c2b9d0266b24a9619e355194067f2ad2c73a8e0a26c65"},
		{60000, 42, "0x002440e15267eebdf06fa7fe5aee5ccff445967925a90ecce6429aef7f8feb1f"},
		{30000, 390, "0xe79f0f63030bf691445c2b9d0266b24a9619e355194067f2ad2c73a8e0a26c65"},
	}
	p, m := prepareAndCheck(t, IDEtchashEpoch, cases)
	if m != nil {
		t.Fatalf("mismatch: case %d %s: %v", m.Case, m.Field, m.Actual)
	}
	for i, w := range want {
		o := p.Outputs[i]
		if o[0].Value != int64(w.length) || o[1].Value != int64(w.epoch) || hexOf(o[2].Value.(protocol.Hex)) != w.seed {
			t.Errorf("case %d: %v, want %v", i, o, w)
		}
	}
	p.Bench.Loop(7)
	if _, m := prepareAndCheck(t, IDEtchashEpoch, corrupt(t, cases, 2, "seed_hash")); m == nil || m.Case != 2 || m.Field != "seed_hash" {
		t.Fatalf("corrupted seed: %+v", m)
	}
	wrong := mkCase(t, map[string]any{"block": 11_700_000, "ecip1099_block": 11_700_000},
		map[string]any{"epoch_length": 30000, "epoch": 390, "seed_hash": want[1].seed, "cache_size": 42334912, "full_size": 2709518464})
	if _, m := prepareAndCheck(t, IDEtchashEpoch, []protocol.Case{wrong}); m == nil || m.Field != "epoch_length" {
		t.Fatalf("pre-fork epoch length expected after the fork: %+v", m)
	}
	// No ecip1099_block field at all: Ethash rules.
	plain := mkCase(t, map[string]any{"block": 60000}, map[string]any{"epoch_length": 30000, "epoch": 2})
	if _, m := prepareAndCheck(t, IDEtchashEpoch, []protocol.Case{plain}); m != nil {
		t.Fatalf("no fork: %+v", m)
	}
	if _, err := Registry.Prepare(IDEtchashEpoch, ImplCoreGeth, []protocol.Case{mkCase(t, map[string]any{"block": -1}, nil)}); err == nil {
		t.Error("negative block accepted")
	}
}

func TestDatasetFileCache(t *testing.T) {
	// The first 32 KiB of the epoch-0 dataset, in a temporary folder.
	dir := t.TempDir()
	seed := ethash.SeedHash(0, epochLength)
	const size = 32 * 1024
	path := filepath.Join(dir, "sub", DatasetFileName(seed, size))
	if filepath.Base(path) != "ethash-full-0000000000000000-32768.bin" {
		t.Fatalf("file name %s", filepath.Base(path))
	}
	get := func(known string) DatasetSource {
		t.Helper()
		ds, src, err := loadOrMakeDataset(path, 0, seed, size, known)
		if err != nil {
			t.Fatal(err)
		}
		if got := hexOf(crypto.Keccak256(words(ds))); got != epoch0First32KKeccak {
			t.Fatalf("dataset keccak %s", got)
		}
		return src
	}
	if src := get(epoch0First32KKeccak); src != DatasetGenerated {
		t.Fatalf("first: %v", src)
	}
	line, err := os.ReadFile(path + ".keccak256")
	if err != nil {
		t.Fatal(err)
	}
	// The same line as dyno-pow writes, so the two can share a file.
	if want := "dyno-pow dataset v1 seed=0x" + strings.Repeat("0", 64) + " full_size=32768 keccak256=" + epoch0First32KKeccak + "\n"; string(line) != want {
		t.Fatalf("checksum line %q", line)
	}
	if src := get(epoch0First32KKeccak); src != DatasetLoaded {
		t.Fatalf("second: %v", src)
	}
	data, _ := os.ReadFile(path)
	data[1000] ^= 1
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if src := get(""); src != DatasetGenerated {
		t.Fatalf("after a flipped bit: %v", src)
	}
	if err := os.WriteFile(path+".keccak256", bytes.Replace(line, []byte("full_size=32768"), []byte("full_size=32769"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if src := get(""); src != DatasetGenerated {
		t.Fatalf("after a wrong checksum line: %v", src)
	}
	if err := os.Truncate(path, 100); err != nil {
		t.Fatal(err)
	}
	if src := get(""); src != DatasetGenerated {
		t.Fatalf("after truncation: %v", src)
	}
	if err := os.Remove(path + ".keccak256"); err != nil {
		t.Fatal(err)
	}
	if src := get(""); src != DatasetGenerated {
		t.Fatalf("without a checksum file: %v", src)
	}
	// A file whose checksum matches but whose digest is not the known one
	// is rebuilt, and a rebuilt one that is not the known one is an error.
	if src := get(""); src != DatasetLoaded {
		t.Fatalf("reload: %v", src)
	}
	wrongKnown := "0x" + strings.Repeat("11", 32)
	if _, _, err := loadOrMakeDataset(path, 0, seed, size, wrongKnown); err == nil || !strings.Contains(err.Error(), wrongKnown) {
		t.Fatalf("wrong known digest: %v", err)
	}
	if _, err := os.Stat(path + ".tmp"); !os.IsNotExist(err) {
		t.Fatalf("temporary file left: %v", err)
	}
}

func TestDatasetDir(t *testing.T) {
	withDir := func(d string) protocol.Case { return mkCase(t, map[string]any{"dir": d}, nil) }
	if d, err := datasetDir([]protocol.Case{withDir("/a"), withDir("/a")}); err != nil || d != "/a" {
		t.Fatalf("%q %v", d, err)
	}
	if _, err := datasetDir([]protocol.Case{withDir("/a"), withDir("/b")}); err == nil {
		t.Fatal("two dirs accepted")
	}
	if _, err := datasetDir([]protocol.Case{withDir("/a"), mkCase(t, map[string]any{}, nil)}); err == nil {
		t.Fatal("a case without dir after one with accepted")
	}
	t.Setenv(DatasetDirEnv, "/from/env")
	if d, err := datasetDir([]protocol.Case{mkCase(t, map[string]any{}, nil)}); err != nil || d != "/from/env" {
		t.Fatalf("%q %v", d, err)
	}
	t.Setenv(DatasetDirEnv, "")
	t.Setenv("XDG_CACHE_HOME", "/xdg")
	if d, err := datasetDir([]protocol.Case{mkCase(t, map[string]any{}, nil)}); err != nil || d != "/xdg/dyno/ethash" {
		t.Fatalf("%q %v", d, err)
	}
}

// TestHashimotoFullEpoch0 needs the 1 GiB epoch-0 dataset: it runs only
// when $DYNO_ETHASH_DIR is set (the folder is used as the dataset folder,
// and the dataset is built there if missing: minutes on two cores).
func TestHashimotoFullEpoch0(t *testing.T) {
	dir := os.Getenv(DatasetDirEnv)
	if dir == "" {
		t.Skipf("$%s not set: the 1 GiB dataset is not built in tests", DatasetDirEnv)
	}
	cases := []protocol.Case{mkCase(t,
		map[string]any{"dir": dir, "header_hash": block1SealHash, "nonce": "0x539bd4979fef1ec4"},
		map[string]any{"mix_digest": block1MixDigest, "result": block1Result})}
	for _, c := range rustRequests(t)[IDHashimotoFull].Cases {
		c.Input["dir"], _ = json.Marshal(dir)
		cases = append(cases, c)
	}
	p, m := prepareAndCheck(t, IDHashimotoFull, cases)
	if m != nil {
		t.Fatalf("mismatch: case %d %s: %v", m.Case, m.Field, m.Actual)
	}
	p.Bench.Loop(100)
	if _, m := prepareAndCheck(t, IDHashimotoFull, corrupt(t, cases, 2, "result")); m == nil || m.Case != 2 {
		t.Fatalf("corrupted: %+v", m)
	}
}

func TestUnknownIDs(t *testing.T) {
	c := []protocol.Case{mkCase(t, map[string]any{}, nil)}
	if _, err := Registry.Prepare("pow/hashimoto-light/epoch1", ImplCoreGeth, c); err == nil {
		t.Error("unknown id accepted")
	}
	if _, err := Registry.Prepare(IDHashimotoLight, "ethash", c); err == nil {
		t.Error("unknown implementation accepted")
	}
	if _, err := Registry.Prepare(IDHashimotoLight, ImplCoreGeth, nil); err == nil {
		t.Error("no cases accepted")
	}
}

// TestFullLoopSweepsNonces: with "sweep", each operation hashes case 0's
// header with the next nonce; without it, the cases are cycled. A small
// synthetic dataset stands in for the 1 GiB one (hashimotoFull indexes
// whatever rows it is given).
func TestFullLoopSweepsNonces(t *testing.T) {
	ds := make([]uint32, 64*1024)
	for i := range ds {
		ds[i] = uint32(i) * 2654435761
	}
	hash := bytes.Repeat([]byte{0x11}, 32)
	cases := []powCase{{hash: hash, nonce: 100}, {hash: hash, nonce: 7}}
	want := func(nonce uint64) []byte {
		_, r := hashimotoFull(ds, hash, nonce)
		return r
	}

	sweep := &fullLoop{dataset: ds, cases: cases, sweep: true}
	for k := uint64(1); k <= 3; k++ {
		sweep.Loop(1)
		if !bytes.Equal(SinkBytes, want(100+k)) {
			t.Fatalf("sweep op %d: not nonce %d", k, 100+k)
		}
	}
	sweep.Loop(2)
	if !bytes.Equal(SinkBytes, want(105)) {
		t.Fatal("the sweep does not carry over between Loop calls")
	}

	cycle := &fullLoop{dataset: ds, cases: cases}
	cycle.Loop(2)
	if !bytes.Equal(SinkBytes, want(7)) {
		t.Fatal("without sweep, the second op is case 1")
	}

	raw := func(s string) []protocol.Case {
		return []protocol.Case{{Input: map[string]json.RawMessage{"sweep": json.RawMessage(s)}}}
	}
	if on, err := sweeps(raw("true")); !on || err != nil {
		t.Fatalf("sweep true: %v %v", on, err)
	}
	if _, err := sweeps(raw(`"yes"`)); err == nil {
		t.Fatal(`sweep "yes" accepted`)
	}
	if on, _ := sweeps([]protocol.Case{{Input: map[string]json.RawMessage{}}}); on {
		t.Fatal("no flag, yet a sweep")
	}
}
