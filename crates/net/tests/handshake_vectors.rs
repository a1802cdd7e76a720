//! RLPx handshake vectors.
//!
//! Sources:
//! - go-ethereum v1.17.8 `p2p/rlpx/rlpx_test.go` (`eip8HandshakeAuthTests`,
//!   `eip8HandshakeRespTests`, `TestHandshakeForwardCompatibility`).
//! - EIP-8 "Test Vectors" (the devp2p spec's RLPx handshake vectors; the
//!   EIP-8 packets are the same bytes geth copies), including the pre-EIP-8
//!   Auth₁/Ack₁ packets and the devp2p Hello with extra list elements.

mod common;

use alloy_primitives::{B256, Bytes};
use common::{hex, key};
use dyno_net::handshake::{AckMessage, AuthMessage, Handshake, read_packet};
use dyno_net::key::{node_id, public_key};
use dyno_net::{Capability, Error, Hello, ecies};
use sha3::Digest;

const KEY_A: &str = "49a7b37aa6f6645917e7b807e9d1c00d4fa71f18343b0d4122a4d2df64dd6fee";
const KEY_B: &str = "b71c71a67e1177ad4e901695e1b4b9ee17ae16c6668d313eac2f96dbcda3f291";
const EPH_A: &str = "869d6ecf5211f1cc60418a13b9d870b22959d0c16f02bec714c960dd2298a32d";
const EPH_B: &str = "e238eb8e04fee6511ab04c6dd3c89ce097b11f25d584863ac2b6d5b35b1847e4";
const NONCE_A: &str = "7e968bba13b6c50e2c4cd7f241cc0d64d1ac25c7f5952df231ac6a2bda8ee5d6";
const NONCE_B: &str = "559aead08264d5795d3909718cdd05abd49572e84fe55590eef31a88a08fdffd";
const AUTH_SIGNATURE: &str = "299ca6acfd35e3d72d8ba3d1e2b60b5561d5af5218eb5bc182045769eb4226910a301acae3b369fffc4a4899d6b02531e89fd4fe36a2cf0d93607ba470b50f7800";

const WANT_AES: &str = "80e8632c05fed6fc2a13b0f8d31a3cf645366239170ea067065aba8e28bac487";
const WANT_MAC: &str = "2ea74ec5dae199227dff1af715362700e989d889d7a493cb0639691efb8e5f98";
const WANT_FOO_INGRESS: &str = "0c7ec6340062cc46f5e9f1e3cf86f8c8c403c5a0964f5df0ebd34a75ddc86db5";

// (Auth₂) EIP-8 encoding, version 4.
const AUTH2: &str = "
    01b304ab7578555167be8154d5cc456f567d5ba302662433674222360f08d5f1534499d3678b513b
    0fca474f3a514b18e75683032eb63fccb16c156dc6eb2c0b1593f0d84ac74f6e475f1b8d56116b84
    9634a8c458705bf83a626ea0384d4d7341aae591fae42ce6bd5c850bfe0b999a694a49bbbaf3ef6c
    da61110601d3b4c02ab6c30437257a6e0117792631a4b47c1d52fc0f8f89caadeb7d02770bf999cc
    147d2df3b62e1ffb2c9d8c125a3984865356266bca11ce7d3a688663a51d82defaa8aad69da39ab6
    d5470e81ec5f2a7a47fb865ff7cca21516f9299a07b1bc63ba56c7a1a892112841ca44b6e0034dee
    70c9adabc15d76a54f443593fafdc3b27af8059703f88928e199cb122362a4b35f62386da7caad09
    c001edaeb5f8a06d2b26fb6cb93c52a9fca51853b68193916982358fe1e5369e249875bb8d0d0ec3
    6f917bc5e1eafd5896d46bd61ff23f1a863a8a8dcd54c7b109b771c8e61ec9c8908c733c0263440e
    2aa067241aaa433f0bb053c7b31a838504b148f570c0ad62837129e547678c5190341e4f1693956c
    3bf7678318e2d5b5340c9e488eefea198576344afbdf66db5f51204a6961a63ce072c8926c";

// (Auth₃) EIP-8 encoding, version 56, additional list elements.
const AUTH3: &str = "
    01b8044c6c312173685d1edd268aa95e1d495474c6959bcdd10067ba4c9013df9e40ff45f5bfd6f7
    2471f93a91b493f8e00abc4b80f682973de715d77ba3a005a242eb859f9a211d93a347fa64b597bf
    280a6b88e26299cf263b01b8dfdb712278464fd1c25840b995e84d367d743f66c0e54a586725b7bb
    f12acca27170ae3283c1073adda4b6d79f27656993aefccf16e0d0409fe07db2dc398a1b7e8ee93b
    cd181485fd332f381d6a050fba4c7641a5112ac1b0b61168d20f01b479e19adf7fdbfa0905f63352
    bfc7e23cf3357657455119d879c78d3cf8c8c06375f3f7d4861aa02a122467e069acaf513025ff19
    6641f6d2810ce493f51bee9c966b15c5043505350392b57645385a18c78f14669cc4d960446c1757
    1b7c5d725021babbcd786957f3d17089c084907bda22c2b2675b4378b114c601d858802a55345a15
    116bc61da4193996187ed70d16730e9ae6b3bb8787ebcaea1871d850997ddc08b4f4ea668fbf3740
    7ac044b55be0908ecb94d4ed172ece66fd31bfdadf2b97a8bc690163ee11f5b575a4b44e36e2bfb2
    f0fce91676fd64c7773bac6a003f481fddd0bae0a1f31aa27504e2a533af4cef3b623f4791b2cca6
    d490";

// (Ack₂) EIP-8 encoding, version 4.
const ACK2: &str = "
    01ea0451958701280a56482929d3b0757da8f7fbe5286784beead59d95089c217c9b917788989470
    b0e330cc6e4fb383c0340ed85fab836ec9fb8a49672712aeabbdfd1e837c1ff4cace34311cd7f4de
    05d59279e3524ab26ef753a0095637ac88f2b499b9914b5f64e143eae548a1066e14cd2f4bd7f814
    c4652f11b254f8a2d0191e2f5546fae6055694aed14d906df79ad3b407d94692694e259191cde171
    ad542fc588fa2b7333313d82a9f887332f1dfc36cea03f831cb9a23fea05b33deb999e85489e645f
    6aab1872475d488d7bd6c7c120caf28dbfc5d6833888155ed69d34dbdc39c1f299be1057810f34fb
    e754d021bfca14dc989753d61c413d261934e1a9c67ee060a25eefb54e81a4d14baff922180c395d
    3f998d70f46f6b58306f969627ae364497e73fc27f6d17ae45a413d322cb8814276be6ddd13b885b
    201b943213656cde498fa0e9ddc8e0b8f8a53824fbd82254f3e2c17e8eaea009c38b4aa0a3f306e8
    797db43c25d68e86f262e564086f59a2fc60511c42abfb3057c247a8a8fe4fb3ccbadde17514b7ac
    8000cdb6a912778426260c47f38919a91f25f4b5ffb455d6aaaf150f7e5529c100ce62d6d92826a7
    1778d809bdf60232ae21ce8a437eca8223f45ac37f6487452ce626f549b3b5fdee26afd2072e4bc7
    5833c2464c805246155289f4";

// (Ack₃) EIP-8 encoding, version 57, additional list elements.
const ACK3: &str = "
    01f004076e58aae772bb101ab1a8e64e01ee96e64857ce82b1113817c6cdd52c09d26f7b90981cd7
    ae835aeac72e1573b8a0225dd56d157a010846d888dac7464baf53f2ad4e3d584531fa203658fab0
    3a06c9fd5e35737e417bc28c1cbf5e5dfc666de7090f69c3b29754725f84f75382891c561040ea1d
    dc0d8f381ed1b9d0d4ad2a0ec021421d847820d6fa0ba66eaf58175f1b235e851c7e2124069fbc20
    2888ddb3ac4d56bcbd1b9b7eab59e78f2e2d400905050f4a92dec1c4bdf797b3fc9b2f8e84a482f3
    d800386186712dae00d5c386ec9387a5e9c9a1aca5a573ca91082c7d68421f388e79127a5177d4f8
    590237364fd348c9611fa39f78dcdceee3f390f07991b7b47e1daa3ebcb6ccc9607811cb17ce51f1
    c8c2c5098dbdd28fca547b3f58c01a424ac05f869f49c6a34672ea2cbbc558428aa1fe48bbfd6115
    8b1b735a65d99f21e70dbc020bfdface9f724a0d1fb5895db971cc81aa7608baa0920abb0a565c9c
    436e2fd13323428296c86385f2384e408a31e104670df0791d93e743a3a5194ee6b076fb6323ca59
    3011b7348c16cf58f66b9633906ba54a2ee803187344b394f75dd2e663a57b956cb830dd7a908d4f
    39a2336a61ef9fda549180d4ccde21514d117b6c6fd07a9102b5efe710a32af4eeacae2cb3b1dec0
    35b9593b48b9d3ca4c13d245d5f04169b0b1";

// EIP-8 only: (Auth₁) RLPx v4 pre-EIP-8 format (no size prefix, fixed layout).
const AUTH1: &str = "
    048ca79ad18e4b0659fab4853fe5bc58eb83992980f4c9cc147d2aa31532efd29a3d3dc6a3d89eaf
    913150cfc777ce0ce4af2758bf4810235f6e6ceccfee1acc6b22c005e9e3a49d6448610a58e98744
    ba3ac0399e82692d67c1f58849050b3024e21a52c9d3b01d871ff5f210817912773e610443a9ef14
    2e91cdba0bd77b5fdf0769b05671fc35f83d83e4d3b0b000c6b2a1b1bba89e0fc51bf4e460df3105
    c444f14be226458940d6061c296350937ffd5e3acaceeaaefd3c6f74be8e23e0f45163cc7ebd7622
    0f0128410fd05250273156d548a414444ae2f7dea4dfca2d43c057adb701a715bf59f6fb66b2d1d2
    0f2c703f851cbf5ac47396d9ca65b6260bd141ac4d53e2de585a73d1750780db4c9ee4cd4d225173
    a4592ee77e2bd94d0be3691f3b406f9bba9b591fc63facc016bfa8";

// EIP-8 only: (Ack₁) RLPx v4 pre-EIP-8 format.
const ACK1: &str = "
    049f8abcfa9c0dc65b982e98af921bc0ba6e4243169348a236abe9df5f93aa69d99cadddaa387662
    b0ff2c08e9006d5a11a278b1b3331e5aaabf0a32f01281b6f4ede0e09a2d5f585b26513cb794d963
    5a57563921c04a9090b4f14ee42be1a5461049af4ea7a7f49bf4c97a352d39c8d02ee4acc416388c
    1c66cec761d2bc1c72da6ba143477f049c9d2dde846c252c111b904f630ac98e51609b3b1f58168d
    dca6505b7196532e5f85b259a20c45e1979491683fee108e9660edbf38f3add489ae73e3dda2c71b
    d1497113d5c755e942d1";

// EIP-8 "devp2p Base Protocol": Hello with version 0x37 and extra list elements.
const HELLO_EIP8: &str = "
    f87137916b6e6574682f76302e39312f706c616e39cdc5836574683dc6846d6f726b1682270fb840
    fda1cff674c90c9a197539fe3dfb53086ace64f83ed7c6eabec741f7f381cc803e52ab2cd55d5569
    bce4347107a310dfd5f88a010cd2ffd1005ca406f1842877c883666f6f836261720304";

fn b256(s: &str) -> B256 {
    B256::from_slice(&hex(s))
}

fn pub_of(k: &str) -> Vec<u8> {
    node_id(&public_key(&key(k))).to_vec()
}

fn want_auth(version: u64, rest: Vec<Bytes>) -> AuthMessage {
    let mut signature = [0u8; 65];
    signature.copy_from_slice(&hex(AUTH_SIGNATURE));
    AuthMessage {
        signature,
        initiator_pubkey: alloy_primitives::B512::from_slice(&pub_of(KEY_A)),
        nonce: b256(NONCE_A),
        version,
        rest,
    }
}

fn want_ack(version: u64, rest: Vec<Bytes>) -> AckMessage {
    AckMessage {
        random_pubkey: alloy_primitives::B512::from_slice(&pub_of(EPH_B)),
        nonce: b256(NONCE_B),
        version,
        rest,
    }
}

fn raw(items: &[&[u8]]) -> Vec<Bytes> {
    items.iter().map(|i| Bytes::copy_from_slice(i)).collect()
}

fn recipient_b() -> Handshake {
    Handshake::recipient(key(KEY_B))
        .with_ephemeral_key(key(EPH_B))
        .with_nonce(b256(NONCE_B))
}

fn initiator_a() -> Handshake {
    Handshake::initiator(key(KEY_A), public_key(&key(KEY_B)))
        .with_ephemeral_key(key(EPH_A))
        .with_nonce(b256(NONCE_A))
}

fn foo_hash(mut h: sha3::Keccak256) -> Vec<u8> {
    h.update(b"foo");
    h.finalize().to_vec()
}

#[test]
fn auth_packets_decode_like_geth() {
    let cases = [
        (AUTH2, want_auth(4, vec![])),
        (
            AUTH3,
            want_auth(56, raw(&[&[0x01], &[0x02], &[0xc2, 0x04, 0x05]])),
        ),
    ];
    for (input, want) in cases {
        let packet = hex(input);
        // read_packet consumes exactly prefix + announced size.
        let read = read_packet(&mut packet.as_slice()).unwrap();
        assert_eq!(read, packet);
        let mut hs = recipient_b();
        let got = hs.read_auth(&packet).unwrap();
        assert_eq!(got, want);
        // The recovered remote static key is A.
        assert_eq!(node_id(hs.remote().unwrap()).to_vec(), pub_of(KEY_A));
    }
}

#[test]
fn ack_packets_decode_like_geth() {
    let cases = [
        (ACK2, want_ack(4, vec![])),
        (
            ACK3,
            want_ack(57, raw(&[&[0x06], &[0xc2, 0x07, 0x08], &[0x81, 0xfa]])),
        ),
    ];
    for (input, want) in cases {
        let mut hs = initiator_a();
        assert_eq!(hs.read_ack(&hex(input)).unwrap(), want);
    }
}

#[test]
fn recipient_derives_eip8_secrets() {
    // geth TestHandshakeForwardCompatibility: derivation for (Auth₂, Ack₂) on
    // the recipient side.
    let mut hs = recipient_b();
    hs.read_auth(&hex(AUTH2)).unwrap();
    let s = hs.secrets(&hex(AUTH2), &hex(ACK2)).unwrap();
    assert_eq!(s.aes.to_vec(), hex(WANT_AES));
    assert_eq!(s.mac.to_vec(), hex(WANT_MAC));
    assert_eq!(foo_hash(s.ingress_mac), hex(WANT_FOO_INGRESS));
    assert_eq!(node_id(&s.remote).to_vec(), pub_of(KEY_A));
}

#[test]
fn initiator_derives_matching_secrets() {
    // The initiator side of the same exchange: same aes/mac secrets, and its
    // egress MAC is the recipient's ingress MAC.
    let mut hs = initiator_a();
    hs.read_ack(&hex(ACK2)).unwrap();
    let s = hs.secrets(&hex(AUTH2), &hex(ACK2)).unwrap();
    assert_eq!(s.aes.to_vec(), hex(WANT_AES));
    assert_eq!(s.mac.to_vec(), hex(WANT_MAC));
    assert_eq!(foo_hash(s.egress_mac), hex(WANT_FOO_INGRESS));
    assert_ne!(foo_hash(s.ingress_mac), hex(WANT_FOO_INGRESS));
}

#[test]
fn version_56_57_packets_give_same_keys() {
    // aes/mac secrets depend only on ephemeral keys and nonces, which are the
    // same in (Auth₃, Ack₃); the MAC states differ because they absorb the packets.
    let mut hs = recipient_b();
    hs.read_auth(&hex(AUTH3)).unwrap();
    let s = hs.secrets(&hex(AUTH3), &hex(ACK3)).unwrap();
    assert_eq!(s.aes.to_vec(), hex(WANT_AES));
    assert_eq!(s.mac.to_vec(), hex(WANT_MAC));
    assert_ne!(foo_hash(s.ingress_mac.clone()), hex(WANT_FOO_INGRESS));

    let mut a = initiator_a();
    a.read_ack(&hex(ACK3)).unwrap();
    let sa = a.secrets(&hex(AUTH3), &hex(ACK3)).unwrap();
    assert_eq!(foo_hash(sa.egress_mac), foo_hash(s.ingress_mac));
    assert_eq!(foo_hash(sa.ingress_mac), foo_hash(s.egress_mac));
}

#[test]
fn our_auth_message_matches_vector() {
    // The vector's signature was not made with RFC 6979, so ours differs in
    // bytes; every other field is exact, and the signature must recover to
    // A's ephemeral key, which the recipient needs to derive the vector's secrets.
    let msg = initiator_a().auth_message().unwrap();
    let want = want_auth(4, vec![]);
    assert_eq!(msg.initiator_pubkey, want.initiator_pubkey);
    assert_eq!((msg.nonce, msg.version), (want.nonce, want.version));
    assert!(msg.signature[64] <= 1, "v is 0 or 1 as in geth");
    let mut hs = recipient_b();
    hs.handle_auth(&msg).unwrap();
    let s = hs.secrets(&hex(AUTH2), &hex(ACK2)).unwrap();
    assert_eq!(s.aes.to_vec(), hex(WANT_AES));
    assert_eq!(foo_hash(s.ingress_mac), hex(WANT_FOO_INGRESS));
    // With the vector's signature the RLP equals the plaintext inside Auth₂
    // (before the zero padding).
    let plain = ecies::decrypt(&key(KEY_B), &hex(AUTH2)[2..], &hex(AUTH2)[..2]).unwrap();
    let mut enc = Vec::new();
    AuthMessage {
        signature: want.signature,
        ..msg
    }
    .encode(&mut enc);
    assert_eq!(&plain[..enc.len()], enc.as_slice());
    assert!(
        plain[enc.len()..].iter().all(|b| *b == 0),
        "padding is zeros"
    );
}

#[test]
fn tampered_auth_signature_gives_other_secrets() {
    let mut msg = want_auth(4, vec![]);
    msg.signature[10] ^= 1;
    let mut hs = recipient_b();
    // Recovery either fails or yields a different ephemeral key.
    if hs.handle_auth(&msg).is_ok() {
        let s = hs.secrets(&hex(AUTH2), &hex(ACK2)).unwrap();
        assert_ne!(s.aes.to_vec(), hex(WANT_AES));
    }
    msg.signature[64] = 7;
    assert!(matches!(
        recipient_b().handle_auth(&msg),
        Err(Error::Secp256k1(_))
    ));
}

#[test]
fn our_ack_message_matches_vector() {
    let mut enc = Vec::new();
    recipient_b().ack_message().encode(&mut enc);
    let plain = ecies::decrypt(&key(KEY_A), &hex(ACK2)[2..], &hex(ACK2)[..2]).unwrap();
    assert_eq!(&plain[..enc.len()], enc.as_slice());
}

#[test]
fn pre_eip8_packets_decrypt_with_ecies() {
    // Auth₁: sig(65) || keccak(ephemeral-pubk)(32) || pubk(64) || nonce(32) || 0x00.
    let plain = ecies::decrypt(&key(KEY_B), &hex(AUTH1), &[]).unwrap();
    assert_eq!(plain.len(), 194);
    assert_eq!(plain[..65], hex(AUTH_SIGNATURE)[..]);
    assert_eq!(
        plain[65..97],
        alloy_primitives::keccak256(pub_of(EPH_A))[..]
    );
    assert_eq!(plain[97..161], pub_of(KEY_A)[..]);
    assert_eq!(plain[161..193], hex(NONCE_A)[..]);
    assert_eq!(plain[193], 0);
    // Ack₁: ephemeral-pubk(64) || nonce(32) || 0x00.
    let plain = ecies::decrypt(&key(KEY_A), &hex(ACK1), &[]).unwrap();
    assert_eq!(plain.len(), 97);
    assert_eq!(plain[..64], pub_of(EPH_B)[..]);
    assert_eq!(plain[64..96], hex(NONCE_B)[..]);
    assert_eq!(plain[96], 0);
}

#[test]
fn pre_eip8_auth_is_rejected_by_handshake() {
    // geth 1.17.8 only speaks EIP-8; so do we. The first two bytes of Auth₁
    // are read as a size prefix that the packet cannot satisfy.
    let err = recipient_b().read_auth(&hex(AUTH1)).unwrap_err();
    assert!(matches!(err, Error::Truncated { .. }), "{err}");
}

#[test]
fn wrong_recipient_key_fails_mac() {
    let mut hs = Handshake::recipient(key(KEY_A));
    assert!(matches!(hs.read_auth(&hex(AUTH2)), Err(Error::EciesBadMac)));
}

#[test]
fn tampered_prefix_fails_mac() {
    // The size prefix is authenticated as ECIES shared MAC data.
    let mut p = hex(AUTH2);
    let extra = p.len() - 2;
    p[1] = p[1].wrapping_sub(1);
    assert!(recipient_b().read_auth(&p).is_err());
    let mut p = hex(AUTH2);
    p.truncate(extra);
    assert!(recipient_b().read_auth(&p).unwrap_err().is_truncated());
}

#[test]
fn invalid_ephemeral_point_is_rejected() {
    // geth p2p/rlpx/rlpx_oracle_poc_test.go: an auth whose ECIES ephemeral
    // key is 0x04 || zeros must fail with an invalid-public-key error.
    let mut p = hex(AUTH2);
    for b in &mut p[3..67] {
        *b = 0;
    }
    assert!(matches!(
        recipient_b().read_auth(&p),
        Err(Error::EciesInvalidPublicKey)
    ));
}

#[test]
fn oversize_packet_is_rejected() {
    let mut p = vec![0x08, 0x01];
    p.extend(vec![0u8; 2049]);
    assert!(matches!(
        read_packet(&mut p.as_slice()),
        Err(Error::HandshakeTooBig { size: 2049, .. })
    ));
}

#[test]
fn in_memory_handshake_both_sides_agree() {
    let a = key(KEY_A);
    let b = key(KEY_B);
    let init = Handshake::initiator(a, public_key(&b));
    let auth = init.write_auth().unwrap();
    let mut init = init;
    let mut resp = Handshake::recipient(b);
    resp.read_auth(&auth).unwrap();
    let ack = resp.write_ack().unwrap();
    init.read_ack(&ack).unwrap();
    let si = init.secrets(&auth, &ack).unwrap();
    let sr = resp.secrets(&auth, &ack).unwrap();
    assert_eq!(si.aes, sr.aes);
    assert_eq!(si.mac, sr.mac);
    assert_eq!(foo_hash(si.egress_mac), foo_hash(sr.ingress_mac));
    assert_eq!(foo_hash(si.ingress_mac), foo_hash(sr.egress_mac));
    assert_eq!(node_id(&si.remote).to_vec(), pub_of(KEY_B));
    assert_eq!(node_id(&sr.remote).to_vec(), pub_of(KEY_A));
    // EIP-8 padding puts every packet above the pre-EIP-8 sizes.
    assert!(auth.len() > 307 && ack.len() > 210);
}

#[test]
fn eip8_hello_vector_decodes_and_reencodes() {
    let bytes = hex(HELLO_EIP8);
    let h = Hello::decode(&bytes).unwrap();
    assert_eq!(h.protocol_version, 0x37);
    assert_eq!(h.client_id, "kneth/v0.91/plan9");
    assert_eq!(
        h.capabilities,
        vec![Capability::new("eth", 61), Capability::new("mork", 22)]
    );
    assert_eq!(h.listen_port, 9999);
    assert_eq!(
        h.id.to_vec(),
        hex(
            "fda1cff674c90c9a197539fe3dfb53086ace64f83ed7c6eabec741f7f381cc803e52ab2cd55d5569\
             bce4347107a310dfd5f88a010cd2ffd1005ca406f1842877"
        )
    );
    assert_eq!(h.rest, raw(&[&hex("c883666f6f83626172"), &[0x03], &[0x04]]));
    assert_eq!(h.to_rlp(), bytes);
}
