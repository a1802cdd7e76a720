package dev.dyno.adapter;

import com.fasterxml.jackson.databind.JsonNode;
import dev.dyno.protocol.Benchmarks;
import dev.dyno.protocol.Kernel;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import org.bouncycastle.crypto.Digest;
import org.bouncycastle.crypto.digests.Blake2bDigest;
import org.bouncycastle.crypto.digests.Blake2sDigest;
import org.bouncycastle.crypto.digests.KeccakDigest;
import org.bouncycastle.crypto.digests.RIPEMD160Digest;
import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.digests.SHA384Digest;
import org.bouncycastle.crypto.digests.SHA512Digest;

/** Every (id, implementation) this adapter offers, and how to prepare it (the protocol library adds the harness ids). */
final class Registry {
  static final String BC = "bouncycastle";
  static final String WEB3J = "web3j";
  /** The key of org.web3j:rlp in dyno-adapter.properties (its implementation name is web3j). */
  static final String WEB3J_RLP = "web3j-rlp";
  static final String JACKSON = "jackson";
  static final String KZG = "jc-kzg-4844";

  private final Benchmarks benchmarks = new Benchmarks();

  Registry(Map<String, String> libraries) {
    String bc = libraries.getOrDefault(BC, "-");
    String web3j = libraries.getOrDefault(WEB3J, "-");
    String web3jRlp = libraries.getOrDefault(WEB3J_RLP, "-");
    String jackson = libraries.getOrDefault(JACKSON, "-");
    String kzg = libraries.getOrDefault(KZG, "-");

    Map<String, Supplier<Digest>> digests = new LinkedHashMap<>();
    digests.put("keccak256", () -> new KeccakDigest(256));
    digests.put("sha256", SHA256Digest::new);
    digests.put("sha384", SHA384Digest::new);
    digests.put("sha512", SHA512Digest::new);
    digests.put("ripemd160", RIPEMD160Digest::new);
    digests.put("blake2b512", () -> new Blake2bDigest(512));
    digests.put("blake2s256", () -> new Blake2sDigest(256));
    for (String size : List.of("1B", "32B", "1KiB", "100KiB")) {
      for (Map.Entry<String, Supplier<Digest>> d : digests.entrySet()) {
        Supplier<Digest> f = d.getValue();
        add("hash/" + d.getKey() + "/" + size, BC, bc, c -> new Hashes.Bc(f, c));
      }
      add("hash/keccak256/" + size, WEB3J, web3j, Hashes.Web3jKeccak::new);
    }

    add("crypto/secp256k1-sign/recid-trial", BC, bc, Secp256k1Bc.SignTrial::new);
    add("crypto/secp256k1-sign/recid-direct", BC, bc, Secp256k1Bc.SignDirect::new);
    add("crypto/secp256k1-verify/valid", BC, bc, Secp256k1Bc.Verify::new);
    add("crypto/secp256k1-keygen/pubkey", BC, bc, Secp256k1Bc.Keygen::new);
    add("crypto/p256-sign/32B", BC, bc, c -> new NistBc.Sign(NistBc.P256, c));
    add("crypto/p384-sign/32B", BC, bc, c -> new NistBc.Sign(NistBc.P384, c));
    add("crypto/p256-verify/32B", BC, bc, c -> new NistBc.Verify(NistBc.P256, c));
    add("crypto/p384-verify/32B", BC, bc, c -> new NistBc.Verify(NistBc.P384, c));

    add("crypto/secp256k1-sign/recid-trial", WEB3J, web3j, Web3j.SignTrial::new);
    add("crypto/secp256k1-recover/valid", WEB3J, web3j, Web3j.Recover::new);
    add("crypto/secp256k1-keygen/pubkey", WEB3J, web3j, Web3j.Keygen::new);

    for (String n : List.of("100", "1000", "5000")) {
      add("jsonrpc/getlogs-raw/" + n, JACKSON, jackson, JsonRpc.Raw::new);
      add("jsonrpc/getlogs-typed/" + n, JACKSON, jackson, JsonRpc.Typed::new);
    }

    for (String in :
        List.of(
            "tiny-account",
            "small-legacy-tx",
            "small-eip1559-tx",
            "small-header",
            "medium-receipts",
            "medium-body",
            "large-body",
            "large-receipts",
            "vlarge-body")) {
      add("rlp/decode-generic/" + in, WEB3J, web3jRlp, Rlp.Decode::new);
      add("rlp/encode-generic/" + in, WEB3J, web3jRlp, Rlp.Encode::new);
    }

    benchmarks.addPattern(
        "precompile/kzg-point-evaluation/*", KZG, kzg, Kzg.PointEvaluation::new);
  }

  private void add(String id, String impl, String library, Function<JsonNode, Kernel> make) {
    benchmarks.add(id, impl, library, make);
  }

  /** What the protocol library serves. */
  Benchmarks benchmarks() {
    return benchmarks;
  }
}
