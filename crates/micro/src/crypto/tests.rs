use super::*;
use dyno_workload::{Ctx, Mismatch, Workload, hex, seq};
use std::path::{Path, PathBuf};

use crate::testutil::{ctx, vectors};

fn edited(tag: &str, file: &str, edit: impl FnOnce(&mut serde_json::Value)) -> PathBuf {
    crate::testutil::edited(&format!("crypto-{tag}"), file, edit)
}

/// The error building `id` on `implementation` from the vectors in `dir`.
fn build_error(id: &str, implementation: &str, dir: &Path) -> String {
    (find(id, implementation).build)(&Ctx {
        vectors: dir.to_path_buf(),
    })
    .err()
    .expect("build error")
    .to_string()
}

/// Flip the last hex digit of a string field; returns (old, new).
fn flip(v: &mut serde_json::Value) -> (String, String) {
    let old = v.as_str().unwrap().to_string();
    let mut new = old.clone();
    let last = new.pop().unwrap();
    new.push(if last == '0' { '1' } else { '0' });
    *v = serde_json::Value::String(new.clone());
    (old, new)
}

fn find(id: &str, implementation: &str) -> BenchDef {
    defs()
        .into_iter()
        .find(|d| d.id() == id && d.implementation == implementation)
        .unwrap_or_else(|| panic!("no {id} {implementation}"))
}

fn verify_err(ctx: &Ctx, id: &str, implementation: &str) -> Mismatch {
    let mut w = (find(id, implementation).build)(ctx).unwrap();
    w.verify().expect_err(&format!(
        "{id} {implementation} passed on corrupted vectors"
    ))
}

#[test]
fn crypto_defs_are_the_listed_ids_and_implementations() {
    let mut got: Vec<String> = defs()
        .iter()
        .map(|d| format!("{} {} {}", d.id(), d.implementation, d.version))
        .collect();
    got.sort();
    let v = |c: &str| crate::version(c);
    let mut want = Vec::new();
    for id in [
        "secp256k1-sign/recid-direct",
        "secp256k1-sign/recid-trial",
        "secp256k1-verify/valid",
        "secp256k1-recover/valid",
        "secp256k1-keygen/pubkey",
    ] {
        want.push(format!("crypto/{id} libsecp256k1 {}", v("secp256k1")));
        want.push(format!("crypto/{id} k256 {}", v("k256")));
    }
    for curve in ["p256", "p384"] {
        for op in ["sign", "verify"] {
            want.push(format!("crypto/{curve}-{op}/32B {curve} {}", v(curve)));
            want.push(format!("crypto/{curve}-{op}/32B ring {}", v("ring")));
        }
    }
    want.sort();
    assert_eq!(got, want);
    assert!(got.iter().all(|g| !g.ends_with("unknown")), "{got:?}");
}

#[test]
fn crypto_a_verifier_that_always_says_yes_is_wrong() {
    // Every timed case is a valid signature; the controls (the same
    // signatures over another message) are what catch this.
    let ctx = ctx();
    let wrong = |m: Result<(), Mismatch>| {
        let m = m.expect_err("an always-true verifier passed");
        assert!(m.case.starts_with("control 0"), "{m}");
        assert_eq!((m.expected.as_str(), m.actual.as_str()), ("false", "true"));
    };
    wrong(secp::verify_libsecp_cases(&ctx, |_| true).unwrap().verify());
    wrong(secp::verify_k256_cases(&ctx, |_| true).unwrap().verify());
    wrong(
        nist::verify_cases::<nist::P256, _>(&ctx, |_| true)
            .unwrap()
            .verify(),
    );
    wrong(
        nist::verify_cases::<nist::P384, _>(&ctx, |_| true)
            .unwrap()
            .verify(),
    );
    wrong(
        nist::ring_verify_cases::<nist::P256, _>(&ctx, |_| true)
            .unwrap()
            .verify(),
    );
    wrong(
        nist::ring_verify_cases::<nist::P384, _>(&ctx, |_| true)
            .unwrap()
            .verify(),
    );
}

#[test]
fn crypto_every_def_builds_and_verifies() {
    let ctx = ctx();
    for def in defs() {
        let name = format!("{} {}", def.id(), def.implementation);
        let mut w = (def.build)(&ctx).unwrap_or_else(|e| panic!("{name}: {e}"));
        let want = if def.op.starts_with("secp256k1") {
            16
        } else {
            8
        };
        assert_eq!(w.cases(), want, "{name}");
        w.verify().unwrap_or_else(|e| panic!("{name}: {e}"));
        w.run(20);
    }
}

#[test]
fn crypto_corrupted_secp256k1_signature_fails_verify_naming_both_values() {
    let mut flipped = (String::new(), String::new());
    let dir = edited("k1", secp::FILE, |j| {
        flipped = flip(&mut j["cases"][0]["s"])
    });
    let (old_s, new_s) = flipped;
    let ctx = Ctx {
        vectors: dir.clone(),
    };
    for lib in ["libsecp256k1", "k256"] {
        for id in [
            "crypto/secp256k1-sign/recid-direct",
            "crypto/secp256k1-sign/recid-trial",
        ] {
            let err = verify_err(&ctx, id, lib);
            assert_eq!(err.case, "0");
            assert!(
                err.expected.contains(&format!("s={new_s}")),
                "{id} {lib}: {err}"
            );
            assert!(
                err.actual.contains(&format!("s={old_s}")),
                "{id} {lib}: {err}"
            );
        }
        let err = verify_err(&ctx, "crypto/secp256k1-verify/valid", lib);
        assert_eq!(
            (err.expected.as_str(), err.actual.as_str()),
            ("true", "false"),
            "{lib}"
        );

        let err = verify_err(&ctx, "crypto/secp256k1-recover/valid", lib);
        let (_, cases) = secp::load(&ctx).unwrap();
        assert_eq!(err.expected, hex(cases[0].public_key), "{lib}");
        assert_ne!(err.actual, err.expected, "{lib}");

        // The key pairs are intact: keygen still passes.
        let keygen = find("crypto/secp256k1-keygen/pubkey", lib);
        (keygen.build)(&ctx).unwrap().verify().unwrap();
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn crypto_corrupted_public_key_fails_keygen_and_recover() {
    // A different valid key: case 1's, under case 0's private key. The
    // builder rejects the pair for sign/verify, and keygen's expected
    // output differs.
    let dir = edited("k1pk", secp::FILE, |j| {
        let other = j["cases"][1]["public_key"].clone();
        j["cases"][0]["public_key"] = other;
    });
    let ctx = Ctx {
        vectors: dir.clone(),
    };
    for lib in ["libsecp256k1", "k256"] {
        let err = (find("crypto/secp256k1-keygen/pubkey", lib).build)(&ctx)
            .err()
            .expect("build error")
            .to_string();
        assert!(
            err.contains("secp256k1.json") && err.contains("case 0: public_key: does not belong"),
            "{err}"
        );
    }
    // The recover input builder checks the pair too.
    let err = recover_inputs(&dir).unwrap_err().to_string();
    assert!(err.contains("does not belong"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn crypto_corrupted_nist_signatures_fail_verify_naming_both_values() {
    for curve in ["p256", "p384"] {
        let file = format!("{curve}.json");
        let mut flipped = (String::new(), String::new());
        let dir = edited(curve, &file, |j| {
            flipped = flip(&mut j["cases"][0]["rfc6979"]["r"]);
            flip(&mut j["cases"][2]["random"]["s"]);
        });
        let (old_r, new_r) = flipped;
        let ctx = Ctx {
            vectors: dir.clone(),
        };

        let err = verify_err(&ctx, &format!("crypto/{curve}-sign/32B"), curve);
        assert_eq!(err.case, "0");
        assert!(err.expected.starts_with(&new_r), "{err}");
        assert!(err.actual.starts_with(&old_r), "{err}");
        // ring's random-nonce signatures are checked against the key, not
        // the vector's signature.
        let ring = find(&format!("crypto/{curve}-sign/32B"), "ring");
        (ring.build)(&ctx).unwrap().verify().unwrap();

        for lib in [curve, "ring"] {
            let err = verify_err(&ctx, &format!("crypto/{curve}-verify/32B"), lib);
            assert_eq!(err.case, "2", "{curve} {lib}");
            assert_eq!(
                (err.expected.as_str(), err.actual.as_str()),
                ("true", "false")
            );
        }
        std::fs::remove_dir_all(dir).unwrap();
    }
}

#[test]
fn crypto_ring_signatures_are_rejected_under_the_wrong_key() {
    fn swapped<C: nist::Curve>() -> Mismatch {
        let mut inputs = nist::ring_sign_inputs::<C>(&ctx()).unwrap();
        let (a, b) = inputs.split_at_mut(1);
        std::mem::swap(&mut a[0].check, &mut b[0].check);
        let rng = ring::rand::SystemRandom::new();
        let op = move |c: &nist::RingSign<C>| nist::ring_sign(c, &rng);
        let mut w = dyno_workload::Cases::checked(inputs, op, nist::check_ring_sign::<C>);
        dyno_workload::Workload::verify(&mut w).unwrap_err()
    }
    for err in [swapped::<nist::P256>(), swapped::<nist::P384>()] {
        assert_eq!(err.case, "0");
        assert!(
            err.expected.contains("accepts") && err.actual.ends_with("rejected"),
            "{err}"
        );
    }
}

#[test]
fn crypto_missing_and_malformed_vectors_are_build_errors_naming_the_file() {
    let missing = Ctx {
        vectors: PathBuf::from("/nonexistent/dyno-vectors"),
    };
    for def in defs() {
        let err = (def.build)(&missing)
            .err()
            .expect("built without vectors")
            .to_string();
        assert!(err.contains("/nonexistent/dyno-vectors/"), "{err}");
    }
    assert!(recover_inputs(Path::new("/nonexistent")).is_err());

    let dir = edited("badv", secp::FILE, |j| j["cases"][3]["v"] = 27.into());
    let err = build_error("crypto/secp256k1-sign/recid-direct", "k256", &dir);
    assert!(
        err.contains("secp256k1.json: case 3: v: 27 is not a recovery id"),
        "{err}"
    );
    std::fs::remove_dir_all(dir).unwrap();

    let dir = edited("shortr", "p384.json", |j| {
        j["cases"][1]["rfc6979"]["r"] = "0x0102".into()
    });
    let err = build_error("crypto/p384-sign/32B", "p384", &dir);
    assert!(
        err.contains("p384.json: case 1: rfc6979.r: 2 bytes, expected 48"),
        "{err}"
    );
    std::fs::remove_dir_all(dir).unwrap();

    let dir = edited("nohash", secp::FILE, |j| {
        j["cases"][0]
            .as_object_mut()
            .unwrap()
            .remove("message_hash");
    });
    let err = build_error("crypto/secp256k1-verify/valid", "libsecp256k1", &dir);
    assert!(
        err.contains("secp256k1.json: malformed vector file") && err.contains("message_hash"),
        "{err}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// Extra cases beyond the vectors: keys and hashes from `seq`.
fn generated(n: u64) -> Vec<secp::Case> {
    (0..n)
        .map(|i| {
            let private_key: [u8; 32] = seq(1000 + i, 32).try_into().unwrap();
            let sk = secp256k1::SecretKey::from_byte_array(private_key).unwrap();
            let hash: [u8; 32] = seq(2000 + i, 32).try_into().unwrap();
            let sig = secp256k1::SECP256K1
                .sign_ecdsa_recoverable(secp256k1::Message::from_digest(hash), &sk);
            let (v, rs) = sig.serialize_compact();
            secp::Case {
                private_key,
                public_key: secp256k1::PublicKey::from_secret_key(secp256k1::SECP256K1, &sk)
                    .serialize_uncompressed(),
                hash,
                rs,
                v: i32::from(v) as u8,
            }
        })
        .collect()
}

#[test]
fn crypto_secp256k1_libraries_agree_and_trial_matches_direct_recovery_ids() {
    let (path, mut cases) = secp::load(&ctx()).unwrap();
    cases.extend(generated(64));
    let mut seen_v = [0usize; 2];
    for (k, c) in cases.iter().enumerate() {
        let a = secp::libsecp(&path, k, c).unwrap();
        let b = secp::k256_case(&path, k, c).unwrap();
        // Direct: both libraries, and the vector.
        let (id, rs) = secp::sign_direct_libsecp(&a).serialize_compact();
        let v = i32::from(id) as u8;
        let (sig_b, id_b) = secp::sign_direct_k256(&b).unwrap();
        assert_eq!(rs[..], sig_b.to_bytes()[..], "case {k}: r, s");
        assert_eq!(v, id_b.to_byte(), "case {k}: v");
        assert_eq!((rs, v), (c.rs, c.v), "case {k}: vector");
        // Trial: the same signature and recovery id.
        let (sig_t, id_t) = secp::sign_trial_libsecp(&a);
        assert_eq!(
            (sig_t.serialize_compact(), i32::from(id_t)),
            (rs, i32::from(id)),
            "case {k}: libsecp256k1 trial"
        );
        assert_eq!(
            secp::sign_trial_k256(&b),
            Some((sig_b, id_b)),
            "case {k}: k256 trial"
        );
        seen_v[usize::from(v)] += 1;

        assert!(
            secp::verify_libsecp(&a) && secp::verify_k256(&b),
            "case {k}: verify"
        );
        let rec_a = recover_libsecp256k1(&a.rec).unwrap();
        let rec_b = secp::recover_k256(&b).unwrap();
        assert_eq!(rec_a.as_slice(), rec_b.as_bytes(), "case {k}: recover");
        assert_eq!(rec_a, c.public_key, "case {k}: recover");
        let key_a = secp::keygen_libsecp(&a.sk);
        assert_eq!(
            key_a.as_slice(),
            secp::keygen_k256(&b.sk).as_bytes(),
            "case {k}: keygen"
        );
        assert_eq!(key_a, c.public_key, "case {k}: keygen");
    }
    // Both branches of the trial were exercised.
    assert!(seen_v[0] > 0 && seen_v[1] > 0, "{seen_v:?}");
}

#[test]
fn crypto_trial_recovery_id_depends_on_the_known_key() {
    // With a wrong "known" key the trial can never match v = 0, so it
    // must answer 1: the comparison is really made.
    let (path, cases) = secp::load(&ctx()).unwrap();
    let c = cases
        .iter()
        .find(|c| c.v == 0)
        .expect("a vector with v = 0");
    let other = cases.iter().find(|o| o.public_key != c.public_key).unwrap();
    let mut a = secp::libsecp(&path, 0, c).unwrap();
    a.pk = secp256k1::PublicKey::from_byte_array_uncompressed(other.public_key).unwrap();
    assert_eq!(
        secp::sign_trial_libsecp(&a).1,
        secp256k1::ecdsa::RecoveryId::One
    );
    let mut b = secp::k256_case(&path, 0, c).unwrap();
    b.vk = k256::ecdsa::VerifyingKey::from_sec1_bytes(&other.public_key).unwrap();
    assert_eq!(secp::sign_trial_k256(&b).unwrap().1.to_byte(), 1);
}

#[test]
fn crypto_secp256k1_vector_addresses_match_their_keys() {
    #[derive(serde::Deserialize)]
    struct Addr {
        public_key: String,
        address: String,
    }
    let text = std::fs::read_to_string(vectors().join(secp::FILE)).unwrap();
    let file: serde_json::Value = serde_json::from_str(&text).unwrap();
    let cases: Vec<Addr> = serde_json::from_value(file["cases"].clone()).unwrap();
    assert_eq!(cases.len(), 16);
    for c in cases {
        let key = dyno_workload::unhex(&c.public_key).unwrap();
        let hash = crate::hash::keccak256_tiny(&key[1..]);
        assert_eq!(hex(&hash[12..]), c.address.to_lowercase());
    }
}

#[test]
fn crypto_recover_inputs_are_the_benchmark_inputs() {
    let inputs = recover_inputs(&vectors()).unwrap();
    assert_eq!(inputs.len(), 16);
    for (input, key) in &inputs {
        assert_eq!(recover_libsecp256k1(input), Some(*key));
    }
    // A signature for another message recovers another key.
    let mut wrong = inputs[0].0;
    wrong.message = inputs[1].0.message;
    assert_ne!(recover_libsecp256k1(&wrong), Some(inputs[0].1));
}
