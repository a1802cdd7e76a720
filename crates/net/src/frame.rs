//! RLPx framing: AES-256-CTR frame cipher and the keccak256 / AES-256-ECB
//! header and frame MACs (go-ethereum v1.17.8 `p2p/rlpx/rlpx.go`
//! `readFrame` / `writeFrame` / `hashMAC`).
//!
//! Frame layout on the wire:
//! `header-ct (16) || header-mac (16) || frame-ct (padded to 16) || frame-mac (16)`.
//! The header plaintext is `frame-size (3 bytes BE) || c2 80 80 || zero padding`;
//! the frame plaintext is `rlp(code) || payload || zero padding`.

use std::io::Read;

use aes::Aes256;
use aes::cipher::{BlockEncrypt, KeyInit, KeyIvInit, StreamCipher};
use alloy_rlp::{Decodable, Encodable};
use sha3::{Digest, Keccak256};

use crate::error::{Error, Result};
use crate::handshake::Secrets;
use crate::snappy::MAX_MESSAGE_SIZE;

type Aes256Ctr = ctr::Ctr128BE<Aes256>;

/// Size of the encrypted header plus its MAC.
pub const HEADER_LEN: usize = 32;
/// Size of a MAC on the wire.
pub const MAC_LEN: usize = 16;

/// Header data geth writes after the size: `rlp([0, 0])` (capability id and
/// context id, both unused).
const ZERO_HEADER: [u8; 3] = [0xc2, 0x80, 0x80];

/// The running hash inside an RLPx MAC. Implemented for [`Keccak256`]; the
/// trait exists so tests can substitute a fixed hash, as geth's tests do.
pub trait MacHash {
    /// Absorbs `data`.
    fn absorb(&mut self, data: &[u8]);
    /// Returns the current digest without consuming the state.
    fn digest(&self) -> [u8; 32];
}

impl MacHash for Keccak256 {
    fn absorb(&mut self, data: &[u8]) {
        Digest::update(self, data);
    }

    fn digest(&self) -> [u8; 32] {
        self.clone().finalize().into()
    }
}

/// One direction's MAC: the keccak state and AES-256 keyed with mac-secret.
#[derive(Clone)]
struct HashMac<H> {
    cipher: Aes256,
    hash: H,
}

impl<H: MacHash> HashMac<H> {
    /// MAC of a header ciphertext.
    fn header(&mut self, header_ct: &[u8]) -> [u8; 16] {
        let sum1 = self.hash.digest();
        self.compute(&sum1, header_ct)
    }

    /// MAC of frame ciphertext.
    fn frame(&mut self, frame_ct: &[u8]) -> [u8; 16] {
        self.hash.absorb(frame_ct);
        let seed = self.hash.digest();
        self.compute(&seed, &seed[..16])
    }

    /// `keccak.update(aes(mac-secret, sum[..16]) ^ seed)`, then the first 16
    /// bytes of the new digest.
    fn compute(&mut self, sum: &[u8; 32], seed: &[u8]) -> [u8; 16] {
        let mut first = [0u8; 16];
        first.copy_from_slice(&sum[..16]);
        let mut block = aes::Block::from(first);
        self.cipher.encrypt_block(&mut block);
        for (b, s) in block.iter_mut().zip(seed) {
            *b ^= s;
        }
        self.hash.absorb(&block);
        let sum2 = self.hash.digest();
        let mut out = [0u8; 16];
        out.copy_from_slice(&sum2[..16]);
        out
    }
}

/// Constant-time comparison of a computed MAC with the received bytes.
fn ct_eq16(a: &[u8; 16], b: &[u8]) -> bool {
    if b.len() != 16 {
        return false;
    }
    let mut diff = 0u8;
    for (x, y) in a.iter().zip(b) {
        diff |= x ^ y;
    }
    diff == 0
}

/// Encrypts and authenticates outgoing frames and checks and decrypts
/// incoming ones. One codec serves one connection; after any error the
/// ingress state is out of sync and the connection must be dropped.
pub struct FrameCodec<H = Keccak256> {
    enc: Aes256Ctr,
    dec: Aes256Ctr,
    egress: HashMac<H>,
    ingress: HashMac<H>,
}

impl<H> std::fmt::Debug for FrameCodec<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FrameCodec").finish_non_exhaustive()
    }
}

impl FrameCodec<Keccak256> {
    /// Builds the codec from handshake secrets.
    pub fn new(secrets: &Secrets) -> Self {
        Self::from_parts(
            &secrets.aes.0,
            &secrets.mac.0,
            secrets.egress_mac.clone(),
            secrets.ingress_mac.clone(),
        )
    }
}

impl<H: MacHash> FrameCodec<H> {
    /// Builds the codec from raw parts: aes-secret, mac-secret and the two
    /// MAC hash states. Both cipher streams start with an all-zero IV.
    pub fn from_parts(aes_secret: &[u8; 32], mac_secret: &[u8; 32], egress: H, ingress: H) -> Self {
        let iv = [0u8; 16];
        let mac_cipher = Aes256::new(mac_secret.into());
        Self {
            enc: Aes256Ctr::new(aes_secret.into(), &iv.into()),
            dec: Aes256Ctr::new(aes_secret.into(), &iv.into()),
            egress: HashMac {
                cipher: mac_cipher.clone(),
                hash: egress,
            },
            ingress: HashMac {
                cipher: mac_cipher,
                hash: ingress,
            },
        }
    }

    /// Appends one encrypted frame carrying message `code` and `data` to `out`.
    pub fn encode_frame(&mut self, code: u64, data: &[u8], out: &mut Vec<u8>) -> Result<()> {
        let fsize = code.length() + data.len();
        if fsize > MAX_MESSAGE_SIZE {
            return Err(Error::MessageTooLarge(fsize));
        }
        let padded = fsize.div_ceil(16) * 16;
        out.reserve(HEADER_LEN + padded + MAC_LEN);

        let start = out.len();
        let size = (fsize as u32).to_be_bytes();
        out.extend_from_slice(&size[1..]);
        out.extend_from_slice(&ZERO_HEADER);
        out.resize(start + 16, 0);
        self.enc.apply_keystream(&mut out[start..start + 16]);
        let header_mac = self.egress.header(&out[start..start + 16]);
        out.extend_from_slice(&header_mac);

        let body = out.len();
        code.encode(out);
        out.extend_from_slice(data);
        out.resize(body + padded, 0);
        self.enc.apply_keystream(&mut out[body..]);
        let frame_mac = self.egress.frame(&out[body..]);
        out.extend_from_slice(&frame_mac);
        Ok(())
    }

    /// Verifies and decrypts a 32-byte header; returns the frame size
    /// (unpadded length of `rlp(code) || payload`).
    pub fn decode_header(&mut self, header: &[u8; HEADER_LEN]) -> Result<usize> {
        let want = self.ingress.header(&header[..16]);
        if !ct_eq16(&want, &header[16..]) {
            return Err(Error::BadHeaderMac);
        }
        let mut plain = [0u8; 16];
        plain.copy_from_slice(&header[..16]);
        self.dec.apply_keystream(&mut plain);
        Ok(u32::from_be_bytes([0, plain[0], plain[1], plain[2]]) as usize)
    }

    /// Bytes that follow a header announcing `frame_size`: the padded frame
    /// plus its MAC.
    pub fn body_len(frame_size: usize) -> usize {
        frame_size.div_ceil(16) * 16 + MAC_LEN
    }

    /// Verifies and decrypts a frame body (padded ciphertext followed by the
    /// MAC, exactly [`Self::body_len`] bytes) in place and returns the
    /// `rlp(code) || payload` plaintext.
    pub fn decode_body<'a>(&mut self, body: &'a mut [u8], frame_size: usize) -> Result<&'a [u8]> {
        let need = Self::body_len(frame_size);
        if body.len() != need {
            return Err(Error::Truncated {
                needed: need,
                have: body.len(),
            });
        }
        let (ct, mac) = body.split_at_mut(need - MAC_LEN);
        let want = self.ingress.frame(ct);
        if !ct_eq16(&want, mac) {
            return Err(Error::BadFrameMac);
        }
        self.dec.apply_keystream(ct);
        Ok(&ct[..frame_size])
    }

    /// Reads one frame from `r` and returns `(code, payload)` (payload still
    /// snappy-compressed if the peer compresses).
    pub fn read_frame<R: Read>(&mut self, r: &mut R) -> Result<(u64, Vec<u8>)> {
        let mut header = [0u8; HEADER_LEN];
        r.read_exact(&mut header)?;
        let fsize = self.decode_header(&header)?;
        let mut body = vec![0u8; Self::body_len(fsize)];
        r.read_exact(&mut body)?;
        let plain = self.decode_body(&mut body, fsize)?;
        split_code(plain)
    }

    /// Decodes one frame from the front of `buf`; returns `(code, payload)`
    /// and the number of bytes consumed. A short buffer yields
    /// [`Error::Truncated`]; note the header MAC state has then advanced.
    pub fn decode_frame(&mut self, buf: &[u8]) -> Result<((u64, Vec<u8>), usize)> {
        if buf.len() < HEADER_LEN {
            return Err(Error::Truncated {
                needed: HEADER_LEN,
                have: buf.len(),
            });
        }
        let mut header = [0u8; HEADER_LEN];
        header.copy_from_slice(&buf[..HEADER_LEN]);
        let fsize = self.decode_header(&header)?;
        let total = HEADER_LEN + Self::body_len(fsize);
        if buf.len() < total {
            return Err(Error::Truncated {
                needed: total,
                have: buf.len(),
            });
        }
        let mut body = buf[HEADER_LEN..total].to_vec();
        let plain = self.decode_body(&mut body, fsize)?;
        Ok((split_code(plain)?, total))
    }
}

/// Splits frame plaintext into the RLP message code and the payload.
fn split_code(plain: &[u8]) -> Result<(u64, Vec<u8>)> {
    let mut rest = plain;
    let code = u64::decode(&mut rest)?;
    Ok((code, rest.to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::{hex, keccak256};

    /// geth's `fakeHash`: ignores input and always returns 32 bytes of 0x01.
    #[derive(Clone)]
    struct FakeHash;

    impl MacHash for FakeHash {
        fn absorb(&mut self, _: &[u8]) {}
        fn digest(&self) -> [u8; 32] {
            [1u8; 32]
        }
    }

    fn golden_codec() -> FrameCodec<FakeHash> {
        let k = keccak256([]).0;
        FrameCodec::from_parts(&k, &k, FakeHash, FakeHash)
    }

    // go-ethereum v1.17.8 p2p/rlpx/rlpx_test.go, TestFrameReadWrite.
    const GOLDEN: &str = "00828ddae471818bb0bfa6b551d1cb42\
                          01010101010101010101010101010101\
                          ba628a4ba590cb43f7848f41c4382885\
                          01010101010101010101010101010101";

    #[test]
    fn frame_write_matches_geth_golden() {
        let mut c = golden_codec();
        let mut out = Vec::new();
        // rlp([1, 2, 3, 4]) with message code 8.
        c.encode_frame(8, &hex::decode("c401020304").unwrap(), &mut out)
            .unwrap();
        assert_eq!(hex::encode(&out), GOLDEN);
    }

    #[test]
    fn frame_read_matches_geth_golden() {
        let mut c = golden_codec();
        let golden = hex::decode(GOLDEN).unwrap();
        let (code, payload) = c.read_frame(&mut golden.as_slice()).unwrap();
        assert_eq!(code, 8);
        assert_eq!(payload, hex::decode("c401020304").unwrap());
        let mut c = golden_codec();
        let ((code, _), used) = c.decode_frame(&golden).unwrap();
        assert_eq!((code, used), (8, golden.len()));
    }

    fn pair() -> (FrameCodec, FrameCodec) {
        let mut a = Keccak256::new();
        a.update(b"a");
        let mut b = Keccak256::new();
        b.update(b"b");
        let aes = [3u8; 32];
        let mac = [4u8; 32];
        (
            FrameCodec::from_parts(&aes, &mac, a.clone(), b.clone()),
            FrameCodec::from_parts(&aes, &mac, b, a),
        )
    }

    #[test]
    fn roundtrip_many_sizes() {
        let (mut tx, mut rx) = pair();
        let mut wire = Vec::new();
        for n in [0usize, 1, 15, 16, 17, 1000, 70_000] {
            let data: Vec<u8> = (0..n).map(|i| i as u8).collect();
            tx.encode_frame(0x10 + n as u64, &data, &mut wire).unwrap();
        }
        let mut r = wire.as_slice();
        for n in [0usize, 1, 15, 16, 17, 1000, 70_000] {
            let (code, data) = rx.read_frame(&mut r).unwrap();
            assert_eq!(code, 0x10 + n as u64);
            assert_eq!(data.len(), n);
        }
        assert!(r.is_empty());
    }

    #[test]
    fn corrupted_header_mac_is_rejected() {
        let (mut tx, mut rx) = pair();
        let mut wire = Vec::new();
        tx.encode_frame(1, b"\xc0", &mut wire).unwrap();
        wire[20] ^= 0x80;
        assert!(matches!(
            rx.read_frame(&mut wire.as_slice()),
            Err(Error::BadHeaderMac)
        ));
    }

    #[test]
    fn corrupted_header_ciphertext_is_rejected() {
        let (mut tx, mut rx) = pair();
        let mut wire = Vec::new();
        tx.encode_frame(1, b"\xc0", &mut wire).unwrap();
        wire[0] ^= 1;
        assert!(matches!(
            rx.read_frame(&mut wire.as_slice()),
            Err(Error::BadHeaderMac)
        ));
    }

    #[test]
    fn corrupted_frame_is_rejected() {
        let (mut tx, mut rx) = pair();
        let mut wire = Vec::new();
        tx.encode_frame(1, b"hello frame", &mut wire).unwrap();
        wire[HEADER_LEN + 3] ^= 1;
        assert!(matches!(
            rx.read_frame(&mut wire.as_slice()),
            Err(Error::BadFrameMac)
        ));
        let (mut tx, mut rx) = pair();
        let mut wire = Vec::new();
        tx.encode_frame(1, b"hello frame", &mut wire).unwrap();
        let last = wire.len() - 1;
        wire[last] ^= 1;
        assert!(matches!(
            rx.read_frame(&mut wire.as_slice()),
            Err(Error::BadFrameMac)
        ));
    }

    #[test]
    fn truncated_frame_is_an_error() {
        let (mut tx, _) = pair();
        let mut wire = Vec::new();
        tx.encode_frame(1, b"hello frame", &mut wire).unwrap();
        for cut in [0, 10, HEADER_LEN, HEADER_LEN + 5, wire.len() - 1] {
            let (_, mut rx) = pair();
            let err = rx.read_frame(&mut &wire[..cut]).unwrap_err();
            assert!(err.is_truncated(), "cut {cut}: {err}");
            let (_, mut rx) = pair();
            let err = rx.decode_frame(&wire[..cut]).unwrap_err();
            assert!(matches!(err, Error::Truncated { .. }), "cut {cut}: {err}");
        }
    }

    #[test]
    fn oversize_message_is_rejected() {
        let (mut tx, _) = pair();
        let big = vec![0u8; MAX_MESSAGE_SIZE];
        let mut out = Vec::new();
        assert!(matches!(
            tx.encode_frame(0x10, &big, &mut out),
            Err(Error::MessageTooLarge(_))
        ));
    }
}
