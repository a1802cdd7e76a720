package bench

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"sync"
	"unsafe"

	"dyno/adapters/go-protocol/protocol"
	"github.com/ethereum/go-ethereum/consensus/ethash"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"
)

// core-geth exports CalcEpochLength, CalcEpoch, SeedHash, MakeCache,
// MakeDataset and the Ethash engine, but not the functions a benchmark of
// the algorithm itself needs. They are pulled in with go:linkname: a
// deliberate hack (README.md, "go:linkname"). The Go linker refuses such
// pulls only from the standard library (Go >= 1.23), so they work for
// core-geth; a signature that no longer matches the pinned version would
// break silently, which is why every benchmark checks its outputs against
// known values at prepare and the tests pin core-geth's own vectors.

//go:linkname hashimotoLight github.com/ethereum/go-ethereum/consensus/ethash.hashimotoLight
func hashimotoLight(size uint64, cache []uint32, hash []byte, nonce uint64) ([]byte, []byte)

//go:linkname hashimotoFull github.com/ethereum/go-ethereum/consensus/ethash.hashimotoFull
func hashimotoFull(dataset []uint32, hash []byte, nonce uint64) ([]byte, []byte)

//go:linkname generateCache github.com/ethereum/go-ethereum/consensus/ethash.generateCache
func generateCache(dest []uint32, epoch uint64, epochLength uint64, seed []byte)

//go:linkname generateDataset github.com/ethereum/go-ethereum/consensus/ethash.generateDataset
func generateDataset(dest []uint32, epoch uint64, epochLength uint64, cache []uint32)

//go:linkname cacheSize github.com/ethereum/go-ethereum/consensus/ethash.cacheSize
func cacheSize(epoch uint64) uint64

//go:linkname datasetSize github.com/ethereum/go-ethereum/consensus/ethash.datasetSize
func datasetSize(epoch uint64) uint64

const (
	// epochLength is Ethash's epoch (and Etchash's before ECIP-1099).
	epochLength = 30000
	// DatasetDirEnv names the folder of the on-disk dataset when a case
	// has no "dir".
	DatasetDirEnv = "DYNO_ETHASH_DIR"
	// Epoch0DatasetKeccak is keccak-256 of the whole epoch-0 dataset
	// (little-endian words), from core-geth's generateDataset and,
	// independently, from the Rust ethash crate (dyno-pow); both agree.
	Epoch0DatasetKeccak = "0xcb449c4f4c3fa2de74074abb3aa7c29b5296f466315025d8172c8843d7c0924a"
)

// Sinks: every timed operation stores its result in one of these
// package-level variables so that the compiler cannot drop the work.
var (
	SinkBytes  []byte
	SinkBool   bool
	SinkDigest []byte
	SinkEpoch  EpochParams
)

// two256 is 2^256, the numerator of the difficulty target.
var two256 = new(big.Int).Lsh(big.NewInt(1), 256)

// sealer computes seal hashes. Ethash.SealHash reads nothing of its
// receiver, so a zero engine (no goroutines, no caches) is enough.
var sealer = new(ethash.Ethash)

// caches holds the verification caches built so far, by Ethash epoch
// (30 000-block epochs), for the life of the worker.
var caches = struct {
	sync.Mutex
	m map[uint64][]uint32
}{m: map[uint64][]uint32{}}

// lightCache returns the verification cache of Ethash epoch epoch, built
// with core-geth's generateCache on first use (about 1 s for epoch 0).
func lightCache(epoch uint64) []uint32 {
	caches.Lock()
	defer caches.Unlock()
	if c, ok := caches.m[epoch]; ok {
		return c
	}
	c := make([]uint32, cacheSize(epoch)/4)
	generateCache(c, epoch, epochLength, ethash.SeedHash(epoch, epochLength))
	caches.m[epoch] = c
	return c
}

// powCase is one hashimoto input: a header hash and a nonce.
type powCase struct {
	hash  []byte
	nonce uint64
}

func parsePowCases(cases []protocol.Case) ([]powCase, error) {
	out := make([]powCase, len(cases))
	for i := range cases {
		h, err := protocol.InputHex(cases, i, "header_hash")
		if err != nil {
			return nil, err
		}
		if len(h) != 32 {
			return nil, fmt.Errorf("case %d: header_hash has %d bytes, want 32", i, len(h))
		}
		n, err := protocol.InputHex(cases, i, "nonce")
		if err != nil {
			return nil, err
		}
		if len(n) != 8 {
			return nil, fmt.Errorf("case %d: nonce has %d bytes, want 8", i, len(n))
		}
		out[i] = powCase{hash: h, nonce: binary.BigEndian.Uint64(n)}
	}
	return out, nil
}

func powOutput(int) (protocol.Output, error) {
	return protocol.Output{{Name: "mix_digest", Value: protocol.Clone(SinkDigest)}, {Name: "result", Value: protocol.Clone(SinkBytes)}}, nil
}

// lightLoop runs core-geth's hashimotoLight in epoch 0: every dataset item
// is computed from the 16 MiB cache (two per access, 64 accesses).
type lightLoop struct {
	cache []uint32
	size  uint64
	cases []powCase
	pos   int
}

func (l *lightLoop) Loop(n int) {
	cache, size, cases, pos := l.cache, l.size, l.cases, l.pos
	for i := 0; i < n; i++ {
		c := &cases[pos]
		SinkDigest, SinkBytes = hashimotoLight(size, cache, c.hash, c.nonce)
		pos++
		if pos == len(cases) {
			pos = 0
		}
	}
	l.pos = pos
}

func prepareHashimotoLight(_ string, cases []protocol.Case) (*protocol.Prepared, error) {
	pc, err := parsePowCases(cases)
	if err != nil {
		return nil, err
	}
	b := &lightLoop{cache: lightCache(0), size: datasetSize(0), cases: pc}
	outs, err := protocol.RunEach(b, len(pc), powOutput)
	if err != nil {
		return nil, err
	}
	return &protocol.Prepared{Bench: b, Outputs: outs}, nil
}

// fullLoop runs core-geth's hashimotoFull over the 1 GiB epoch-0 dataset.
// Verified on every case; timed either cycling the cases or, when case 0
// says "sweep": true, as a miner runs it: case 0's header hash with a new
// nonce every operation (case 0's nonce + 1, + 2, ...), so that each
// operation reads 64 fresh random pages of the dataset instead of a few
// cycled inputs' pages that stay in the CPU's cache (docs/pow.md).
type fullLoop struct {
	dataset []uint32
	cases   []powCase
	pos     int
	sweep   bool
	next    uint64
}

func (l *fullLoop) Loop(n int) {
	dataset, cases := l.dataset, l.cases
	if l.sweep {
		hash, base, next := cases[0].hash, cases[0].nonce, l.next
		for i := 0; i < n; i++ {
			next++
			SinkDigest, SinkBytes = hashimotoFull(dataset, hash, base+next)
		}
		l.next = next
		return
	}
	pos := l.pos
	for i := 0; i < n; i++ {
		c := &cases[pos]
		SinkDigest, SinkBytes = hashimotoFull(dataset, c.hash, c.nonce)
		pos++
		if pos == len(cases) {
			pos = 0
		}
	}
	l.pos = pos
}

// sweeps reads case 0's optional "sweep" flag.
func sweeps(cases []protocol.Case) (bool, error) {
	v, ok := cases[0].Input["sweep"]
	if !ok {
		return false, nil
	}
	var b bool
	if err := json.Unmarshal(v, &b); err != nil {
		return false, fmt.Errorf("case 0: sweep must be true or false: %v", err)
	}
	return b, nil
}

func prepareHashimotoFull(_ string, cases []protocol.Case) (*protocol.Prepared, error) {
	pc, err := parsePowCases(cases)
	if err != nil {
		return nil, err
	}
	dir, err := datasetDir(cases)
	if err != nil {
		return nil, err
	}
	ds, _, err := epoch0Dataset(dir)
	if err != nil {
		return nil, err
	}
	sweep, err := sweeps(cases)
	if err != nil {
		return nil, err
	}
	// verified case by case, cycling; the sweep starts after
	check := &fullLoop{dataset: ds, cases: pc}
	outs, err := protocol.RunEach(check, len(pc), powOutput)
	if err != nil {
		return nil, err
	}
	return &protocol.Prepared{Bench: &fullLoop{dataset: ds, cases: pc, sweep: sweep}, Outputs: outs}, nil
}

// datasetDir is the folder of the on-disk dataset: the cases' "dir" (all
// the same), else $DYNO_ETHASH_DIR, else dyno/ethash in the user's cache
// folder ($XDG_CACHE_HOME or ~/.cache).
func datasetDir(cases []protocol.Case) (string, error) {
	var dir string
	for i := range cases {
		if _, ok := cases[i].Input["dir"]; !ok {
			if i > 0 && dir != "" {
				return "", fmt.Errorf("case %d has no dir, case 0 has one", i)
			}
			continue
		}
		d, err := protocol.InputString(cases, i, "dir")
		if err != nil {
			return "", err
		}
		if i > 0 && d != dir {
			return "", fmt.Errorf("case %d: dir %q differs from case 0's %q", i, d, dir)
		}
		dir = d
	}
	if dir == "" {
		dir = os.Getenv(DatasetDirEnv)
	}
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("no dir in the cases, no $%s and no user cache folder: %v", DatasetDirEnv, err)
		}
		dir = filepath.Join(base, "dyno", "ethash")
	}
	return dir, nil
}

// DatasetSource says where a dataset came from.
type DatasetSource int

const (
	// DatasetLoaded: read from its file; the checksum matched.
	DatasetLoaded DatasetSource = iota
	// DatasetGenerated: built, then written with a new checksum file.
	DatasetGenerated
	// DatasetInMemory: this worker had already loaded or built it.
	DatasetInMemory
)

// datasets holds the datasets loaded by this worker, by file path.
var datasets = struct {
	sync.Mutex
	m map[string][]uint32
}{m: map[string][]uint32{}}

// DatasetFileName is the dataset's file name in its folder, the same as
// dyno-pow's dataset_file_name: ethash-full-<first 8 seed bytes>-<size>.bin.
func DatasetFileName(seed []byte, size uint64) string {
	return fmt.Sprintf("ethash-full-%x-%d.bin", seed[:8], size)
}

// checksumLine is the one line of a checksum file, as dyno-pow writes it.
func checksumLine(seed []byte, size uint64, digest []byte) string {
	return fmt.Sprintf("dyno-pow dataset v1 seed=0x%x full_size=%d keccak256=0x%x\n", seed, size, digest)
}

// epoch0Dataset returns the epoch-0 dataset kept in dir, loading it once
// per worker.
func epoch0Dataset(dir string) ([]uint32, DatasetSource, error) {
	seed := ethash.SeedHash(0, epochLength)
	size := datasetSize(0)
	path, err := filepath.Abs(filepath.Join(dir, DatasetFileName(seed, size)))
	if err != nil {
		return nil, 0, err
	}
	datasets.Lock()
	defer datasets.Unlock()
	if ds, ok := datasets.m[path]; ok {
		return ds, DatasetInMemory, nil
	}
	ds, src, err := loadOrMakeDataset(path, 0, seed, size, Epoch0DatasetKeccak)
	if err != nil {
		return nil, 0, err
	}
	datasets.m[path] = ds
	return ds, src, nil
}

// words views a []uint32 as its bytes (little-endian on the hosts this
// worker accepts).
func words(w []uint32) []byte {
	if len(w) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), len(w)*4)
}

func littleEndian() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}

// loadOrMakeDataset reads the dataset of epoch from path when the file has
// size bytes and the checksum file (path + ".keccak256") names this seed,
// this size and the keccak-256 of what was read; otherwise it generates it
// with core-geth's generateDataset (on every CPU), writes the file
// (temporary file, fsync, rename) and then the checksum file. known, if not
// empty, is the digest the dataset must have: a generated dataset that
// differs is an error.
func loadOrMakeDataset(path string, epoch uint64, seed []byte, size uint64, known string) ([]uint32, DatasetSource, error) {
	if !littleEndian() {
		return nil, 0, errors.New("the dataset file is little-endian; big-endian hosts are not supported")
	}
	sumPath := path + ".keccak256"
	ds := make([]uint32, size/4)
	ok, digest, err := loadDataset(path, sumPath, seed, size, ds)
	if err != nil {
		return nil, 0, err
	}
	if ok && (known == "" || fmt.Sprintf("0x%x", digest) == known) {
		return ds, DatasetLoaded, nil
	}
	if err := os.Remove(sumPath); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, 0, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, 0, err
	}
	generateDataset(ds, epoch, epochLength, lightCache(epoch))
	digest = crypto.Keccak256(words(ds))
	if known != "" && fmt.Sprintf("0x%x", digest) != known {
		return nil, 0, fmt.Errorf("generated epoch-%d dataset has keccak256 0x%x, want %s", epoch, digest, known)
	}
	if err := writeFileDurably(path, words(ds)); err != nil {
		return nil, 0, err
	}
	if err := writeFileDurably(sumPath, []byte(checksumLine(seed, size, digest))); err != nil {
		return nil, 0, err
	}
	return ds, DatasetGenerated, nil
}

// loadDataset fills ds from path and returns its keccak-256 if the
// checksum file matches; false if either file is missing or does not match.
func loadDataset(path, sumPath string, seed []byte, size uint64, ds []uint32) (bool, []byte, error) {
	want, err := os.ReadFile(sumPath)
	if err != nil {
		return false, nil, nil
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil, nil
	}
	if err != nil {
		return false, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return false, nil, err
	}
	if uint64(st.Size()) != size {
		return false, nil, nil
	}
	buf := words(ds)
	h := crypto.NewKeccakState()
	for off := 0; off < len(buf); off += 8 << 20 {
		chunk := buf[off:min(off+8<<20, len(buf))]
		if _, err := io.ReadFull(f, chunk); err != nil {
			return false, nil, fmt.Errorf("reading %s: %v", path, err)
		}
		h.Write(chunk)
	}
	digest := h.Sum(nil)
	return string(want) == checksumLine(seed, size, digest), digest, nil
}

// writeFileDurably writes data to a temporary file next to path, fsyncs
// it, renames it to path and fsyncs the folder.
func writeFileDurably(path string, data []byte) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %v", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// verifyCase is one header with the cache of its epoch.
type verifyCase struct {
	header *types.Header
	cache  []uint32
	size   uint64
}

// verifySeal is core-geth's Ethash.verifySeal in light mode, on a cache
// built beforehand: a positive difficulty, SealHash, hashimotoLight, the
// mix digest against the header's and the result against 2^256/difficulty.
func verifySeal(c *verifyCase) bool {
	h := c.header
	if h.Difficulty.Sign() <= 0 {
		return false
	}
	digest, result := hashimotoLight(c.size, c.cache, sealer.SealHash(h).Bytes(), h.Nonce.Uint64())
	if !bytes.Equal(h.MixDigest[:], digest) {
		return false
	}
	target := new(big.Int).Div(two256, h.Difficulty)
	return new(big.Int).SetBytes(result).Cmp(target) <= 0
}

type verifyLoop struct {
	cases []verifyCase
	pos   int
}

func (l *verifyLoop) Loop(n int) {
	cases, pos := l.cases, l.pos
	for i := 0; i < n; i++ {
		SinkBool = verifySeal(&cases[pos])
		pos++
		if pos == len(cases) {
			pos = 0
		}
	}
	l.pos = pos
}

// parseHeader decodes an RLP header and refuses what is not a
// proof-of-work header (SealHash panics on post-merge fields).
func parseHeader(enc []byte) (*types.Header, error) {
	h := new(types.Header)
	if err := rlp.DecodeBytes(enc, h); err != nil {
		return nil, fmt.Errorf("decoding the header: %v", err)
	}
	switch {
	case h.WithdrawalsHash != nil, h.BlobGasUsed != nil, h.ExcessBlobGas != nil, h.ParentBeaconRoot != nil:
		return nil, errors.New("not a proof-of-work header: it has post-merge fields")
	case h.Difficulty == nil || h.Number == nil || !h.Number.IsUint64():
		return nil, errors.New("header without a difficulty or a 64-bit number")
	}
	return h, nil
}

func prepareVerifyHeader(_ string, cases []protocol.Case) (*protocol.Prepared, error) {
	vc := make([]verifyCase, len(cases))
	for i := range cases {
		enc, err := protocol.InputHex(cases, i, "header")
		if err != nil {
			return nil, err
		}
		h, err := parseHeader(enc)
		if err != nil {
			return nil, fmt.Errorf("case %d: %v", i, err)
		}
		epoch := h.Number.Uint64() / epochLength
		vc[i] = verifyCase{header: h, cache: lightCache(epoch), size: datasetSize(epoch)}
	}
	b := &verifyLoop{cases: vc}
	outs, err := protocol.RunEach(b, len(vc), func(int) (protocol.Output, error) {
		return protocol.Output{{Name: "valid", Value: SinkBool}}, nil
	})
	if err != nil {
		return nil, err
	}
	return &protocol.Prepared{Bench: b, Outputs: outs}, nil
}

// EpochParams is what pow/etchash-epoch/ecip1099 computes for a block.
type EpochParams struct {
	EpochLength uint64
	Epoch       uint64
	Seed        []byte
	CacheSize   uint64
	FullSize    uint64
}

// epochCase is a block and the ECIP-1099 block (nil: never).
type epochCase struct {
	block uint64
	fork  *uint64
}

// epochParams is core-geth's own epoch arithmetic, as its cache and
// dataset code uses it: CalcEpochLength, CalcEpoch, SeedHash and the size
// tables (indexed by the 60k epoch after ECIP-1099).
func epochParams(c *epochCase) EpochParams {
	el := ethash.CalcEpochLength(c.block, c.fork)
	ep := ethash.CalcEpoch(c.block, el)
	return EpochParams{el, ep, ethash.SeedHash(ep, el), cacheSize(ep), datasetSize(ep)}
}

type epochLoop struct {
	cases []epochCase
	pos   int
}

func (l *epochLoop) Loop(n int) {
	cases, pos := l.cases, l.pos
	for i := 0; i < n; i++ {
		SinkEpoch = epochParams(&cases[pos])
		pos++
		if pos == len(cases) {
			pos = 0
		}
	}
	l.pos = pos
}

func prepareEtchashEpoch(_ string, cases []protocol.Case) (*protocol.Prepared, error) {
	ec := make([]epochCase, len(cases))
	for i := range cases {
		b, err := protocol.InputUint(cases, i, "block")
		if err != nil {
			return nil, err
		}
		ec[i].block = b
		if raw, ok := cases[i].Input["ecip1099_block"]; ok && string(bytes.TrimSpace(raw)) != "null" {
			f, err := protocol.InputUint(cases, i, "ecip1099_block")
			if err != nil {
				return nil, err
			}
			ec[i].fork = &f
		}
	}
	b := &epochLoop{cases: ec}
	outs, err := protocol.RunEach(b, len(ec), func(int) (protocol.Output, error) {
		p := SinkEpoch
		return protocol.Output{
			{Name: "epoch_length", Value: int64(p.EpochLength)},
			{Name: "epoch", Value: int64(p.Epoch)},
			{Name: "seed_hash", Value: protocol.Clone(p.Seed)},
			{Name: "cache_size", Value: int64(p.CacheSize)},
			{Name: "full_size", Value: int64(p.FullSize)},
		}, nil
	})
	if err != nil {
		return nil, err
	}
	return &protocol.Prepared{Bench: b, Outputs: outs}, nil
}
