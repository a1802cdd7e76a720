package protocol

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func raw(s string) json.RawMessage { return json.RawMessage(s) }

// mkCase is the case {"input": input, "expected": expected}, both JSON
// objects.
func mkCase(t *testing.T, input, expected string) Case {
	t.Helper()
	var c Case
	if err := json.Unmarshal([]byte(`{"input":`+input+`,"expected":`+expected+`}`), &c); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestOutputAndHexJSON(t *testing.T) {
	o := Output{{Name: "z", Value: Hex{0xab, 0x01}}, {Name: "a", Value: true}, {Name: "n", Value: int64(-3)}, {Name: "e", Value: Hex(nil)}}
	b, err := json.Marshal([]Output{o})
	if err != nil {
		t.Fatal(err)
	}
	if want := `[{"z":"0xab01","a":true,"n":-3,"e":"0x"}]`; string(b) != want {
		t.Fatalf("%s, want %s (fields in schema order)", b, want)
	}
	if _, err := json.Marshal(Output{{Name: "f", Value: func() {}}}); err == nil {
		t.Fatal("an unencodable value encoded")
	}
}

func TestCheck(t *testing.T) {
	cases := []Case{
		mkCase(t, `{}`, `{"digest":"0xABcd","valid":true}`),
		mkCase(t, `{}`, `{"count":7,"digest":"0x"}`),
	}
	p := &Prepared{Outputs: []Output{
		{{Name: "digest", Value: Hex{0xab, 0xcd}}, {Name: "valid", Value: true}, {Name: "extra", Value: int64(1)}},
		{{Name: "count", Value: int64(7)}, {Name: "digest", Value: Hex{}}},
	}}
	if m := Check(p, cases); m != nil {
		t.Fatalf("equal outputs: %+v", m)
	}
	p.Outputs[1][0].Value = int64(8)
	if m := Check(p, cases); m == nil || m.Case != 1 || m.Field != "count" || m.Actual != int64(8) || string(m.Expected) != "7" {
		t.Fatalf("wrong count: %+v", m)
	}
	p.SelfChecked = map[string]bool{"count": true}
	if m := Check(p, cases); m != nil {
		t.Fatalf("a self-checked field was compared: %+v", m)
	}
	// An expected field that is not produced: the first by name, actual nil.
	cases[0].Expected["b"], cases[0].Expected["a"] = raw("1"), raw("1")
	if m := Check(p, cases); m == nil || m.Case != 0 || m.Field != "a" || m.Actual != nil {
		t.Fatalf("missing field: %+v", m)
	}
	p.SelfMismatch = &Mismatch{Case: 1, Field: "s"}
	if m := Check(p, cases); m != p.SelfMismatch {
		t.Fatalf("self mismatch: %+v", m)
	}
	// Values of the wrong JSON type never compare equal.
	for _, c := range []struct {
		want string
		got  any
	}{{`"0x01"`, true}, {"true", Hex{1}}, {"1", "1"}, {`"01"`, Hex{1}}, {"1.5", int64(1)}} {
		if equal(raw(c.want), c.got) {
			t.Errorf("%s equals %#v", c.want, c.got)
		}
	}
}

func TestInputs(t *testing.T) {
	cases := []Case{mkCase(t, `{"h":"0X0aFF","u":18446744073709551615,"s":"dir",
		"nohex":"0aff","odd":"0xabc","num":1,"neg":-1,"long":"`+strings.Repeat("z", 50)+`"}`, `{}`)}
	if b, err := InputHex(cases, 0, "h"); err != nil || string(b) != "\x0a\xff" {
		t.Fatalf("hex: %x %v", b, err)
	}
	if v, err := InputUint(cases, 0, "u"); err != nil || v != 1<<64-1 {
		t.Fatalf("uint: %d %v", v, err)
	}
	if s, err := InputString(cases, 0, "s"); err != nil || s != "dir" {
		t.Fatalf("string: %q %v", s, err)
	}
	for _, c := range []struct {
		err  error
		want string
	}{
		{second(InputHex(cases, 0, "missing")), `case 0: input has no field "missing"`},
		{second(InputHex(cases, 0, "nohex")), `case 0: input nohex: hex string without 0x prefix: 0aff`},
		{second(InputHex(cases, 0, "odd")), `case 0: input odd: bad hex 0xabc`},
		{second(InputHex(cases, 0, "num")), `case 0: input num: not a hex string: 1`},
		{second(InputUint(cases, 0, "neg")), `case 0: input neg: not an unsigned integer: -1`},
		{second(InputUint(cases, 0, "missing")), `case 0: input has no field "missing"`},
		{second(InputString(cases, 0, "num")), `case 0: input num: not a string: 1`},
		{second(InputString(cases, 0, "missing")), `case 0: input has no field "missing"`},
		{second(InputHex(cases, 0, "long")), `case 0: input long: hex string without 0x prefix: ` + strings.Repeat("z", 40) + "…"},
	} {
		if c.err == nil || !strings.HasPrefix(c.err.Error(), c.want) {
			t.Errorf("error %v, want %q", c.err, c.want)
		}
	}
	if Truncate("short") != "short" {
		t.Error("Truncate changed a short string")
	}
}

func second[T any](_ T, err error) error { return err }

// countLoop counts its operations; its sink is the count.
type countLoop struct{ n int }

func (l *countLoop) Loop(n int) { l.n += n }

func TestRunEachAndClone(t *testing.T) {
	b := &countLoop{}
	outs, err := RunEach(b, 3, func(i int) (Output, error) {
		return Output{{Name: "n", Value: int64(b.n*10 + i)}}, nil
	})
	if err != nil || len(outs) != 3 || outs[2][0].Value != int64(32) {
		t.Fatalf("%v %v", outs, err)
	}
	_, err = RunEach(b, 3, func(i int) (Output, error) {
		if i == 1 {
			return nil, errors.New("boom")
		}
		return nil, nil
	})
	if err == nil || err.Error() != "case 1: boom" {
		t.Fatalf("error %v", err)
	}
	src := []byte{1, 2}
	c := Clone(src)
	src[0] = 9
	if c[0] != 1 || len(c) != 2 {
		t.Fatalf("Clone shares memory: %v", c)
	}
}

func TestNoop(t *testing.T) {
	var r Registry
	r.AddHarness("test")
	cases := []Case{
		mkCase(t, `{"value":"0x"}`, `{"value":"0x"}`),
		mkCase(t, `{"value":"0x0102"}`, `{"value":"0x0102"}`),
	}
	p, err := r.Prepare(NoopID, "test-noop", cases)
	if err != nil {
		t.Fatal(err)
	}
	if m := Check(p, cases); m != nil {
		t.Fatalf("mismatch %+v", m)
	}
	// The loop cycles through the cases; the position carries over.
	p.Bench.Loop(3)
	if string(noopSink) != "" {
		t.Fatalf("after 1+1+3 operations the sink holds %x, want case 0's value", noopSink)
	}
	cases[1].Expected["value"] = raw(`"0x0103"`)
	if m := Check(p, cases); m == nil || m.Case != 1 || m.Field != "value" {
		t.Fatalf("corrupted expectation: %+v", m)
	}
	bad := []Case{mkCase(t, `{"value":"0102"}`, `{"value":"0x0102"}`)}
	if _, err := r.Prepare(NoopID, "test-noop", bad); err == nil {
		t.Error("hex without 0x accepted")
	}
	if got := r.List(); len(got) != 2 || got[0] != (Entry{ID: NoopID, Implementation: "test-noop", Library: NoLibrary}) ||
		got[1] != (Entry{ID: SleepID, Implementation: "test-sleep", Library: NoLibrary}) {
		t.Errorf("List: %v", got)
	}
}

func TestSleepTakesAMillisecondAnOperation(t *testing.T) {
	var r Registry
	r.AddHarness("test")
	cases := []Case{mkCase(t, `{"value":"0x07"}`, `{"value":"0x07"}`)}
	p, err := r.Prepare(SleepID, "test-sleep", cases)
	if err != nil {
		t.Fatal(err)
	}
	if m := Check(p, cases); m != nil {
		t.Fatalf("mismatch %+v", m)
	}
	t0 := time.Now()
	p.Bench.Loop(5)
	if d := time.Since(t0); d < 5*time.Millisecond {
		t.Fatalf("5 sleeps of 1 ms took %v", d)
	}
}

func TestRegistry(t *testing.T) {
	var r Registry
	if p := r.Patterns(); p == nil || len(p) != 0 {
		t.Fatalf("Patterns of an empty registry: %#v, want an empty list", p)
	}
	var got []string
	prep := func(tag string) Preparer {
		return func(id string, cases []Case) (*Prepared, error) {
			got = append(got, tag+" "+id)
			return &Prepared{Bench: &countLoop{}, Outputs: make([]Output, len(cases))}, nil
		}
	}
	r.Add("hash/x/1B", "a", "lib-a", prep("a"))
	r.Add("hash/x/1B", "b", "lib-b", prep("b"))
	r.Add("hash/y/1B", "a", "lib-a", prep("a"))
	r.AddPattern("precompile/*/*", "p", "lib-p", prep("p"))
	r.AddPattern("precompile-bytecode/*/*", "p", "lib-p", prep("pb"))
	one := []Case{mkCase(t, `{}`, `{}`)}
	for _, c := range []struct{ id, impl, err string }{
		{"hash/x/1B", "a", ""},
		{"hash/x/1B", "b", ""},
		{"hash/y/1B", "a", ""},
		{"precompile/sha256/32B", "p", ""},
		{"precompile-bytecode/sha256/x", "p", ""},
		{"hash/y/1B", "b", "unknown implementation b for id hash/y/1B"},
		{"hash/z/1B", "a", "unknown id hash/z/1B"},
		{"hash/x/1B", "p", "unknown id hash/x/1B for implementation p"},
		{"precompile/sha256", "p", "unknown id precompile/sha256 for implementation p"},
		{"precompile/sha256/", "p", "unknown id precompile/sha256/ for implementation p"},
		{"precompile/sha256/32B", "a", "unknown id precompile/sha256/32B"},
	} {
		_, err := r.Prepare(c.id, c.impl, one)
		if (err == nil) != (c.err == "") || (err != nil && err.Error() != c.err) {
			t.Errorf("%s %s: error %v, want %q", c.id, c.impl, err, c.err)
		}
	}
	if want := []string{"a hash/x/1B", "b hash/x/1B", "a hash/y/1B", "p precompile/sha256/32B", "pb precompile-bytecode/sha256/x"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("prepared %v, want %v", got, want)
	}
	if _, err := r.Prepare("hash/x/1B", "a", nil); err == nil || err.Error() != "hash/x/1B: no cases" {
		t.Errorf("no cases: %v", err)
	}
	if l := r.List(); len(l) != 3 || l[1] != (Entry{ID: "hash/x/1B", Implementation: "b", Library: "lib-b"}) {
		t.Errorf("List: %v", l)
	}
	if p := r.Patterns(); len(p) != 2 || p[0] != (Pattern{ID: "precompile/*/*", Implementation: "p", Library: "lib-p"}) {
		t.Errorf("Patterns: %v", p)
	}
}

func TestPatternMatches(t *testing.T) {
	p := Pattern{ID: "precompile/*/*"}
	for id, want := range map[string]bool{
		"precompile/sha256/32B":  true,
		"precompile/a/b":         true,
		"precompile/sha256":      false,
		"precompile/sha256/32B/": false,
		"precompile//32B":        false,
		"precompile/sha256/":     false,
		"hash/sha256/32B":        false,
		"precompiles/sha256/32B": false,
	} {
		if got := p.Matches(id); got != want {
			t.Errorf("%s matches %s: %v, want %v", id, p.ID, got, want)
		}
	}
}

func TestModuleVersion(t *testing.T) {
	if v := ModuleVersion("example.invalid/not-built-in"); v != "" {
		t.Fatalf("a module this binary does not contain has version %q", v)
	}
}
