use std::collections::{BTreeMap, HashSet};

use alloy_consensus::{
    EMPTY_OMMER_ROOT_HASH, EMPTY_ROOT_HASH, SignableTransaction, Signed, TxLegacy,
    transaction::from_eip155_value,
};
use alloy_primitives::{
    Address, B64, B256, Bloom, Bytes, Signature, TxKind, U256, address, b256, bytes, keccak256,
};
use dyno_workload::unhex;

use super::*;

use crate::testutil::{ctx, vectors as vectors_dir};

fn build(def: &BenchDef, ctx: &Ctx) -> Box<dyn Workload> {
    match (def.build)(ctx) {
        Ok(w) => w,
        Err(e) => panic!("{} {}: {e}", def.id(), def.implementation),
    }
}

fn build_error(def: &BenchDef, ctx: &Ctx) -> BuildError {
    match (def.build)(ctx) {
        Ok(_) => panic!("{} {} built", def.id(), def.implementation),
        Err(e) => e,
    }
}

/// The cases as the two libraries encode them, checking on the way that
/// both agree byte for byte and round-trip every case.
fn fresh_cases() -> Vec<VectorCase> {
    let mut cases = Vec::new();
    for input in inputs() {
        let encodings = input.encodings().unwrap_or_else(|e| panic!("{e}"));
        for (k, encoding) in encodings.iter().enumerate() {
            cases.push(VectorCase {
                input: input.id().to_string(),
                case: k,
                seed: input.seed() + k as u64,
                len: encoding.len(),
                keccak256: keccak256_hex(encoding),
            });
        }
    }
    cases
}

/// Both libraries encode every case as the independent generator did
/// (pyrlp; `vectors/gen/generate.py --only rlp` rewrites the file when
/// the objects change, never from these libraries).
#[test]
fn both_libraries_encode_every_case_as_the_independent_vectors_say() {
    let path = vectors_dir().join(VECTORS);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let on_disk: VectorFile = serde_json::from_str(&text).unwrap();
    let generator = on_disk.provenance["generator"].as_str().unwrap_or("");
    assert_eq!(generator, "vectors/gen/generate.py", "{}", path.display());
    let fresh = fresh_cases();
    assert_eq!(on_disk.cases.len(), fresh.len(), "{}", path.display());
    for (disk, now) in on_disk.cases.iter().zip(&fresh) {
        assert_eq!(
            disk,
            now,
            "{}: {} case {} differs",
            path.display(),
            now.input,
            now.case
        );
    }
}

#[test]
fn every_def_builds_and_verifies() {
    let ctx = ctx();
    for def in defs() {
        let mut w = build(&def, &ctx);
        if let Err(m) = w.verify() {
            panic!("{} {}: {m}", def.id(), def.implementation);
        }
        w.run(3);
        assert!(w.cases() >= 2, "{}", def.id());
    }
}

#[test]
fn ids_cover_every_input_with_both_libraries_and_both_ops() {
    let defs = defs();
    assert_eq!(defs.len(), 9 * 4 * 2);
    let mut seen = HashSet::new();
    for d in &defs {
        assert_eq!(d.group, "rlp");
        assert!(
            seen.insert((d.id(), d.implementation)),
            "duplicate {}",
            d.id()
        );
        assert_ne!(d.version, "unknown", "{} {}", d.id(), d.implementation);
    }
    for input in inputs() {
        for op in ["encode", "decode", "encode-generic", "decode-generic"] {
            for implementation in [ALLOY, PARITY] {
                let id = format!("rlp/{op}/{}", input.id());
                assert!(
                    seen.contains(&(id.clone(), implementation)),
                    "{id} {implementation}"
                );
            }
        }
    }
}

#[test]
fn params_record_the_kind_and_the_first_case_length() {
    let lengths: BTreeMap<String, usize> = inputs()
        .iter()
        .map(|i| (i.id().to_string(), i.encodings().unwrap()[0].len()))
        .collect();
    for d in defs() {
        let kind = d.params.iter().find(|(k, _)| *k == "kind").map(|(_, v)| v);
        assert!(
            matches!(kind, Some(Param::Text(t)) if !t.is_empty()),
            "{}",
            d.id()
        );
        let bytes = d.params.iter().find(|(k, _)| *k == "bytes").map(|(_, v)| v);
        assert_eq!(
            bytes,
            Some(&Param::Int(lengths[&d.input] as u64)),
            "{}",
            d.id()
        );
    }
}

/// The encoded sizes the prefix of an input id promises: `min..max` bytes.
fn size_class(id: &str) -> (usize, usize) {
    const KIB: usize = 1024;
    match id.split('-').next() {
        Some("tiny") => (0, 100),
        Some("small") => (100, KIB),
        Some("medium") => (KIB, 10 * KIB),
        Some("large") => (10 * KIB, 100 * KIB),
        Some("vlarge") => (100 * KIB, usize::MAX),
        _ => panic!("{id} names no size class"),
    }
}

#[test]
fn encodings_fall_inside_their_size_class_and_differ() {
    for input in inputs() {
        let (min, max) = size_class(input.id());
        let encodings = input.encodings().unwrap();
        for (k, e) in encodings.iter().enumerate() {
            assert!(
                (min..max).contains(&e.len()),
                "{} case {k}: {} bytes, outside {min}..{max}",
                input.id(),
                e.len()
            );
        }
        let distinct: HashSet<&Vec<u8>> = encodings.iter().collect();
        assert_eq!(
            distinct.len(),
            encodings.len(),
            "{} repeats a case",
            input.id()
        );
    }
}

#[test]
fn alloy_and_parity_agree_and_round_trip_on_every_case() {
    // `encodings` compares the two libraries' bytes and decodes both ways.
    for input in inputs() {
        input.encodings().unwrap_or_else(|e| panic!("{e}"));
    }
}

fn sample_header() -> Header {
    objects::header(&mut Rng::new(4000))
}

#[test]
fn a_wrong_expected_encoding_fails_verify_naming_both() {
    let header = sample_header();
    let right = alloy_rlp::encode(&header);
    let mut wrong = right.clone();
    wrong[300] ^= 0x01;

    let mut w = alloy_encoder(pairs(vec![header.clone()], vec![wrong.clone()]));
    let m = w.verify().unwrap_err();
    assert_eq!(m.case, "0");
    assert!(
        m.expected.contains(&keccak256_hex(&wrong)),
        "{}",
        m.expected
    );
    assert!(m.actual.contains(&keccak256_hex(&right)), "{}", m.actual);
    assert!(m.expected.contains("offset 292"), "{}", m.expected);
    assert_ne!(m.expected, m.actual);

    let mut w = parity_encoder(pairs(vec![PHeader::from(&header)], vec![wrong]));
    let m = w.verify().unwrap_err();
    assert!(m.actual.contains(&keccak256_hex(&right)), "{}", m.actual);
}

#[test]
fn a_wrong_expected_object_fails_decode_verify_near_the_difference() {
    let header = sample_header();
    let bytes = alloy_rlp::encode(&header);
    let mut wrong = header.clone();
    wrong.gas_used += 1;

    let mut w = alloy_decoder(pairs(vec![bytes.clone()], vec![wrong.clone()]));
    let m = w.verify().unwrap_err();
    assert!(
        m.expected
            .contains(&format!("gas_used: {}", wrong.gas_used)),
        "{}",
        m.expected
    );
    assert!(
        m.actual.contains(&format!("gas_used: {}", header.gas_used)),
        "{}",
        m.actual
    );

    let mut w = parity_decoder(pairs(vec![bytes.clone()], vec![PHeader::from(&wrong)]));
    let m = w.verify().unwrap_err();
    assert!(
        m.actual.contains(&format!("gas_used: {}", header.gas_used)),
        "{}",
        m.actual
    );

    // Bytes that do not decode at all are reported as such.
    let mut w = alloy_decoder(pairs(vec![bytes[..100].to_vec()], vec![header]));
    assert!(w.verify().unwrap_err().actual.starts_with("decoding error"));
}

/// A copy of the vectors folder whose `rlp.json` has been edited.
fn edited_vectors(name: &str, edit: impl FnOnce(&mut VectorFile)) -> Ctx {
    let dir = std::env::temp_dir().join(format!("dyno-rlp-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = std::fs::read_to_string(vectors_dir().join(VECTORS)).unwrap();
    let mut file: VectorFile = serde_json::from_str(&text).unwrap();
    edit(&mut file);
    std::fs::write(dir.join(VECTORS), serde_json::to_string(&file).unwrap()).unwrap();
    Ctx { vectors: dir }
}

#[test]
fn a_stale_or_missing_vector_fails_the_build() {
    let defs = defs();
    let header_def = defs
        .iter()
        .find(|d| d.input == "small-header" && d.op == "encode" && d.implementation == ALLOY)
        .unwrap();

    let ctx = edited_vectors("stale", |f| {
        let c = f
            .cases
            .iter_mut()
            .find(|c| c.input == "small-header" && c.case == 3)
            .unwrap();
        c.keccak256 = keccak256_hex(b"not it");
    });
    let e = build_error(header_def, &ctx).to_string();
    assert!(e.contains("small-header") && e.contains("case 3"), "{e}");
    assert!(e.contains(&keccak256_hex(b"not it")), "{e}");

    let ctx = edited_vectors("missing", |f| f.cases.retain(|c| c.input != "small-header"));
    assert!(matches!(
        build_error(header_def, &ctx),
        BuildError::NoVector { .. }
    ));

    let ctx = Ctx {
        vectors: std::env::temp_dir().join("dyno-rlp-no-such-dir"),
    };
    assert!(matches!(
        build_error(header_def, &ctx),
        BuildError::Vectors { .. }
    ));
}

/// EIP-155's example: nonce 9, 20 gwei, 21000 gas, to 0x3535…35, 1 ether,
/// chain id 1, signed with the private key 0x4646…46.
const EIP155_SIGNED: &str = "f86c098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a76400008025a028ef61340bd939bc2195fe537567866003e1a15d3c71ff63e1590620aa636276a067cbe9d8997f761aecb703304b3800ccf555c9f3dc64214b297fb1966a3b6d83";

#[test]
fn the_eip155_example_transaction_encodes_as_the_eip_says() {
    let (y_parity, chain_id) = from_eip155_value(37).unwrap();
    assert_eq!(chain_id, Some(1));
    let tx = TxLegacy {
        chain_id,
        nonce: 9,
        gas_price: 20_000_000_000,
        gas_limit: 21_000,
        to: TxKind::Call(address!("3535353535353535353535353535353535353535")),
        value: U256::from(1_000_000_000_000_000_000u128),
        input: Bytes::new(),
    };
    let r = b256!("28ef61340bd939bc2195fe537567866003e1a15d3c71ff63e1590620aa636276");
    let s = b256!("67cbe9d8997f761aecb703304b3800ccf555c9f3dc64214b297fb1966a3b6d83");

    // The signing hash the EIP gives, and the signature really is by
    // 0x4646…46 over it.
    let sighash = tx.signature_hash();
    assert_eq!(
        sighash,
        b256!("daf5a779ae972f972197303d7b574746c7ef83eadac0f2791ad23db92e4c8e53")
    );
    let key = k256::ecdsa::SigningKey::from_bytes(&[0x46u8; 32].into()).unwrap();
    let sig = k256::ecdsa::Signature::from_scalars(r.0, s.0).unwrap();
    let recid = k256::ecdsa::RecoveryId::new(y_parity, false);
    let signer =
        k256::ecdsa::VerifyingKey::recover_from_prehash(sighash.as_slice(), &sig, recid).unwrap();
    assert_eq!(&signer, key.verifying_key());

    let signed = TxEnvelope::Legacy(Signed::new_unhashed(
        tx,
        Signature::from_scalars_and_parity(r, s, y_parity),
    ));
    let expected = unhex(EIP155_SIGNED).unwrap();
    assert_eq!(hex(alloy_rlp::encode(&signed)), hex(&expected));
    assert_eq!(alloy_rlp::encode(&signed), expected);
    assert_eq!(
        alloy_rlp::decode_exact::<TxEnvelope>(&expected).unwrap(),
        signed
    );

    let mirror = PTx::from(&signed);
    assert!(matches!(&mirror, PTx::Legacy(t) if t.v == 37));
    assert_eq!(parity_encode(&mirror), expected);
    assert_eq!(::rlp::decode::<PTx>(&expected).unwrap(), mirror);
}

#[test]
fn the_mainnet_genesis_header_hashes_to_the_genesis_hash() {
    let genesis_hash = b256!("d4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3");
    let ommers_hash = b256!("1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347");
    let empty_root = b256!("56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421");
    // The generator uses alloy's names for these two.
    assert_eq!(EMPTY_OMMER_ROOT_HASH, ommers_hash);
    assert_eq!(EMPTY_ROOT_HASH, empty_root);
    let header = Header {
        parent_hash: B256::ZERO,
        ommers_hash,
        beneficiary: Address::ZERO,
        state_root: b256!("d7f8974fb5ac78d9ac099b9ad5018bedc2ce0a72dad1827a1709da30580f0544"),
        transactions_root: empty_root,
        receipts_root: empty_root,
        logs_bloom: Bloom::ZERO,
        difficulty: U256::from(17_179_869_184u64),
        number: 0,
        gas_limit: 5000,
        gas_used: 0,
        timestamp: 0,
        extra_data: bytes!("11bbe8db4e347b4e8c937c1c8370e4b5ed33adb3db69cbdb7a38e1e50b1b82fa"),
        mix_hash: B256::ZERO,
        nonce: B64::new([0, 0, 0, 0, 0, 0, 0, 0x42]),
        ..Header::default()
    };
    let alloy = alloy_rlp::encode(&header);
    assert_eq!(keccak256(&alloy), genesis_hash);
    assert_eq!(header.hash_slow(), genesis_hash);
    assert_eq!(alloy_rlp::decode_exact::<Header>(&alloy).unwrap(), header);

    let mirror = PHeader::from(&header);
    let parity = parity_encode(&mirror);
    assert_eq!(keccak256(&parity), genesis_hash);
    assert_eq!(keccak256_hex(&parity), hex(genesis_hash));
    assert_eq!(::rlp::decode::<PHeader>(&parity).unwrap(), mirror);
}
