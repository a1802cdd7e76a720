//! The ports [`super::free_port`] draws from, and those it gave out.

use std::collections::HashSet;
use std::hash::BuildHasher as _;
use std::sync::{Mutex, OnceLock};

/// The lowest port drawn: above the registered services most machines
/// run (databases, brokers, dev servers sit below 10 000).
const LOWEST: u16 = 20_000;
/// Fewer ports than this below the ephemeral range: let the kernel pick.
const FEWEST: u16 = 2_000;

/// Where the kernel's ephemeral range starts (`32768` when unknown).
pub(super) fn ephemeral_start() -> u16 {
    std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(32_768)
}

/// The range `[low, high)` drawn from when the ephemeral range starts
/// at `start`; empty when it is too small.
pub(super) fn below_ephemeral(start: u16) -> (u16, u16) {
    if start < LOWEST.saturating_add(FEWEST) {
        (0, 0)
    } else {
        (LOWEST, start)
    }
}

/// A port in `[low, high)`, at random (std's per-process random keys:
/// two dyno processes side by side draw differently).
pub(super) fn draw(low: u16, high: u16) -> u16 {
    static COUNT: Mutex<u64> = Mutex::new(0);
    static KEYS: OnceLock<std::collections::hash_map::RandomState> = OnceLock::new();
    let n = {
        let mut c = COUNT.lock().unwrap_or_else(|p| p.into_inner());
        *c += 1;
        *c
    };
    let h = KEYS
        .get_or_init(std::collections::hash_map::RandomState::new)
        .hash_one(n);
    low + (h % u64::from(high - low)) as u16
}

/// Whether `port` was not given out before in this process (and now is).
pub(super) fn claim(port: u16) -> bool {
    static GIVEN: OnceLock<Mutex<HashSet<u16>>> = OnceLock::new();
    GIVEN
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(port)
}
