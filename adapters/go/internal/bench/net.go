package bench

import (
	"crypto/ecdsa"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/protocols/eth"
	"github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/p2p/rlpx"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/golang/snappy"
)

// The devp2p "net" benchmarks: eth/69 messages encoded and decoded with
// go-ethereum's own packet types (eth/protocols/eth) and RLP, compressed
// with github.com/golang/snappy as p2p/rlpx does after the Hello exchange,
// a routing table keyed by message code, and the RLPx handshake of
// p2p/rlpx over loopback TCP.
//
// What is timed, per id:
//
//   - net/encode/<msg>: the packet built from typed objects and encoded:
//     rlp.EncodeToBytes(&packet), then snappy.Encode(nil, rlp). v1.17.8's
//     packets hold their lists as lazy rlp.RawList fields (Transactions,
//     BlockHeaders, BlockBodies and each body's transactions, uncles and
//     withdrawals), so those lists are built inside the loop with
//     rlp.EncodeToRawList from the decoded []*types.Transaction,
//     []*types.Header and []*types.Withdrawal: every transaction, header
//     and withdrawal is really encoded in every iteration. The RawList then
//     costs one copy of its content per nesting level on top of geth's
//     encoder (geth's SendTransactions encodes a types.Transactions
//     directly: the same bytes without that copy). Status and
//     NewPooledTransactionHashes have no lazy fields and are encoded as
//     they are.
//   - net/decode/<msg>: snappy.DecodedLen (checked against RLPx's 24-bit
//     limit, as rlpx.Conn.Read does), snappy.Decode(nil, wire),
//     rlp.DecodeBytes into the packet, and Items() on every rlp.RawList
//     (the packet's list, and for block bodies each body's three lists),
//     so that every transaction, header, body and withdrawal is decoded;
//     for NewPooledTransactionHashes also geth's handler check that the
//     three lists have the same length.
//   - net/route/mixed: a lookup of the case's code (0x10 + the eth code) in
//     a map[uint64]func([]byte) (any, error) built at prepare (geth's own
//     handler tables are unexported), then that decoder: the whole
//     net/decode operation for the message.
//   - net/handshake/local: one whole connection against a responder
//     goroutine of this process on 127.0.0.1: net.Dial, rlpx.NewConn +
//     Handshake as initiator, our Hello encoded and written, the
//     responder's Hello read and decoded, SetSnappy(true), Close. The
//     responder's half (recipient handshake, Hello read and write) runs in
//     its goroutine meanwhile.
//
// Outside the loop: parsing, the typed decode of `message` that the encode
// loop starts from, the listeners, and the checks (snappy.Decode of the
// encode output, re-encoding of the decoded value from its typed objects
// with the encode path above, the Hello's ID).

// ethOffset is where the eth protocol's codes start on the wire, after the
// devp2p base protocol's.
const ethOffset = 0x10

// maxUint24 is RLPx's largest decoded message (a 24-bit frame size).
const maxUint24 = 1<<24 - 1

// netTimeout bounds every handshake connection (both ends), so that a
// failing responder or initiator surfaces as an error instead of a hang.
const netTimeout = 5 * time.Second

// netHello mirrors p2p.protoHandshake (unexported in go-ethereum): the
// devp2p Hello, message code 0x00, sent uncompressed.
type netHello struct {
	Version    uint64
	Name       string
	Caps       []p2p.Cap
	ListenPort uint64
	ID         []byte
	Rest       []rlp.RawValue `rlp:"tail"`
}

const (
	netHelloMsg     = 0x00
	netHelloVersion = 5
	netHelloName    = "dyno-adapter-go"
)

// NetMessages are the <msg> names of net/encode/<msg> and net/decode/<msg>.
var NetMessages = []string{"status", "transactions-100", "block-headers-100", "block-bodies-10", "new-pooled-tx-hashes-100"}

// netHeaders is a decoded BlockHeaders message with its headers expanded.
type netHeaders struct {
	RequestID uint64
	Headers   []*types.Header
}

// netBody is one block body with its three lists expanded.
type netBody struct {
	Transactions   []*types.Transaction
	Uncles         []*types.Header
	Withdrawals    []*types.Withdrawal
	HasWithdrawals bool // the optional list was present (possibly empty)
}

// netBodies is a decoded BlockBodies message with every list expanded.
type netBodies struct {
	RequestID uint64
	Bodies    []netBody
}

// netCodec is one eth message kind: decode from RLP into geth's packet
// with every lazy list expanded, and encode the expanded value back into
// the packet and RLP.
type netCodec struct {
	name   string // as in the ids
	code   uint64 // eth code, without ethOffset
	decode func(msg []byte) (any, error)
	encode func(v any) ([]byte, error)
}

var netCodecs = []*netCodec{
	{"status", eth.StatusMsg, decodeStatus, encodeStatus},
	{"transactions-100", eth.TransactionsMsg, decodeTransactions, encodeTransactions},
	{"block-headers-100", eth.BlockHeadersMsg, decodeBlockHeaders, encodeBlockHeaders},
	{"block-bodies-10", eth.BlockBodiesMsg, decodeBlockBodies, encodeBlockBodies},
	{"new-pooled-tx-hashes-100", eth.NewPooledTransactionHashesMsg, decodePooledHashes, encodePooledHashes},
}

func netCodecByName(name string) *netCodec {
	for _, c := range netCodecs {
		if c.name == name {
			return c
		}
	}
	return nil
}

func netCodecByCode(code uint64) *netCodec {
	for _, c := range netCodecs {
		if ethOffset+c.code == code {
			return c
		}
	}
	return nil
}

func decodeStatus(msg []byte) (any, error) {
	p := new(eth.StatusPacket)
	if err := rlp.DecodeBytes(msg, p); err != nil {
		return nil, err
	}
	return p, nil
}

func encodeStatus(v any) ([]byte, error) {
	return rlp.EncodeToBytes(v.(*eth.StatusPacket))
}

func decodeTransactions(msg []byte) (any, error) {
	var p eth.TransactionsPacket
	if err := rlp.DecodeBytes(msg, &p); err != nil {
		return nil, err
	}
	return p.Items()
}

func encodeTransactions(v any) ([]byte, error) {
	list, err := rlp.EncodeToRawList(v.([]*types.Transaction))
	if err != nil {
		return nil, err
	}
	return rlp.EncodeToBytes(&eth.TransactionsPacket{RawList: list})
}

func decodeBlockHeaders(msg []byte) (any, error) {
	var p eth.BlockHeadersPacket
	if err := rlp.DecodeBytes(msg, &p); err != nil {
		return nil, err
	}
	hs, err := p.List.Items()
	if err != nil {
		return nil, err
	}
	return &netHeaders{p.RequestId, hs}, nil
}

func encodeBlockHeaders(v any) ([]byte, error) {
	h := v.(*netHeaders)
	list, err := rlp.EncodeToRawList(h.Headers)
	if err != nil {
		return nil, err
	}
	return rlp.EncodeToBytes(&eth.BlockHeadersPacket{RequestId: h.RequestID, List: list})
}

func decodeBlockBodies(msg []byte) (any, error) {
	var p eth.BlockBodiesPacket
	if err := rlp.DecodeBytes(msg, &p); err != nil {
		return nil, err
	}
	raw, err := p.List.Items()
	if err != nil {
		return nil, err
	}
	out := &netBodies{RequestID: p.RequestId, Bodies: make([]netBody, len(raw))}
	for i := range raw {
		b, o := &raw[i], &out.Bodies[i]
		if o.Transactions, err = b.Transactions.Items(); err != nil {
			return nil, err
		}
		if o.Uncles, err = b.Uncles.Items(); err != nil {
			return nil, err
		}
		if b.Withdrawals != nil {
			o.HasWithdrawals = true
			if o.Withdrawals, err = b.Withdrawals.Items(); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

func encodeBlockBodies(v any) ([]byte, error) {
	in := v.(*netBodies)
	bodies := make([]eth.BlockBody, len(in.Bodies))
	for i := range in.Bodies {
		b, o := &in.Bodies[i], &bodies[i]
		var err error
		if o.Transactions, err = rlp.EncodeToRawList(b.Transactions); err != nil {
			return nil, err
		}
		if o.Uncles, err = rlp.EncodeToRawList(b.Uncles); err != nil {
			return nil, err
		}
		if b.HasWithdrawals {
			w, err := rlp.EncodeToRawList(b.Withdrawals)
			if err != nil {
				return nil, err
			}
			o.Withdrawals = &w
		}
	}
	list, err := rlp.EncodeToRawList(bodies)
	if err != nil {
		return nil, err
	}
	return rlp.EncodeToBytes(&eth.BlockBodiesPacket{RequestId: in.RequestID, List: list})
}

func decodePooledHashes(msg []byte) (any, error) {
	p := new(eth.NewPooledTransactionHashesPacket71)
	if err := rlp.DecodeBytes(msg, p); err != nil {
		return nil, err
	}
	// geth's handleNewPooledTransactionHashes rejects these right after
	// decoding.
	if len(p.Hashes) != len(p.Types) || len(p.Hashes) != len(p.Sizes) {
		return nil, fmt.Errorf("NewPooledTransactionHashes: invalid len of fields in %d %d %d", len(p.Hashes), len(p.Types), len(p.Sizes))
	}
	return p, nil
}

func encodePooledHashes(v any) ([]byte, error) {
	return rlp.EncodeToBytes(v.(*eth.NewPooledTransactionHashesPacket71))
}

// wireDecoder is c's decoder of a message as received: snappy, then c.
func wireDecoder(c *netCodec) func(wire []byte) (any, error) {
	decode := c.decode
	return func(wire []byte) (any, error) {
		n, err := snappy.DecodedLen(wire)
		if err != nil {
			return nil, err
		}
		if n > maxUint24 {
			return nil, fmt.Errorf("snappy: decoded size %d above the RLPx limit", n)
		}
		msg, err := snappy.Decode(nil, wire)
		if err != nil {
			return nil, err
		}
		return decode(msg)
	}
}

// netLoop cycles a per-case operation that can fail. The first error is
// kept for Err (see Failing) and ends the loop early: the run's samples
// are discarded anyway, and a failing handshake must not wait out its
// deadline once per remaining iteration.
type netLoop[T any] struct {
	cases []T
	pos   int
	op    func(*T) error
	err   error
}

func (l *netLoop[T]) Err() error { return l.err }

func (l *netLoop[T]) Loop(n int) {
	if l.err != nil {
		return
	}
	cases, pos, op := l.cases, l.pos, l.op
	for i := 0; i < n; i++ {
		if err := op(&cases[pos]); err != nil {
			l.err = fmt.Errorf("case %d: %w", pos, err)
			SinkErr = err
			break
		}
		pos++
		if pos == len(cases) {
			pos = 0
		}
	}
	l.pos = pos
}

// runNet runs each case once through l and reads its output.
func runNet[T any](l *netLoop[T], read func(i int) (Output, error)) ([]Output, error) {
	outs := make([]Output, len(l.cases))
	for i := range l.cases {
		l.Loop(1)
		if l.err != nil {
			return nil, l.err
		}
		o, err := read(i)
		if err != nil {
			return nil, fmt.Errorf("case %d: %v", i, err)
		}
		outs[i] = o
	}
	return outs, nil
}

// reencoded is the output of a decode: the decoded value encoded again.
func reencoded(c *netCodec, v any) (Output, error) {
	b, err := c.encode(v)
	if err != nil {
		return nil, fmt.Errorf("re-encoding the decoded %s: %v", c.name, err)
	}
	return Output{{Name: "message", Value: Hex(b)}}, nil
}

type netEncodeCase struct {
	v      any
	encode func(any) ([]byte, error)
}

// prepareNetEncode decodes each case's `message` into typed objects; the
// loop encodes them into the packet and compresses.
func prepareNetEncode(id string, cases []Case) (*Prepared, error) {
	c := netCodecByName(id[len("net/encode/"):])
	if c == nil {
		return nil, fmt.Errorf("unknown id %s", id)
	}
	cs := make([]netEncodeCase, len(cases))
	for i := range cases {
		msg, err := inputHex(cases, i, "message")
		if err != nil {
			return nil, err
		}
		v, err := c.decode(msg)
		if err != nil {
			return nil, fmt.Errorf("case %d: input message is not a %s: %v", i, c.name, err)
		}
		cs[i] = netEncodeCase{v, c.encode}
	}
	l := &netLoop[netEncodeCase]{cases: cs, op: func(e *netEncodeCase) error {
		b, err := e.encode(e.v)
		if err != nil {
			return err
		}
		SinkBytes = snappy.Encode(nil, b)
		return nil
	}}
	outs, err := runNet(l, func(int) (Output, error) {
		msg, err := snappy.Decode(nil, SinkBytes)
		if err != nil {
			return nil, fmt.Errorf("snappy.Decode of the output: %v", err)
		}
		return Output{{Name: "message", Value: Hex(msg)}}, nil
	})
	if err != nil {
		return nil, err
	}
	return &Prepared{Bench: l, Outputs: outs}, nil
}

type netDecodeCase struct {
	wire   []byte
	decode func([]byte) (any, error)
}

// prepareNetDecode: the loop decodes each case's `wire`; the check
// re-encodes the decoded value.
func prepareNetDecode(id string, cases []Case) (*Prepared, error) {
	c := netCodecByName(id[len("net/decode/"):])
	if c == nil {
		return nil, fmt.Errorf("unknown id %s", id)
	}
	dec := wireDecoder(c)
	cs := make([]netDecodeCase, len(cases))
	for i := range cases {
		wire, err := inputHex(cases, i, "wire")
		if err != nil {
			return nil, err
		}
		cs[i] = netDecodeCase{wire, dec}
	}
	l := &netLoop[netDecodeCase]{cases: cs, op: func(d *netDecodeCase) (err error) {
		SinkAny, err = d.decode(d.wire)
		return err
	}}
	outs, err := runNet(l, func(int) (Output, error) {
		v := SinkAny
		SinkAny = nil
		return reencoded(c, v)
	})
	if err != nil {
		return nil, err
	}
	return &Prepared{Bench: l, Outputs: outs}, nil
}

type netRouteCase struct {
	code uint64
	wire []byte
}

// NetRouteTable is the routing table of net/route/mixed: wire decoders by
// message code on the wire (ethOffset included).
func NetRouteTable() map[uint64]func([]byte) (any, error) {
	t := make(map[uint64]func([]byte) (any, error), len(netCodecs))
	for _, c := range netCodecs {
		t[ethOffset+c.code] = wireDecoder(c)
	}
	return t
}

// prepareNetRoute: the loop looks each case's code up in the table and
// decodes its `wire`; an unknown code is an error.
func prepareNetRoute(_ string, cases []Case) (*Prepared, error) {
	table := NetRouteTable()
	cs := make([]netRouteCase, len(cases))
	for i := range cases {
		code, err := inputUint(cases, i, "code")
		if err != nil {
			return nil, err
		}
		if _, ok := table[code]; !ok {
			return nil, fmt.Errorf("case %d: no decoder for message code %#x", i, code)
		}
		wire, err := inputHex(cases, i, "wire")
		if err != nil {
			return nil, err
		}
		cs[i] = netRouteCase{code, wire}
	}
	l := &netLoop[netRouteCase]{cases: cs, op: func(r *netRouteCase) (err error) {
		dec, ok := table[r.code]
		if !ok {
			return fmt.Errorf("no decoder for message code %#x", r.code)
		}
		SinkAny, err = dec(r.wire)
		return err
	}}
	outs, err := runNet(l, func(i int) (Output, error) {
		v := SinkAny
		SinkAny = nil
		return reencoded(netCodecByCode(cs[i].code), v)
	})
	if err != nil {
		return nil, err
	}
	return &Prepared{Bench: l, Outputs: outs}, nil
}

// netResponder accepts RLPx connections on a loopback listener and answers
// each as a recipient with key: handshake, read the initiator's Hello, send
// its own, enable snappy, close.
type netResponder struct {
	ln    net.Listener
	key   *ecdsa.PrivateKey
	hello []byte
	done  chan struct{}

	mu  sync.Mutex
	err error // the first error of a connection, for the initiator's report
}

func startResponder(key *ecdsa.PrivateKey) (*netResponder, error) {
	hello, err := rlp.EncodeToBytes(&netHello{
		Version: netHelloVersion,
		Name:    netHelloName,
		Caps:    []p2p.Cap{{Name: eth.ProtocolName, Version: eth.ETH69}},
		ID:      crypto.FromECDSAPub(&key.PublicKey)[1:],
	})
	if err != nil {
		return nil, err
	}
	// Loopback only: the benchmark never listens on another interface.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &netResponder{ln: ln, key: key, hello: hello, done: make(chan struct{})}
	go r.serve()
	return r, nil
}

func (r *netResponder) serve() {
	defer close(r.done)
	for {
		fd, err := r.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			r.fail(err)
			time.Sleep(10 * time.Millisecond) // e.g. out of file descriptors
			continue
		}
		go func() {
			defer func() {
				// A panic here would end the worker, which measure's
				// recover cannot see from this goroutine.
				if p := recover(); p != nil {
					fd.Close()
					r.fail(fmt.Errorf("responder panic: %v", p))
				}
			}()
			if err := r.respond(fd); err != nil {
				r.fail(err)
			}
		}()
	}
}

func (r *netResponder) respond(fd net.Conn) error {
	defer fd.Close()
	if err := fd.SetDeadline(time.Now().Add(netTimeout)); err != nil {
		return err
	}
	c := rlpx.NewConn(fd, nil)
	if _, err := c.Handshake(r.key); err != nil {
		return fmt.Errorf("responder handshake: %v", err)
	}
	code, data, _, err := c.Read()
	if err != nil {
		return fmt.Errorf("responder reading Hello: %v", err)
	}
	if code != netHelloMsg {
		return fmt.Errorf("responder: message %#x instead of Hello", code)
	}
	var theirs netHello
	if err := rlp.DecodeBytes(data, &theirs); err != nil {
		return fmt.Errorf("responder decoding Hello: %v", err)
	}
	if _, err := c.Write(netHelloMsg, r.hello); err != nil {
		return fmt.Errorf("responder writing Hello: %v", err)
	}
	c.SetSnappy(true)
	return nil
}

func (r *netResponder) fail(err error) {
	r.mu.Lock()
	if r.err == nil {
		r.err = err
	}
	r.mu.Unlock()
}

func (r *netResponder) firstErr() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// close stops accepting and waits for the accept loop to end; connections
// in flight end by their deadline.
func (r *netResponder) close() error {
	err := r.ln.Close()
	<-r.done
	return err
}

type netHandshakeCase struct {
	resp      *netResponder
	addr      string
	remote    *ecdsa.PublicKey // the responder's static key, dialed to
	key       *ecdsa.PrivateKey
	pubID     []byte // our Hello's ID
	responder string // for error messages
}

// handshakeOnce is one timed connection as initiator; it returns the ID of
// the responder's Hello.
func handshakeOnce(c *netHandshakeCase) ([]byte, error) {
	fd, err := net.DialTimeout("tcp", c.addr, netTimeout)
	if err != nil {
		return nil, err
	}
	defer fd.Close()
	if err := fd.SetDeadline(time.Now().Add(netTimeout)); err != nil {
		return nil, err
	}
	conn := rlpx.NewConn(fd, c.remote)
	if _, err := conn.Handshake(c.key); err != nil {
		return nil, fmt.Errorf("handshake: %v", err)
	}
	ours, err := rlp.EncodeToBytes(&netHello{
		Version: netHelloVersion,
		Name:    netHelloName,
		Caps:    []p2p.Cap{{Name: eth.ProtocolName, Version: eth.ETH69}},
		ID:      c.pubID,
	})
	if err != nil {
		return nil, err
	}
	if _, err := conn.Write(netHelloMsg, ours); err != nil {
		return nil, fmt.Errorf("writing Hello: %v", err)
	}
	code, data, _, err := conn.Read()
	if err != nil {
		return nil, fmt.Errorf("reading Hello: %v", err)
	}
	if code != netHelloMsg {
		return nil, fmt.Errorf("message %#x instead of Hello", code)
	}
	var theirs netHello
	if err := rlp.DecodeBytes(data, &theirs); err != nil {
		return nil, fmt.Errorf("decoding Hello: %v", err)
	}
	conn.SetSnappy(true)
	return theirs.ID, nil
}

// netHandshakeBench is net/handshake/local: the loop and the responders it
// dials, which Close shuts down.
type netHandshakeBench struct {
	*netLoop[netHandshakeCase]
	responders []*netResponder
}

// Close stops the responders' listeners.
func (b *netHandshakeBench) Close() error {
	var first error
	for _, r := range b.responders {
		if err := r.close(); err != nil && first == nil {
			first = err
		}
	}
	b.responders = nil
	return first
}

func netKey(cases []Case, i int, name string) (*ecdsa.PrivateKey, error) {
	b, err := inputHex(cases, i, name)
	if err != nil {
		return nil, err
	}
	if len(b) != 32 {
		return nil, fmt.Errorf("case %d: %s is %d bytes, want 32", i, name, len(b))
	}
	k, err := crypto.ToECDSA(b)
	if err != nil {
		return nil, fmt.Errorf("case %d: %s: %v", i, name, err)
	}
	return k, nil
}

// prepareNetHandshake starts one loopback responder per distinct
// responder key and runs one handshake per case.
func prepareNetHandshake(_ string, cases []Case) (p *Prepared, err error) {
	b := &netHandshakeBench{netLoop: &netLoop[netHandshakeCase]{}}
	defer func() {
		if err != nil {
			b.Close()
		}
	}()
	byKey := map[string]*netResponder{}
	cs := make([]netHandshakeCase, len(cases))
	for i := range cases {
		ik, err := netKey(cases, i, "initiator_key")
		if err != nil {
			return nil, err
		}
		rk, err := netKey(cases, i, "responder_key")
		if err != nil {
			return nil, err
		}
		rid := crypto.FromECDSAPub(&rk.PublicKey)[1:]
		r := byKey[string(rid)]
		if r == nil {
			if r, err = startResponder(rk); err != nil {
				return nil, fmt.Errorf("case %d: listening on loopback: %v", i, err)
			}
			byKey[string(rid)] = r
			b.responders = append(b.responders, r)
		}
		cs[i] = netHandshakeCase{
			resp:      r,
			addr:      r.ln.Addr().String(),
			remote:    &rk.PublicKey,
			key:       ik,
			pubID:     crypto.FromECDSAPub(&ik.PublicKey)[1:],
			responder: fmt.Sprintf("%x", rid[:8]),
		}
	}
	b.cases = cs
	b.op = func(c *netHandshakeCase) error {
		id, err := handshakeOnce(c)
		if err != nil {
			if rerr := c.resp.firstErr(); rerr != nil {
				return fmt.Errorf("%v (responder %s…: %v)", err, c.responder, rerr)
			}
			return err
		}
		SinkBytes = id
		return nil
	}
	outs, err := runNet(b.netLoop, func(int) (Output, error) {
		return Output{{Name: "node_id", Value: clone(SinkBytes)}}, nil
	})
	if err != nil {
		return nil, err
	}
	return &Prepared{Bench: b, Outputs: outs}, nil
}
