//! Small RLP helpers on top of `alloy-rlp` for forward-compatible lists
//! (the devp2p "tail" convention) and exact decoding.

use alloy_primitives::Bytes;
use alloy_rlp::{Decodable, Header};

use crate::error::{Error, Result};

/// Decodes one value of type `T` and rejects trailing bytes.
pub(crate) fn decode_exact<T: Decodable>(mut buf: &[u8]) -> Result<T> {
    let value = T::decode(&mut buf)?;
    if !buf.is_empty() {
        return Err(Error::TrailingBytes(buf.len()));
    }
    Ok(value)
}

/// Reads a list header and returns the list payload; `buf` advances past the
/// whole list. Bytes after the list are left in `buf`.
pub(crate) fn list_payload<'a>(buf: &mut &'a [u8]) -> Result<&'a [u8]> {
    let header = Header::decode(buf)?;
    if !header.list {
        return Err(alloy_rlp::Error::UnexpectedString.into());
    }
    let payload = &buf[..header.payload_length];
    *buf = &buf[header.payload_length..];
    Ok(payload)
}

/// Splits the remaining items of a list payload into raw encoded values.
pub(crate) fn raw_items(mut buf: &[u8]) -> Result<Vec<Bytes>> {
    let mut items = Vec::new();
    while !buf.is_empty() {
        let start = buf;
        let header = Header::decode(&mut buf)?;
        if buf.len() < header.payload_length {
            return Err(alloy_rlp::Error::InputTooShort.into());
        }
        buf = &buf[header.payload_length..];
        let used = start.len() - buf.len();
        items.push(Bytes::copy_from_slice(&start[..used]));
    }
    Ok(items)
}
