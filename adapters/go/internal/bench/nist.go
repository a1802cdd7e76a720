package bench

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/asn1"
	"encoding/json"
	"fmt"
	"math/big"
)

// nist is a NIST curve with its standard hash (P-256 with SHA-256, P-384
// with SHA-384).
type nist struct {
	name  string
	curve elliptic.Curve
	size  int
	hash  func([]byte) []byte
}

var (
	p256 = nist{"P-256", elliptic.P256(), 32, func(m []byte) []byte { h := sha256.Sum256(m); return h[:] }}
	p384 = nist{"P-384", elliptic.P384(), 48, func(m []byte) []byte { h := sha512.Sum384(m); return h[:] }}
)

type ecdsaSig struct{ R, S *big.Int }

type nistSignCase struct {
	key *ecdsa.PrivateKey
	msg []byte
}

// prepareNISTSign: crypto/ecdsa.SignASN1 over SHA-2 of the message, both
// inside the timed operation. Go's ECDSA nonces are random (hedged), so
// the signatures are checked with ecdsa.VerifyASN1 against the case's
// public_key rather than compared with expected.
func prepareNISTSign(c nist) preparer {
	var op func(*nistSignCase)
	switch c.size {
	case 32:
		op = func(k *nistSignCase) {
			h := sha256.Sum256(k.msg)
			SinkBytes, SinkErr = ecdsa.SignASN1(rand.Reader, k.key, h[:])
		}
	default:
		op = func(k *nistSignCase) {
			h := sha512.Sum384(k.msg)
			SinkBytes, SinkErr = ecdsa.SignASN1(rand.Reader, k.key, h[:])
		}
	}
	return func(_ string, cases []Case) (*Prepared, error) {
		cs := make([]nistSignCase, len(cases))
		pubs := make([]*ecdsa.PublicKey, len(cases))
		for i := range cases {
			f, err := hexFields(cases, i, "private_key", "public_key", "message")
			if err != nil {
				return nil, err
			}
			key, err := ecdsa.ParseRawPrivateKey(c.curve, f[0])
			if err != nil {
				return nil, fmt.Errorf("case %d: private_key: %v", i, err)
			}
			pub, err := ecdsa.ParseUncompressedPublicKey(c.curve, f[1])
			if err != nil {
				return nil, fmt.Errorf("case %d: public_key: %v", i, err)
			}
			cs[i] = nistSignCase{key, f[2]}
			pubs[i] = pub
		}
		b := &funcLoop[nistSignCase]{cases: cs, op: op}
		var bad *Mismatch
		outs, err := runEach(b, len(cs), func(i int) (Output, error) {
			if SinkErr != nil {
				return nil, SinkErr
			}
			der := append([]byte(nil), SinkBytes...)
			var sig ecdsaSig
			if rest, err := asn1.Unmarshal(der, &sig); err != nil || len(rest) != 0 {
				return nil, fmt.Errorf("cannot parse the DER signature: %v", err)
			}
			out := Output{{Name: "r", Value: Hex(sig.R.FillBytes(make([]byte, c.size)))}, {Name: "s", Value: Hex(sig.S.FillBytes(make([]byte, c.size)))}}
			if bad == nil && !ecdsa.VerifyASN1(pubs[i], c.hash(cs[i].msg), der) {
				bad = &Mismatch{Case: i, Field: "r", Expected: json.RawMessage(`"a signature that verifies against public_key"`), Actual: out[0].Value}
			}
			return out, nil
		})
		if err != nil {
			return nil, err
		}
		return &Prepared{Bench: b, Outputs: outs, SelfChecked: map[string]bool{"r": true, "s": true}, SelfMismatch: bad}, nil
	}
}

type nistVerifyCase struct {
	pub *ecdsa.PublicKey
	msg []byte
	der []byte
}

// prepareNISTVerify: SHA-2 of the message and crypto/ecdsa.VerifyASN1 (the
// DER signature is built from r and s at prepare time).
func prepareNISTVerify(c nist) preparer {
	var op func(*nistVerifyCase)
	switch c.size {
	case 32:
		op = func(k *nistVerifyCase) {
			h := sha256.Sum256(k.msg)
			SinkBool = ecdsa.VerifyASN1(k.pub, h[:], k.der)
		}
	default:
		op = func(k *nistVerifyCase) {
			h := sha512.Sum384(k.msg)
			SinkBool = ecdsa.VerifyASN1(k.pub, h[:], k.der)
		}
	}
	return func(_ string, cases []Case) (*Prepared, error) {
		cs := make([]nistVerifyCase, len(cases))
		for i := range cases {
			f, err := hexFields(cases, i, "public_key", "message", "r", "s")
			if err != nil {
				return nil, err
			}
			pub, err := ecdsa.ParseUncompressedPublicKey(c.curve, f[0])
			if err != nil {
				return nil, fmt.Errorf("case %d: public_key: %v", i, err)
			}
			der, err := asn1.Marshal(ecdsaSig{new(big.Int).SetBytes(f[2]), new(big.Int).SetBytes(f[3])})
			if err != nil {
				return nil, fmt.Errorf("case %d: %v", i, err)
			}
			cs[i] = nistVerifyCase{pub, f[1], der}
		}
		b := &funcLoop[nistVerifyCase]{cases: cs, op: op}
		outs, err := runEach(b, len(cs), func(int) (Output, error) {
			return Output{{Name: "valid", Value: SinkBool}}, nil
		})
		if err != nil {
			return nil, err
		}
		return &Prepared{Bench: b, Outputs: outs}, nil
	}
}
