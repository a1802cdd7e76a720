package bench

import (
	"crypto/ecdsa"
	"fmt"

	"github.com/ethereum/go-ethereum/crypto"
)

type secpSignCase struct {
	hash []byte
	key  *ecdsa.PrivateKey
}

// prepareSecpSign: crypto.Sign, which computes the recovery id directly
// (libsecp256k1's recoverable signing with cgo, decred's SignCompact
// without), with the RFC 6979 nonce.
func prepareSecpSign(_ string, cases []Case) (*Prepared, error) {
	cs := make([]secpSignCase, len(cases))
	for i := range cases {
		k, err := inputHex(cases, i, "private_key")
		if err != nil {
			return nil, err
		}
		h, err := inputHex(cases, i, "message_hash")
		if err != nil {
			return nil, err
		}
		if len(h) != 32 {
			return nil, fmt.Errorf("case %d: message_hash is %d bytes, want 32", i, len(h))
		}
		key, err := crypto.ToECDSA(k)
		if err != nil {
			return nil, fmt.Errorf("case %d: private_key: %v", i, err)
		}
		cs[i] = secpSignCase{h, key}
	}
	b := &funcLoop[secpSignCase]{cases: cs, op: func(c *secpSignCase) {
		SinkBytes, SinkErr = crypto.Sign(c.hash, c.key)
	}}
	outs, err := runEach(b, len(cs), func(int) (Output, error) {
		if SinkErr != nil {
			return nil, SinkErr
		}
		sig := SinkBytes
		return Output{{Name: "r", Value: clone(sig[:32])}, {Name: "s", Value: clone(sig[32:64])}, {Name: "v", Value: int64(sig[64])}}, nil
	})
	if err != nil {
		return nil, err
	}
	return &Prepared{Bench: b, Outputs: outs}, nil
}

type secpVerifyCase struct {
	pub, hash, sig []byte
}

func prepareSecpVerify(_ string, cases []Case) (*Prepared, error) {
	cs := make([]secpVerifyCase, len(cases))
	for i := range cases {
		f, err := hexFields(cases, i, "public_key", "message_hash", "r", "s")
		if err != nil {
			return nil, err
		}
		sig, err := rs(f[2], f[3], 32)
		if err != nil {
			return nil, fmt.Errorf("case %d: %v", i, err)
		}
		cs[i] = secpVerifyCase{f[0], f[1], sig}
	}
	b := &funcLoop[secpVerifyCase]{cases: cs, op: func(c *secpVerifyCase) {
		SinkBool = crypto.VerifySignature(c.pub, c.hash, c.sig)
	}}
	outs, err := runEach(b, len(cs), func(int) (Output, error) {
		return Output{{Name: "valid", Value: SinkBool}}, nil
	})
	if err != nil {
		return nil, err
	}
	return &Prepared{Bench: b, Outputs: outs}, nil
}

type secpRecoverCase struct {
	hash, sig []byte
}

func prepareSecpRecover(_ string, cases []Case) (*Prepared, error) {
	cs := make([]secpRecoverCase, len(cases))
	for i := range cases {
		f, err := hexFields(cases, i, "message_hash", "r", "s")
		if err != nil {
			return nil, err
		}
		v, err := inputUint(cases, i, "v")
		if err != nil {
			return nil, err
		}
		if v >= 27 {
			v -= 27
		}
		if v > 1 {
			return nil, fmt.Errorf("case %d: v must be 0 or 1", i)
		}
		sig, err := rs(f[1], f[2], 32)
		if err != nil {
			return nil, fmt.Errorf("case %d: %v", i, err)
		}
		cs[i] = secpRecoverCase{f[0], append(sig, byte(v))}
	}
	b := &funcLoop[secpRecoverCase]{cases: cs, op: func(c *secpRecoverCase) {
		SinkBytes, SinkErr = crypto.Ecrecover(c.hash, c.sig)
	}}
	outs, err := runEach(b, len(cs), func(int) (Output, error) {
		if SinkErr != nil {
			return nil, SinkErr
		}
		return Output{{Name: "public_key", Value: clone(SinkBytes)}}, nil
	})
	if err != nil {
		return nil, err
	}
	return &Prepared{Bench: b, Outputs: outs}, nil
}

type secpKeygenCase struct {
	key []byte
}

// prepareSecpKeygen: crypto.ToECDSA (scalar to key, including the public
// point multiplication) and crypto.FromECDSAPub (65-byte encoding).
func prepareSecpKeygen(_ string, cases []Case) (*Prepared, error) {
	cs := make([]secpKeygenCase, len(cases))
	for i := range cases {
		k, err := inputHex(cases, i, "private_key")
		if err != nil {
			return nil, err
		}
		if _, err := crypto.ToECDSA(k); err != nil {
			return nil, fmt.Errorf("case %d: private_key: %v", i, err)
		}
		cs[i] = secpKeygenCase{k}
	}
	b := &funcLoop[secpKeygenCase]{cases: cs, op: func(c *secpKeygenCase) {
		k, err := crypto.ToECDSA(c.key)
		if err != nil {
			SinkErr = err
			return
		}
		SinkBytes = crypto.FromECDSAPub(&k.PublicKey)
	}}
	outs, err := runEach(b, len(cs), func(int) (Output, error) {
		return Output{{Name: "public_key", Value: clone(SinkBytes)}}, nil
	})
	if err != nil {
		return nil, err
	}
	return &Prepared{Bench: b, Outputs: outs}, nil
}

// hexFields reads several hex input fields of case i.
func hexFields(cases []Case, i int, names ...string) ([][]byte, error) {
	out := make([][]byte, len(names))
	for j, n := range names {
		b, err := inputHex(cases, i, n)
		if err != nil {
			return nil, err
		}
		out[j] = b
	}
	return out, nil
}

// rs concatenates r and s, each left-padded to size bytes.
func rs(r, s []byte, size int) ([]byte, error) {
	if len(r) > size || len(s) > size {
		return nil, fmt.Errorf("r or s longer than %d bytes", size)
	}
	sig := make([]byte, 2*size, 2*size+1)
	copy(sig[size-len(r):size], r)
	copy(sig[2*size-len(s):], s)
	return sig, nil
}
