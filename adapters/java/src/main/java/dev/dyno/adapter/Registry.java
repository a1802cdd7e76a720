package dev.dyno.adapter;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
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

/** Every (id, implementation) this worker can run, and how to prepare it. */
final class Registry {
  /** One benchmark entry: its id, implementation, library coordinate and kernel factory. */
  record Entry(String id, String implementation, String library, Function<JsonNode, Kernel> make) {}

  static final String BC = "bouncycastle";
  static final String WEB3J = "web3j";
  /** The key of org.web3j:rlp in dyno-adapter.properties (its implementation name is web3j). */
  static final String WEB3J_RLP = "web3j-rlp";
  static final String JACKSON = "jackson";
  static final String NOOP = "java-noop";
  static final String KZG = "jc-kzg-4844";

  private final Map<String, Entry> entries = new LinkedHashMap<>();
  /** Families whose inputs come from outside files: ids with `*` standing for one path segment. */
  private final List<Entry> patterns = new ArrayList<>();

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

    add("harness/noop/empty", NOOP, "-", Noop::new);

    patterns.add(
        new Entry("precompile/kzg-point-evaluation/*", KZG, kzg, Kzg.PointEvaluation::new));
  }

  private void add(String id, String impl, String library, Function<JsonNode, Kernel> make) {
    entries.put(id + "\n" + impl, new Entry(id, impl, library, make));
  }

  Entry find(String id, String implementation) {
    Entry e = entries.get(id + "\n" + implementation);
    if (e != null) {
      return e;
    }
    for (Entry p : patterns) {
      if (p.implementation().equals(implementation) && matches(p.id(), id)) {
        return p;
      }
    }
    return null;
  }

  /** True if {@code pattern} covers {@code id}: same segments, `*` matching exactly one (non-empty). */
  static boolean matches(String pattern, String id) {
    String[] want = pattern.split("/", -1);
    String[] have = id.split("/", -1);
    if (want.length != have.length) {
      return false;
    }
    for (int i = 0; i < want.length; i++) {
      if (want[i].equals("*") ? have[i].isEmpty() : !want[i].equals(have[i])) {
        return false;
      }
    }
    return true;
  }

  /** hello's {@code patterns}. */
  List<Entry> patterns() {
    return new ArrayList<>(patterns);
  }

  List<Entry> all() {
    return new ArrayList<>(entries.values());
  }
}
