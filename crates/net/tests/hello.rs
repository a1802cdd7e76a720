//! devp2p base protocol messages: Hello validation and Disconnect encoding.
//! Disconnect layout follows go-ethereum v1.17.8 p2p/transport.go (`rlp.Encode(&buf,
//! []any{reason})`) and p2p/peer.go (`decodeDisconnectMessage`, list or bare).

mod common;

use alloy_primitives::{B512, Bytes};
use dyno_net::hello::{Disconnect, DisconnectReason};
use dyno_net::key::{node_id, public_key};
use dyno_net::{Capability, Error, Hello};

fn hello() -> Hello {
    Hello::new(
        "dyno",
        vec![Capability::new("eth", 69), Capability::new("snap", 1)],
        node_id(&public_key(&common::signer())),
    )
}

#[test]
fn hello_roundtrip_with_and_without_tail() {
    let mut h = hello();
    assert_eq!(Hello::decode(&h.to_rlp()).unwrap(), h);
    h.listen_port = 30303;
    h.rest = vec![
        Bytes::from_static(&[0x05]),
        Bytes::from_static(&[0xc2, 0x01, 0x02]),
    ];
    assert_eq!(Hello::decode(&h.to_rlp()).unwrap(), h);
}

#[test]
fn hello_rejects_bad_ids_and_size() {
    let mut h = hello();
    h.id = B512::ZERO;
    assert!(matches!(
        Hello::decode(&h.to_rlp()),
        Err(Error::InvalidHello(_))
    ));
    // Replace the 64-byte id string (b840 ...) with a 63-byte one (b83f ...).
    let good = hello().to_rlp();
    let pos = good.windows(2).position(|w| w == [0xb8, 0x40]).unwrap();
    let mut short = good[..pos].to_vec();
    short.extend([0xb8, 0x3f]);
    short.extend(&good[pos + 3..]);
    short[1] -= 1; // outer list length (f8 xx)
    assert!(
        matches!(Hello::decode(&short), Err(Error::InvalidHello(_))),
        "{:?}",
        Hello::decode(&short)
    );
    let mut big = hello();
    big.client_id = "x".repeat(3000);
    assert!(matches!(
        Hello::decode(&big.to_rlp()),
        Err(Error::InvalidHello(_))
    ));
    let mut trailing = hello().to_rlp();
    trailing.push(0x80);
    assert!(matches!(
        Hello::decode(&trailing),
        Err(Error::TrailingBytes(1))
    ));
}

#[test]
fn disconnect_encodes_like_geth() {
    let d = |r| Disconnect { reason: r }.to_rlp();
    assert_eq!(d(DisconnectReason::Requested), vec![0xc1, 0x80]);
    assert_eq!(d(DisconnectReason::TooManyPeers), vec![0xc1, 0x04]);
    assert_eq!(d(DisconnectReason::SubprotocolError), vec![0xc1, 0x10]);
    for code in 0..=255u8 {
        let r = DisconnectReason::from(code);
        assert_eq!(r.code(), code);
        assert_eq!(Disconnect::decode(&d(r)).unwrap().reason, r);
    }
}

#[test]
fn disconnect_decodes_legacy_and_rejects_junk() {
    // Legacy bare reason.
    assert_eq!(
        Disconnect::decode(&[0x04]).unwrap().reason,
        DisconnectReason::TooManyPeers
    );
    assert_eq!(
        Disconnect::decode(&[0x80]).unwrap().reason,
        DisconnectReason::Requested
    );
    // Extra list elements are ignored, as in geth.
    assert_eq!(
        Disconnect::decode(&[0xc2, 0x03, 0x05]).unwrap().reason,
        DisconnectReason::UselessPeer
    );
    assert!(Disconnect::decode(&[0xc0]).is_err());
    assert!(Disconnect::decode(&[]).is_err());
    assert!(Disconnect::decode(&[0xc1]).is_err());
    assert_eq!(DisconnectReason::TooManyPeers.to_string(), "too many peers");
}
