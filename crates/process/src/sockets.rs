//! What processes hold open to the network, read from `/proc`: the TCP
//! sockets they listen on and the UDP sockets they have bound, and the
//! listeners that appeared that no process dyno can see holds. `dyno
//! client check` asks this of a client's whole tree ([`crate::tree`]):
//! every listener on loopback, none it cannot attribute, nothing left
//! after it stops.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// A socket a process listens on (TCP) or has bound (UDP).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Listener {
    /// `tcp` or `udp`.
    pub protocol: &'static str,
    pub address: SocketAddr,
}

impl Listener {
    /// True if only this machine can reach it (127.0.0.0/8 or ::1).
    pub fn is_loopback(&self) -> bool {
        self.address.ip().is_loopback()
    }
}

impl std::fmt::Display for Listener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.protocol, self.address)
    }
}

/// The inodes of the sockets process `pid` holds open (none if its
/// descriptors cannot be read).
fn socket_inodes(pid: u32) -> Vec<u64> {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return Vec::new();
    };
    fds.flatten()
        .filter_map(|fd| {
            let target = std::fs::read_link(fd.path()).ok()?;
            target
                .to_str()?
                .strip_prefix("socket:[")?
                .strip_suffix(']')?
                .parse::<u64>()
                .ok()
        })
        .collect()
}

/// Every socket listening (TCP) or bound (UDP) on this machine now, as
/// this process's network namespace sees it, by inode.
fn sockets() -> BTreeMap<u64, Listener> {
    let mut found = BTreeMap::new();
    for (file, protocol) in [
        ("/proc/net/tcp", "tcp"),
        ("/proc/net/tcp6", "tcp"),
        ("/proc/net/udp", "udp"),
        ("/proc/net/udp6", "udp"),
    ] {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        for line in text.lines().skip(1) {
            if let Some((address, state, inode)) = parse_line(line)
                // TCP: LISTEN (0A); UDP: every bound socket (07, "closed").
                && (protocol == "udp" || state == 0x0A)
            {
                found.insert(inode, Listener { protocol, address });
            }
        }
    }
    found
}

/// Every socket the processes `pids` listen on (TCP) or have bound (UDP),
/// sorted, without repeats.
pub fn listening(pids: &[u32]) -> Vec<Listener> {
    let inodes: HashSet<u64> = pids.iter().flat_map(|p| socket_inodes(*p)).collect();
    let mut found: Vec<Listener> = sockets()
        .into_iter()
        .filter(|(inode, _)| inodes.contains(inode))
        .map(|(_, l)| l)
        .collect();
    found.sort();
    found.dedup();
    found
}

/// The TCP listeners on this machine now, by inode: what
/// [`unattributed`] compares with.
pub fn tcp_listeners() -> BTreeSet<u64> {
    sockets()
        .into_iter()
        .filter(|(_, l)| l.protocol == "tcp")
        .map(|(inode, _)| inode)
        .collect()
}

/// Which process holds each socket, of every process whose descriptors
/// this one may read.
fn holders() -> HashMap<u64, u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return HashMap::new();
    };
    let mut held = HashMap::new();
    for pid in dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok()) {
        for inode in socket_inodes(pid) {
            held.entry(inode).or_insert(pid);
        }
    }
    held
}

/// The process holding the TCP listener on `address`, if there is one and
/// its holder's descriptors can be read.
pub fn holder_of(address: SocketAddr) -> Option<u32> {
    let inode = sockets()
        .into_iter()
        .find(|(_, l)| l.protocol == "tcp" && l.address == address)?
        .0;
    holders().get(&inode).copied()
}

/// TCP listeners that appeared since `before` ([`tcp_listeners`]) and that
/// no process dyno can see holds: a process in a pid namespace of its own,
/// or one whose descriptors this user may not read. Read twice around the
/// search for holders, so a socket that closed meanwhile is not counted.
pub fn unattributed(before: &BTreeSet<u64>) -> Vec<Listener> {
    let first = sockets();
    let held = holders();
    let second = tcp_listeners();
    let mut found: Vec<Listener> = first
        .into_iter()
        .filter(|(inode, l)| {
            l.protocol == "tcp"
                && !before.contains(inode)
                && second.contains(inode)
                && !held.contains_key(inode)
        })
        .map(|(_, l)| l)
        .collect();
    found.sort();
    found
}

/// A `/proc/net/{tcp,udp}[6]` row: its local address, state and inode.
fn parse_line(line: &str) -> Option<(SocketAddr, u8, u64)> {
    let f: Vec<&str> = line.split_whitespace().collect();
    let (ip, port) = f.get(1)?.split_once(':')?;
    let port = u16::from_str_radix(port, 16).ok()?;
    let ip = match ip.len() {
        8 => IpAddr::V4(Ipv4Addr::from(
            u32::from_str_radix(ip, 16).ok()?.swap_bytes(),
        )),
        32 => {
            // Four 32-bit words, each in the host's (little-endian) order.
            let mut bytes = [0u8; 16];
            for (i, chunk) in bytes.chunks_mut(4).enumerate() {
                let word = u32::from_str_radix(ip.get(i * 8..i * 8 + 8)?, 16).ok()?;
                chunk.copy_from_slice(&word.swap_bytes().to_be_bytes());
            }
            IpAddr::V6(Ipv6Addr::from(bytes))
        }
        _ => return None,
    };
    let state = u8::from_str_radix(f.get(3)?, 16).ok()?;
    let inode = f.get(9)?.parse().ok()?;
    Some((SocketAddr::new(ip, port), state, inode))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_rows_give_address_state_and_inode() {
        let v4 = "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 424242 1 0000000000000000 100 0 0 10 0";
        let (addr, state, inode) = parse_line(v4).unwrap();
        assert_eq!(addr, "127.0.0.1:8080".parse().unwrap());
        assert_eq!((state, inode), (0x0A, 424242));
        let any = "   1: 00000000:7661 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 7 1 0";
        assert_eq!(parse_line(any).unwrap().0, "0.0.0.0:30305".parse().unwrap());
        let v6_loopback = "   0: 00000000000000000000000001000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 9 1 0";
        let (addr, ..) = parse_line(v6_loopback).unwrap();
        assert_eq!(addr, "[::1]:8080".parse().unwrap());
        assert!(parse_line("  sl  local_address rem_address").is_none());
    }

    #[test]
    fn a_listener_of_this_process_is_found_with_its_address() {
        let open = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = open.local_addr().unwrap().port();
        let mine = listening(&[std::process::id()]);
        let want = Listener {
            protocol: "tcp",
            address: SocketAddr::from(([127, 0, 0, 1], port)),
        };
        assert!(mine.contains(&want), "{mine:?}");
        assert!(want.is_loopback());
        // This process holds it: it is attributed, and found by address.
        assert_eq!(holder_of(want.address), Some(std::process::id()));
        assert!(unattributed(&BTreeSet::new()).iter().all(|l| *l != want));
        drop(open);
        assert!(!listening(&[std::process::id()]).contains(&want));
        assert_eq!(holder_of(want.address), None);
    }
}
