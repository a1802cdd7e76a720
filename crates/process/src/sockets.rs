//! What a process group holds open to the network, read from `/proc`: the
//! processes in the group, and the TCP sockets they listen on and the UDP
//! sockets they have bound. `dyno client check` asks this of a client it
//! started (every listener on loopback; nothing left after it stops).

use std::collections::HashSet;
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

/// The processes (live or zombie) whose process group is `pgid`.
pub fn members(pgid: u32) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut pids: Vec<u32> = dir
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|s| group_of(&s))
                == Some(pgid)
        })
        .collect();
    pids.sort_unstable();
    pids
}

/// The process group in a `/proc/PID/stat` line (its fifth field, after
/// the command name in parentheses, which may hold spaces).
fn group_of(stat: &str) -> Option<u32> {
    let rest = stat.rsplit_once(')')?.1;
    rest.split_whitespace().nth(2)?.parse().ok()
}

/// Every socket the processes `pids` listen on (TCP) or have bound (UDP),
/// sorted, without repeats.
pub fn listening(pids: &[u32]) -> Vec<Listener> {
    let mut inodes = HashSet::new();
    for pid in pids {
        let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            if let Ok(target) = std::fs::read_link(fd.path())
                && let Some(inode) = target
                    .to_str()
                    .and_then(|t| t.strip_prefix("socket:["))
                    .and_then(|t| t.strip_suffix(']'))
                    .and_then(|t| t.parse::<u64>().ok())
            {
                inodes.insert(inode);
            }
        }
    }
    let mut found = Vec::new();
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
                && inodes.contains(&inode)
                // TCP: LISTEN (0A); UDP: every bound socket (07, "closed").
                && (protocol == "udp" || state == 0x0A)
            {
                found.push(Listener { protocol, address });
            }
        }
    }
    found.sort();
    found.dedup();
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
        assert_eq!(group_of("12 (a b) S 1 77 77 0"), Some(77));
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
        drop(open);
        assert!(!listening(&[std::process::id()]).contains(&want));
        // This test's own process group holds this process.
        let pgid = nix::unistd::getpgrp().as_raw() as u32;
        assert!(members(pgid).contains(&std::process::id()));
    }
}
