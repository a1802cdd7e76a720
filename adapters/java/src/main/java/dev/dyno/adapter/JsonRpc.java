package dev.dyno.adapter;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dyno.protocol.Hex;
import dev.dyno.protocol.Kernel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.bouncycastle.crypto.digests.KeccakDigest;

/**
 * {@code jsonrpc/getlogs-raw/<n>} and {@code jsonrpc/getlogs-typed/<n>} with Jackson. The body is
 * kept as its UTF-8 bytes (prepared once), as an HTTP client would hand them over.
 */
final class JsonRpc {
  private JsonRpc() {}

  static final ObjectMapper MAPPER = new ObjectMapper();

  static byte[][] bodies(JsonNode cases) {
    byte[][] b = new byte[cases.size()][];
    for (int i = 0; i < b.length; i++) {
      b[i] = Kernel.text(Kernel.input(cases.get(i)), "body").getBytes(StandardCharsets.UTF_8);
    }
    return b;
  }

  /** Raw: {@code ObjectMapper.readTree(body)} and the size of {@code result}. */
  static final class Raw extends Kernel {
    private final byte[][] body;

    Raw(JsonNode cases) {
      body = bodies(cases);
    }

    @Override
    public int size() {
      return body.length;
    }

    private int logs(int i) {
      try {
        return MAPPER.readTree(body[i]).get("result").size();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public ObjectNode once(int i) {
      return obj().put("logs", logs(i));
    }

    @Override
    public long batch(int iterations) {
      final int n = body.length;
      int p = pos;
      long acc = 0;
      for (int i = 0; i < iterations; i++) {
        acc += logs(p);
        if (++p == n) {
          p = 0;
        }
      }
      pos = p;
      return acc;
    }
  }

  /** An {@code eth_getLogs} response, only the part a client uses. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  record Response(List<Log> result) {}

  /** One log, with its hex decoded into bytes and integers while parsing. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  record Log(
      @JsonDeserialize(using = Address.class) byte[] address,
      @JsonDeserialize(contentUsing = Hash32.class) List<byte[]> topics,
      @JsonDeserialize(using = Bytes.class) byte[] data,
      @JsonDeserialize(using = Quantity.class) long blockNumber,
      @JsonDeserialize(using = Hash32.class) byte[] transactionHash,
      @JsonDeserialize(using = Quantity.class) long transactionIndex,
      @JsonDeserialize(using = Hash32.class) byte[] blockHash,
      @JsonDeserialize(using = Quantity.class) long logIndex,
      boolean removed) {}

  /** Hex string to bytes, straight from the parser's character buffer. */
  abstract static class HexDeserializer extends StdDeserializer<byte[]> {
    private static final long serialVersionUID = 1L;
    private final int length;

    HexDeserializer(int length) {
      super(byte[].class);
      this.length = length;
    }

    @Override
    public byte[] deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      if (p.currentToken() != JsonToken.VALUE_STRING) {
        return (byte[]) ctxt.handleUnexpectedToken(byte[].class, p);
      }
      try {
        return Hex.decode(p.getTextCharacters(), p.getTextOffset(), p.getTextLength(), length);
      } catch (IllegalArgumentException e) {
        throw ctxt.weirdStringException(p.getText(), byte[].class, e.getMessage());
      }
    }
  }

  /** 20-byte address. */
  static final class Address extends HexDeserializer {
    private static final long serialVersionUID = 1L;

    Address() {
      super(20);
    }
  }

  /** 32-byte hash or topic. */
  static final class Hash32 extends HexDeserializer {
    private static final long serialVersionUID = 1L;

    Hash32() {
      super(32);
    }
  }

  /** Any-length byte string. */
  static final class Bytes extends HexDeserializer {
    private static final long serialVersionUID = 1L;

    Bytes() {
      super(-1);
    }
  }

  /** Hex quantity ({@code 0x1b4}) to a long. */
  static final class Quantity extends StdDeserializer<Long> {
    private static final long serialVersionUID = 1L;

    Quantity() {
      super(Long.class);
    }

    @Override
    public Long deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      if (p.currentToken() != JsonToken.VALUE_STRING) {
        return (Long) ctxt.handleUnexpectedToken(Long.class, p);
      }
      try {
        return Hex.quantity(p.getTextCharacters(), p.getTextOffset(), p.getTextLength());
      } catch (IllegalArgumentException e) {
        throw ctxt.weirdStringException(p.getText(), Long.class, e.getMessage());
      }
    }
  }

  /** What the typed parse produces: the counts the expected output asks for. */
  record Summary(int logs, long topics, long dataBytes, byte[] lastAddress, long lastBlock) {
    static Summary of(Response r) {
      List<Log> logs = r.result();
      long topics = 0;
      long data = 0;
      for (Log l : logs) {
        topics += l.topics().size();
        data += l.data().length;
      }
      Log last = logs.isEmpty() ? null : logs.get(logs.size() - 1);
      return new Summary(
          logs.size(),
          topics,
          data,
          last == null ? new byte[0] : last.address(),
          last == null ? 0 : last.blockNumber());
    }
  }

  /**
   * The records digest of the case schema: Keccak-256 over every log, in order, of address, u32 BE
   * topic count, topics, u32 BE data length, data, u64 BE block number, transaction hash, u64 BE
   * log index.
   */
  static byte[] digest(List<Log> logs) {
    KeccakDigest k = new KeccakDigest(256);
    for (Log l : logs) {
      k.update(l.address(), 0, l.address().length);
      k.update(ByteBuffer.allocate(4).putInt(l.topics().size()).array(), 0, 4);
      for (byte[] t : l.topics()) {
        k.update(t, 0, t.length);
      }
      k.update(ByteBuffer.allocate(4).putInt(l.data().length).array(), 0, 4);
      k.update(l.data(), 0, l.data().length);
      k.update(ByteBuffer.allocate(8).putLong(l.blockNumber()).array(), 0, 8);
      k.update(l.transactionHash(), 0, l.transactionHash().length);
      k.update(ByteBuffer.allocate(8).putLong(l.logIndex()).array(), 0, 8);
    }
    byte[] out = new byte[32];
    k.doFinal(out, 0);
    return out;
  }

  /**
   * Typed: parse into {@link Response} records and summarise them. At prepare the records are also
   * digested ({@link #digest}), outside the timed loop.
   */
  static final class Typed extends Kernel {
    private final ObjectReader reader = MAPPER.readerFor(Response.class);
    private final byte[][] body;

    Typed(JsonNode cases) {
      body = bodies(cases);
    }

    @Override
    public int size() {
      return body.length;
    }

    private Response read(int i) {
      try {
        return reader.readValue(body[i]);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    private Summary parse(int i) {
      return Summary.of(read(i));
    }

    @Override
    public ObjectNode once(int i) {
      Response r = read(i);
      Summary s = Summary.of(r);
      return obj()
          .put("logs", s.logs())
          .put("topics", s.topics())
          .put("data_bytes", s.dataBytes())
          .put("last_address", Hex.encode(s.lastAddress()))
          .put("last_block", s.lastBlock())
          .put("digest", Hex.encode(digest(r.result())));
    }

    @Override
    public long batch(int iterations) {
      final int n = body.length;
      int p = pos;
      long acc = 0;
      for (int i = 0; i < iterations; i++) {
        Summary s = parse(p);
        acc += s.logs() + s.topics() + s.dataBytes() + s.lastBlock();
        if (++p == n) {
          p = 0;
        }
      }
      pos = p;
      return acc;
    }
  }
}
