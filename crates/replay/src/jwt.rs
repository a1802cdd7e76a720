//! The Engine API's authentication: an HS256 JSON Web Token over a shared
//! 32-byte secret, carrying the time it was issued (`iat`); clients accept
//! a token issued within a minute of their clock.

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// Base64url without padding (RFC 4648 §5), as JWTs use it.
pub fn base64url(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        let chars = chunk.len() + 1;
        for k in 0..chars {
            out.push(ALPHABET[((n >> (18 - 6 * k)) & 63) as usize] as char);
        }
    }
    out
}

/// The JWS signature of `signing_input` (`header.payload`) with `secret`.
pub fn hs256(secret: &[u8], signing_input: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes any key length");
    mac.update(signing_input);
    base64url(&mac.finalize().into_bytes())
}

/// A token issued at `iat` (seconds since the Unix epoch).
pub fn token(secret: &[u8; 32], iat: u64) -> String {
    let header = base64url(br#"{"alg":"HS256","typ":"JWT"}"#);
    let claims = base64url(format!(r#"{{"iat":{iat}}}"#).as_bytes());
    let input = format!("{header}.{claims}");
    let signature = hs256(secret, input.as_bytes());
    format!("{input}.{signature}")
}

/// Seconds since the Unix epoch.
pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A token issued now.
pub fn token_now(secret: &[u8; 32]) -> String {
    token(secret, now())
}

/// A token with `alg` `none` and no signature, issued now: what the
/// Engine API's authentication says a client must refuse.
pub fn unsigned_token() -> String {
    let header = base64url(br#"{"alg":"none","typ":"JWT"}"#);
    let claims = base64url(format!(r#"{{"iat":{}}}"#, now()).as_bytes());
    format!("{header}.{claims}.")
}

/// A fresh secret: 32 bytes from the operating system's generator.
pub fn secret() -> std::io::Result<[u8; 32]> {
    use std::io::Read as _;
    let mut s = [0u8; 32];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut s)?;
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 4648 §10's test vectors (base64, here in the url alphabet and
    /// without padding).
    #[test]
    fn base64url_follows_rfc_4648() {
        for (input, want) in [
            ("", ""),
            ("f", "Zg"),
            ("fo", "Zm8"),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg"),
            ("fooba", "Zm9vYmE"),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64url(input.as_bytes()), want, "{input:?}");
        }
        assert_eq!(base64url(&[0xfb, 0xff]), "-_8");
    }

    /// RFC 7515 Appendix A.1: the HS256 example's signing input, key and
    /// signature.
    #[test]
    fn hs256_signs_rfc_7515_appendix_a1() {
        let header = base64url(b"{\"typ\":\"JWT\",\r\n \"alg\":\"HS256\"}");
        assert_eq!(header, "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9");
        let payload = base64url(
            b"{\"iss\":\"joe\",\r\n \"exp\":1300819380,\r\n \"http://example.com/is_root\":true}",
        );
        let key_b64 = "AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow";
        let key = decode_url(key_b64);
        let sig = hs256(&key, format!("{header}.{payload}").as_bytes());
        assert_eq!(sig, "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk");
        let mut wrong = key.clone();
        wrong[0] ^= 1;
        assert_ne!(hs256(&wrong, format!("{header}.{payload}").as_bytes()), sig);
    }

    fn decode_url(s: &str) -> Vec<u8> {
        const A: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        let vals: Vec<u32> = s.chars().map(|c| A.find(c).unwrap() as u32).collect();
        let mut out = Vec::new();
        for chunk in vals.chunks(4) {
            let mut n = 0u32;
            for (k, v) in chunk.iter().enumerate() {
                n |= v << (18 - 6 * k);
            }
            for k in 0..chunk.len() - 1 {
                out.push((n >> (16 - 8 * k)) as u8);
            }
        }
        out
    }

    #[test]
    fn a_token_has_three_parts_and_the_time() {
        let t = token(&[7; 32], 1_700_000_000);
        let parts: Vec<&str> = t.split('.').collect();
        assert_eq!(parts.len(), 3);
        assert_eq!(parts[1], base64url(br#"{"iat":1700000000}"#));
    }
}
