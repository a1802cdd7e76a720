use super::*;

const SPECS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../specs");

fn schedule(fork: &str) -> Schedule {
    Schedule::for_fork(Path::new(SPECS), fork).unwrap()
}

#[test]
fn known_constants() {
    for fork in ["prague", "osaka"] {
        let s = schedule(fork);
        let gas = |p: &str, input: &[u8]| s.nominal_gas(p, input).unwrap();
        assert_eq!(gas("ecrecover", &[0; 128]), 3000);
        assert_eq!(gas("ecrecover", &[]), 3000);
        assert_eq!(gas("sha256", &[]), 60);
        assert_eq!(gas("sha256", &[0; 33]), 60 + 2 * 12);
        assert_eq!(gas("ripemd160", &[0; 32]), 600 + 120);
        assert_eq!(gas("identity", &[0; 64]), 15 + 2 * 3);
        assert_eq!(gas("bn254-add", &[0; 128]), 150);
        assert_eq!(gas("bn254-mul", &[0; 96]), 6000);
        for k in 0..5 {
            assert_eq!(
                gas("bn254-pairing", &vec![0; 192 * k]),
                45000 + 34000 * k as u64
            );
            assert_eq!(
                gas("bls12-pairing", &vec![0; 384 * k]),
                37700 + 32600 * k as u64
            );
        }
        let mut blake = vec![0u8; 213];
        for rounds in [0u32, 1, 12, 0x0102_0304, u32::MAX] {
            blake[..4].copy_from_slice(&rounds.to_be_bytes());
            assert_eq!(gas("blake2f", &blake), u64::from(rounds));
        }
        assert_eq!(gas("blake2f", &blake[..212]), 0, "wrong length: 0, as geth");
        assert_eq!(gas("kzg-point-evaluation", &[0; 192]), 50000);
        assert_eq!(gas("bls12-g1add", &[0; 256]), 375);
        assert_eq!(gas("bls12-g2add", &[0; 512]), 600);
        assert_eq!(gas("bls12-map-fp-to-g1", &[0; 64]), 5500);
        assert_eq!(gas("bls12-map-fp2-to-g2", &[0; 128]), 23800);
        // MSM: no pair costs 0; one pair is a plain multiplication; past
        // the table the last discount holds.
        assert_eq!(gas("bls12-g1msm", &[0; 159]), 0);
        assert_eq!(gas("bls12-g1msm", &[0; 160]), 12000);
        assert_eq!(gas("bls12-g1msm", &[0; 320]), 2 * 12000 * 949 / 1000);
        assert_eq!(
            gas("bls12-g1msm", &vec![0; 160 * 200]),
            200 * 12000 * 519 / 1000
        );
        assert_eq!(gas("bls12-g2msm", &[0; 288]), 22500);
        assert_eq!(
            gas("bls12-g2msm", &vec![0; 288 * 128]),
            128 * 22500 * 524 / 1000
        );
    }
    let osaka = schedule("osaka");
    assert_eq!(osaka.nominal_gas("p256verify", &[0; 160]).unwrap(), 6900);
    let err = schedule("prague")
        .nominal_gas("p256verify", &[0; 160])
        .unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("prague") && msg.contains("p256verify"),
        "{msg}"
    );
    assert!(msg.contains("known: ecrecover, sha256"), "{msg}");
}

#[test]
fn precompiles_in_address_order() {
    let prague = schedule("prague");
    let osaka = schedule("osaka");
    // Every precompile of the operation table is in Osaka, in address
    // order; Prague has all but P256VERIFY (EIP-7951, Osaka).
    let mut known = known();
    known.sort_by_key(|n| osaka.get(n).unwrap().address);
    assert_eq!(osaka.precompiles(), known);
    known.retain(|n| *n != "p256verify");
    assert_eq!(prague.precompiles(), known);
    for n in osaka.precompiles() {
        assert_eq!(built_in_osaka().get(n).unwrap(), osaka.get(n).unwrap());
    }
    assert_eq!(prague.get("modexp").unwrap().address, 5);
    assert_eq!(osaka.get("p256verify").unwrap().address, 0x100);
    assert_eq!(osaka.get("modexp").unwrap().source, "EIP-7883");
    assert_eq!(
        osaka.get("modexp").unwrap().formula.kind(),
        "modexp-eip7883"
    );
    assert_eq!(
        prague.get("modexp").unwrap().formula.kind(),
        "modexp-eip2565"
    );
    // Only modexp and p256verify differ between the forks.
    let changed: Vec<&str> = osaka
        .precompiles()
        .into_iter()
        .filter(|p| prague.get(p).ok() != osaka.get(p).ok())
        .collect();
    assert_eq!(changed, ["modexp", "p256verify"]);
    assert_eq!(Schedule::forks(Path::new(SPECS)), ["osaka", "prague"]);
}

#[test]
fn modexp_edges_follow_geth() {
    let header = |b: u64, e: u64, m: u64| {
        let mut v = vec![0u8; 96];
        v[24..32].copy_from_slice(&b.to_be_bytes());
        v[56..64].copy_from_slice(&e.to_be_bytes());
        v[88..96].copy_from_slice(&m.to_be_bytes());
        v
    };
    let prague = schedule("prague");
    let osaka = schedule("osaka");
    let p = |i: &[u8]| prague.nominal_gas("modexp", i).unwrap();
    let o = |i: &[u8]| osaka.nominal_gas("modexp", i).unwrap();
    // Empty input: the minimum.
    assert_eq!((p(&[]), o(&[])), (200, 500));
    // geth's oss_fuzz_gas_calc lengths: the price overflows to u64::MAX.
    let fuzz = header(0x828, 0x4000_0000_0000_0009, 0x600);
    assert_eq!((p(&fuzz), o(&fuzz)), (u64::MAX, u64::MAX));
    // A length beyond 64 bits saturates too.
    let mut huge = header(0, 0, 0);
    huge[0] = 1;
    assert_eq!((p(&huge), o(&huge)), (u64::MAX, u64::MAX));
    // 64-byte operands, 40-byte exponent 0x01 00..: the head (32 bytes)
    // has 249 bits, so 8 * 8 + 248 iterations (Prague), 16 * 8 + 248
    // (Osaka).
    let mut i = header(64, 40, 64);
    i.extend(vec![0xaa; 64]);
    let mut exp = vec![0u8; 40];
    exp[0] = 1;
    i.extend(exp);
    assert_eq!(p(&i), 64 * (64 + 248) / 3);
    assert_eq!(o(&i), 2 * 64 * (128 + 248));
    // The head is read only when the body reaches past the base.
    let mut short = header(256, 1, 256);
    short.extend(vec![0xff; 256]);
    assert_eq!(p(&short), 32 * 32 / 3);
    short.push(0xff);
    assert_eq!(p(&short), 32 * 32 * 7 / 3);
}

fn load_text(text: &str) -> Result<Schedule, String> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.toml");
    std::fs::write(&path, text).unwrap();
    Schedule::load(&path).map_err(|e| e.to_string())
}

#[test]
fn malformed_schedules_name_file_line_and_key() {
    let good = "fork = \"x\"\n\n[precompile.ecrecover]\naddress = 1\nsource = \"YP\"\nkind = \"fixed\"\ngas = 3000\n";
    assert_eq!(
        load_text(good)
            .unwrap()
            .nominal_gas("ecrecover", &[])
            .unwrap(),
        3000
    );
    for (text, want) in [
        // Not TOML.
        (good.replace("gas = 3000", "gas 3000"), "broken.toml:7:"),
        // A typo in a key.
        (
            good.replace("gas = 3000", "gass = 3000"),
            "broken.toml:7: unknown field `gass`",
        ),
        // A kind that does not exist.
        (
            good.replace("\"fixed\"", "\"flat\""),
            "broken.toml:6: unknown variant `flat`",
        ),
        // A number that is not one.
        (good.replace("3000", "\"3000\""), "broken.toml:7:"),
        // A key the kind does not use.
        (
            good.replace("gas = 3000", "gas = 3000\nbase = 1"),
            "broken.toml:8: precompile.ecrecover.base: kind \"fixed\" does not use",
        ),
        // A key the kind needs.
        (
            good.replace("gas = 3000", ""),
            "broken.toml:3: precompile.ecrecover.gas: missing",
        ),
        // A precompile dyno does not know.
        (
            good.replace("ecrecover", "ecrecovr"),
            "broken.toml:3: precompile.ecrecovr: not a precompile dyno knows",
        ),
        // A zero divisor.
        (
            good.replace(
                "kind = \"fixed\"\ngas = 3000",
                "kind = \"per-word\"\nbase = 1\nper_word = 1\nword_bytes = 0",
            ),
            "broken.toml:9: precompile.ecrecover.word_bytes: must be at least 1",
        ),
        // No fork.
        (
            good.replace("fork = \"x\"", ""),
            "broken.toml:1: missing field `fork`",
        ),
    ] {
        let err = load_text(&text).unwrap_err();
        assert!(err.contains(want), "want {want:?} in {err:?}");
    }
    // An empty discount table.
    let msm = "fork = \"x\"\n[precompile.bls12-g1msm]\naddress = 12\nsource = \"EIP-2537\"\nkind = \"msm\"\npair_bytes = 160\nmul_gas = 1\ndiscount_divisor = 1\ndiscount = []\n";
    let err = load_text(msm).unwrap_err();
    assert!(
        err.contains("broken.toml:9: precompile.bls12-g1msm.discount: the discount table is empty"),
        "{err}"
    );
    // Two precompiles at one address.
    let twice = format!(
        "{good}\n[precompile.sha256]\naddress = 1\nsource = \"YP\"\nkind = \"fixed\"\ngas = 1\n"
    );
    let err = load_text(&twice).unwrap_err();
    assert!(
        err.contains(":9: precompile.sha256.address: 0x1 is also the address of ecrecover"),
        "{err}"
    );
}

#[test]
fn errors_in_the_real_files_point_at_the_line() {
    let path = Path::new(SPECS).join("gas/osaka.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let line = |needle: &str| text.lines().position(|l| l == needle).unwrap() + 1;
    let (exp, min, header) = (
        line("exp_multiplier = 16"),
        line("min_gas = 500"),
        line("[precompile.modexp]"),
    );
    for (from, to, want) in [
        (
            "exp_multiplier = 16",
            "exp_multiplyer = 16",
            format!("osaka.toml:{exp}: unknown field `exp_multiplyer`"),
        ),
        (
            "min_gas = 500",
            "min_gas = 500\ndivisor = 3",
            format!(
                "osaka.toml:{}: precompile.modexp.divisor: kind \"modexp-eip7883\" does not use `divisor`",
                min + 1
            ),
        ),
        (
            "min_gas = 500\n",
            "",
            format!("osaka.toml:{header}: precompile.modexp.min_gas: missing"),
        ),
    ] {
        let err = Schedule::parse(&text.replacen(from, to, 1), &path)
            .unwrap_err()
            .to_string();
        assert!(err.contains(&want), "want {want:?} in {err:?}");
    }
}

#[test]
fn fork_files_are_found_and_must_agree() {
    let err = Schedule::for_fork(Path::new(SPECS), "amsterdam")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("amsterdam.toml") && err.contains("known forks: osaka, prague"),
        "{err}"
    );

    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("gas")).unwrap();
    let text = std::fs::read_to_string(Path::new(SPECS).join("gas/prague.toml")).unwrap();
    std::fs::write(dir.path().join("gas/cancun.toml"), text).unwrap();
    let err = Schedule::for_fork(dir.path(), "cancun")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("cancun.toml:") && err.contains("fork: says \"prague\""),
        "{err}"
    );
}
