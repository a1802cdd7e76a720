package bench

import (
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
)

// eip155Tx is the signed example transaction of EIP-155: nonce 9, gas
// price 20 gwei, gas 21000, to 0x3535…35, value 1 ether, no data, v 37.
const eip155Tx = "0xf86c098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a76400008025a028ef61340bd939bc2195fe537567866003e1a15d3c71ff63e1590620aa636276a067cbe9d8997f761aecb703304b3800ccf555c9f3dc64214b297fb1966a3b6d83"

// eip155Tree is the same transaction as the JSON tree of encode-generic.
const eip155Tree = `["0x09","0x04a817c800","0x5208","0x3535353535353535353535353535353535353535","0x0de0b6b3a7640000","0x","0x25",` +
	`"0x28ef61340bd939bc2195fe537567866003e1a15d3c71ff63e1590620aa636276","0x67cbe9d8997f761aecb703304b3800ccf555c9f3dc64214b297fb1966a3b6d83"]`

// testEncode is an RLP encoder independent of go-ethereum's, over the same
// generic form ([]byte and []any).
func testEncode(v any) []byte {
	prefix := func(n int, short, long byte) []byte {
		if n < 56 {
			return []byte{short + byte(n)}
		}
		var be []byte
		for x := n; x > 0; x >>= 8 {
			be = append([]byte{byte(x)}, be...)
		}
		return append([]byte{long + byte(len(be))}, be...)
	}
	switch x := v.(type) {
	case []byte:
		if len(x) == 1 && x[0] < 0x80 {
			return []byte{x[0]}
		}
		return append(prefix(len(x), 0x80, 0xb7), x...)
	case []any:
		var body []byte
		for _, e := range x {
			body = append(body, testEncode(e)...)
		}
		return append(prefix(len(body), 0xc0, 0xf7), body...)
	}
	panic("not a generic tree")
}

// testTreeJSON writes a tree in encode-generic's JSON form.
func testTreeJSON(v any) string {
	switch x := v.(type) {
	case []byte:
		return `"` + hx(x) + `"`
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = testTreeJSON(e)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	panic("not a generic tree")
}

// testTree builds a deterministic tree from seq: strings of lengths around
// every prefix boundary (0, 1 byte < 0x80 and >= 0x80, 55, 56, 255, 256,
// 1024) and nested lists, some long enough for a long-list prefix.
func testTree(seed uint64, depth int) []any {
	r := seq(seed, 64)
	var list []any
	lengths := []int{0, 1, 2, 20, 32, 55, 56, 57, 255, 256, 1024}
	for i := 0; i < 6+int(r[0]%6); i++ {
		b := r[1+i]
		if depth < 3 && b%4 == 0 {
			list = append(list, testTree(seed*31+uint64(i)+1, depth+1))
			continue
		}
		n := lengths[int(b)%len(lengths)]
		s := seq(seed+uint64(i)*1000, n)
		if n == 1 && b%2 == 0 {
			s[0] &= 0x7f
		}
		list = append(list, s)
	}
	if depth == 0 {
		list = append(list, []any{}, []any{[]any{}}, []byte{}, []byte{0x00}, []byte{0x7f}, []byte{0x80})
	}
	return list
}

func TestRLPListed(t *testing.T) {
	for _, in := range RLPInputs {
		for _, op := range []string{"decode-generic", "encode-generic"} {
			if impl := implFor(t, "rlp/"+op+"/"+in); impl != ImplRLP {
				t.Errorf("rlp/%s/%s: %s", op, in, impl)
			}
		}
	}
	if len(RLPInputs) != 9 {
		t.Errorf("%d inputs", len(RLPInputs))
	}
}

func TestRLPKnownEncodings(t *testing.T) {
	dog := []byte("dog")
	lorem := []byte("Lorem ipsum dolor sit amet, consectetur adipisicing elit")
	three := []any{[]any{}, []any{[]any{}}, []any{[]any{}, []any{[]any{}}}}
	for _, c := range []struct {
		tree                  any
		encoded               string
		lists, strings, total int64
	}{
		{[]byte{}, "0x80", 0, 1, 0},
		{[]byte{0x00}, "0x00", 0, 1, 1},
		{[]byte{0x7f}, "0x7f", 0, 1, 1},
		{[]byte{0x80}, "0x8180", 0, 1, 1},
		{dog, "0x83646f67", 0, 1, 3},
		{[]any{[]byte("cat"), dog}, "0xc88363617483646f67", 1, 2, 6},
		{[]any{}, "0xc0", 1, 0, 0},
		{three, "0xc7c0c1c0c3c0c1c0", 8, 0, 0},
		{lorem, "0xb838" + hex.EncodeToString(lorem), 0, 1, 56},
	} {
		if got := hx(testEncode(c.tree)); got != c.encoded {
			t.Fatalf("test encoder: %s, want %s", got, c.encoded)
		}
		dec := mkCase(map[string]any{"encoded": c.encoded}, map[string]any{"lists": c.lists, "strings": c.strings, "bytes": c.total})
		mustPrepare(t, "rlp/decode-generic/tiny-account", ImplRLP, []Case{dec})
		enc := Case{Input: map[string]json.RawMessage{"tree": json.RawMessage(testTreeJSON(c.tree))}, Expected: map[string]json.RawMessage{"encoded": raw(c.encoded)}}
		mustPrepare(t, "rlp/encode-generic/tiny-account", ImplRLP, []Case{enc})
	}
}

// eip155Digest is the tree digest of the EIP-155 transaction, from the
// case schema's definition written out in Python (pycryptodome's keccak).
const eip155Digest = "0xe270da40a7e020e3a20660060bf3abc52f1d3c9af84ce52cb467f0cf440df373"

func TestRLPEIP155(t *testing.T) {
	// 1+5+2+20+8+0+1+32+32 payload bytes in 9 strings, one list.
	dec := mkCase(map[string]any{"encoded": eip155Tx}, map[string]any{"lists": 1, "strings": 9, "bytes": 101, "digest": eip155Digest})
	mustPrepare(t, "rlp/decode-generic/small-legacy-tx", ImplRLP, []Case{dec})
	// The nonce 0x0a for 0x09: the same counts, another tree; only the
	// digest sees it.
	other := mkCase(map[string]any{"encoded": "0x" + "f86c0a" + eip155Tx[8:]}, map[string]any{"lists": 1, "strings": 9, "bytes": 101, "digest": eip155Digest})
	p, err := Prepare("rlp/decode-generic/small-legacy-tx", ImplRLP, []Case{other})
	if err != nil {
		t.Fatal(err)
	}
	if m := Check(p, []Case{other}); m == nil || m.Field != "digest" {
		t.Fatalf("another nonce, the same digest expected: %+v", m)
	}
	enc := Case{Input: map[string]json.RawMessage{"tree": json.RawMessage(eip155Tree)}, Expected: map[string]json.RawMessage{"encoded": raw(eip155Tx)}}
	mustPrepare(t, "rlp/encode-generic/small-legacy-tx", ImplRLP, []Case{enc})
}

func TestRLPGeneratedTrees(t *testing.T) {
	var decs, encs []Case
	for seed := uint64(1); seed <= 8; seed++ {
		tree := testTree(seed, 0)
		encoded := hx(testEncode(tree))
		lists, strs, total, err := rlpCounts(tree)
		if err != nil {
			t.Fatal(err)
		}
		decs = append(decs, mkCase(map[string]any{"encoded": encoded}, map[string]any{"lists": lists, "strings": strs, "bytes": total}))
		encs = append(encs, Case{Input: map[string]json.RawMessage{"tree": json.RawMessage(testTreeJSON(tree))}, Expected: map[string]json.RawMessage{"encoded": raw(encoded)}})
	}
	if len(decs[0].Input["encoded"]) < 1000 {
		t.Fatalf("tree 1 is only %d hex characters", len(decs[0].Input["encoded"]))
	}
	mustPrepare(t, "rlp/decode-generic/medium-body", ImplRLP, decs)
	mustPrepare(t, "rlp/encode-generic/medium-body", ImplRLP, encs)

	// Corrupted expectations are mismatches at that case and field.
	decs[3].Expected["bytes"] = raw(999999)
	p, err := Prepare("rlp/decode-generic/medium-body", ImplRLP, decs)
	if err != nil {
		t.Fatal(err)
	}
	if m := Check(p, decs); m == nil || m.Case != 3 || m.Field != "bytes" {
		t.Fatalf("corrupted bytes: %+v", m)
	}
	encs[5].Expected["encoded"] = raw("0xc0")
	p, err = Prepare("rlp/encode-generic/medium-body", ImplRLP, encs)
	if err != nil {
		t.Fatal(err)
	}
	if m := Check(p, encs); m == nil || m.Case != 5 || m.Field != "encoded" {
		t.Fatalf("corrupted encoded: %+v", m)
	}
}

func TestRLPRoundTripMismatch(t *testing.T) {
	m, err := rlpRoundTrip(2, []byte{0x80}, raw("0x80"), []byte{0x01})
	if err != nil || m == nil || m.Case != 2 || m.Field != "encoded" || hx(m.Actual.(Hex)) != "0x01" {
		t.Fatalf("got %+v, %v", m, err)
	}
	if m, err := rlpRoundTrip(0, []byte{0x01}, raw("0x01"), []byte{0x01}); m != nil || err != nil {
		t.Fatalf("got %+v, %v", m, err)
	}
}

func TestRLPBadInputs(t *testing.T) {
	for _, enc := range []string{
		"0x",         // nothing
		"0x8000",     // trailing data
		"0x8100",     // a single byte < 0x80 with a prefix
		"0x83646f",   // truncated
		"0xb80100",   // a short string with a long prefix
		"0xc3646f",   // truncated list
		"0xc0c0",     // two items
		"0x83646f6z", // bad hex
	} {
		c := mkCase(map[string]any{"encoded": enc}, map[string]any{"lists": 0, "strings": 0, "bytes": 0})
		if _, err := Prepare("rlp/decode-generic/tiny-account", ImplRLP, []Case{c}); err == nil {
			t.Errorf("decode %s: no error", enc)
		}
	}
	for _, tree := range []string{`123`, `"abcd"`, `"0xabc"`, `["0x01",null]`, `{"a":"0x"}`, `[true]`} {
		c := Case{Input: map[string]json.RawMessage{"tree": json.RawMessage(tree)}, Expected: map[string]json.RawMessage{"encoded": raw("0xc0")}}
		if _, err := Prepare("rlp/encode-generic/tiny-account", ImplRLP, []Case{c}); err == nil {
			t.Errorf("tree %s: no error", tree)
		}
	}
	if _, err := Prepare("rlp/encode-generic/tiny-account", ImplRLP, []Case{{Input: map[string]json.RawMessage{}}}); err == nil {
		t.Error("no tree: no error")
	}
}
