package bench

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"
)

// ImplRLP is go-ethereum's rlp package on its generic form: an
// interface{} holding []interface{} for a list and []byte for a string.
const ImplRLP = "geth-rlp"

// RLPInputs are the <input> names of rlp/decode-generic/<input> and
// rlp/encode-generic/<input>.
var RLPInputs = []string{
	"tiny-account", "small-legacy-tx", "small-eip1559-tx", "small-header",
	"medium-receipts", "medium-body", "large-body", "large-receipts", "vlarge-body",
}

// SinkAny holds the generic trees the decode loop produces.
var SinkAny any

// rlpDecodeLoop decodes each case's encoding into a fresh generic tree
// with rlp.DecodeBytes into an interface{} (the library allocates the
// lists and copies every string's payload).
type rlpDecodeLoop struct {
	encoded [][]byte
	pos     int
}

func (l *rlpDecodeLoop) Loop(n int) {
	encoded, pos := l.encoded, l.pos
	for i := 0; i < n; i++ {
		var v any
		SinkErr = rlp.DecodeBytes(encoded[pos], &v)
		SinkAny = v
		pos++
		if pos == len(encoded) {
			pos = 0
		}
	}
	l.pos = pos
}

// rlpEncodeLoop encodes each case's native tree with rlp.EncodeToBytes.
type rlpEncodeLoop struct {
	trees []any
	pos   int
}

func (l *rlpEncodeLoop) Loop(n int) {
	trees, pos := l.trees, l.pos
	for i := 0; i < n; i++ {
		SinkBytes, SinkErr = rlp.EncodeToBytes(trees[pos])
		pos++
		if pos == len(trees) {
			pos = 0
		}
	}
	l.pos = pos
}

// rlpCounts walks a generic tree: list and string items (v included) and
// the total length of the strings' payloads.
func rlpCounts(v any) (lists, strs, total int64, err error) {
	switch x := v.(type) {
	case []byte:
		return 0, 1, int64(len(x)), nil
	case []any:
		lists = 1
		for _, e := range x {
			l, s, b, err := rlpCounts(e)
			if err != nil {
				return 0, 0, 0, err
			}
			lists += l
			strs += s
			total += b
		}
		return lists, strs, total, nil
	default:
		return 0, 0, 0, fmt.Errorf("generic tree holds a %T", v)
	}
}

// rlpDigest is the tree digest of the case schema: keccak-256 over a
// pre-order walk, a string as 0x80 || u32 BE length || bytes, a list as
// 0xc0 || u32 BE item count, then its items.
func rlpDigest(v any) ([]byte, error) {
	h := crypto.NewKeccakState()
	var walk func(v any) error
	walk = func(v any) error {
		var head [5]byte
		switch x := v.(type) {
		case []byte:
			head[0] = 0x80
			binary.BigEndian.PutUint32(head[1:], uint32(len(x)))
			h.Write(head[:])
			h.Write(x)
		case []any:
			head[0] = 0xc0
			binary.BigEndian.PutUint32(head[1:], uint32(len(x)))
			h.Write(head[:])
			for _, e := range x {
				if err := walk(e); err != nil {
					return err
				}
			}
		default:
			return fmt.Errorf("generic tree holds a %T", v)
		}
		return nil
	}
	if err := walk(v); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}

// rlpRoundTrip re-encodes the tree decoded from case i's encoded and
// reports a mismatch on `encoded` if it differs.
func rlpRoundTrip(i int, encoded []byte, raw json.RawMessage, tree any) (*Mismatch, error) {
	again, err := rlp.EncodeToBytes(tree)
	if err != nil {
		return nil, fmt.Errorf("case %d: re-encoding the decoded tree: %v", i, err)
	}
	if !bytes.Equal(again, encoded) {
		return &Mismatch{Case: i, Field: "encoded", Expected: raw, Actual: Hex(again)}, nil
	}
	return nil, nil
}

// prepareRLPDecode decodes every case once, counts and digests its tree
// and checks that re-encoding the tree gives `encoded` back.
func prepareRLPDecode(_ string, cases []Case) (*Prepared, error) {
	encoded := make([][]byte, len(cases))
	for i := range cases {
		b, err := inputHex(cases, i, "encoded")
		if err != nil {
			return nil, err
		}
		encoded[i] = b
	}
	b := &rlpDecodeLoop{encoded: encoded}
	var self *Mismatch
	outs, err := runEach(b, len(encoded), func(i int) (Output, error) {
		if SinkErr != nil {
			return nil, fmt.Errorf("rlp.DecodeBytes: %v", SinkErr)
		}
		tree := SinkAny
		SinkAny = nil
		lists, strs, total, err := rlpCounts(tree)
		if err != nil {
			return nil, err
		}
		digest, err := rlpDigest(tree)
		if err != nil {
			return nil, err
		}
		if self == nil {
			m, err := rlpRoundTrip(i, encoded[i], cases[i].Input["encoded"], tree)
			if err != nil {
				return nil, err
			}
			self = m
		}
		return Output{{Name: "lists", Value: lists}, {Name: "strings", Value: strs}, {Name: "bytes", Value: total}, {Name: "digest", Value: Hex(digest)}}, nil
	})
	if err != nil {
		return nil, err
	}
	return &Prepared{Bench: b, Outputs: outs, SelfMismatch: self}, nil
}

// rlpTree converts a JSON tree (a byte string as "0x…", a list as an
// array) into the native generic form: []byte and []any.
func rlpTree(raw json.RawMessage, depth int) (any, error) {
	if depth > 1024 {
		return nil, fmt.Errorf("tree nested deeper than 1024 lists")
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		var elems []json.RawMessage
		if err := json.Unmarshal(raw, &elems); err != nil {
			return nil, err
		}
		list := make([]any, len(elems))
		for j, e := range elems {
			v, err := rlpTree(e, depth+1)
			if err != nil {
				return nil, err
			}
			list[j] = v
		}
		return list, nil
	}
	b, err := decodeHex(raw)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// prepareRLPEncode converts every case's tree and encodes it once.
func prepareRLPEncode(_ string, cases []Case) (*Prepared, error) {
	trees := make([]any, len(cases))
	for i := range cases {
		raw, ok := cases[i].Input["tree"]
		if !ok {
			return nil, fmt.Errorf("case %d: input has no field %q", i, "tree")
		}
		t, err := rlpTree(raw, 0)
		if err != nil {
			return nil, fmt.Errorf("case %d: input tree: %v", i, err)
		}
		trees[i] = t
	}
	b := &rlpEncodeLoop{trees: trees}
	outs, err := runEach(b, len(trees), func(int) (Output, error) {
		if SinkErr != nil {
			return nil, fmt.Errorf("rlp.EncodeToBytes: %v", SinkErr)
		}
		return Output{{Name: "encoded", Value: clone(SinkBytes)}}, nil
	})
	if err != nil {
		return nil, err
	}
	return &Prepared{Bench: b, Outputs: outs}, nil
}
