//! Snappy block ("raw") compression as devp2p uses it after the Hello
//! exchange, with a decoded-size limit checked before any allocation.

use crate::error::{Error, Result};

/// Largest decoded message RLPx allows (24-bit length field).
pub const MAX_MESSAGE_SIZE: usize = 0xFF_FFFF;

/// Compresses `data` in the snappy block format.
///
/// Fails only for inputs beyond snappy's own size limit (about 4 GiB).
pub fn compress(data: &[u8]) -> Result<Vec<u8>> {
    Ok(snap::raw::Encoder::new().compress_vec(data)?)
}

/// Decompresses a snappy block, refusing payloads whose announced decoded
/// length exceeds `max` (use [`MAX_MESSAGE_SIZE`] for RLPx).
pub fn decompress_with_limit(data: &[u8], max: usize) -> Result<Vec<u8>> {
    let len = snap::raw::decompress_len(data)?;
    if len > max {
        return Err(Error::SnappyTooLarge { len, max });
    }
    let mut out = vec![0u8; len];
    let n = snap::raw::Decoder::new().decompress(data, &mut out)?;
    out.truncate(n);
    Ok(out)
}

/// Decompresses a snappy block with the RLPx limit.
pub fn decompress(data: &[u8]) -> Result<Vec<u8>> {
    decompress_with_limit(data, MAX_MESSAGE_SIZE)
}
