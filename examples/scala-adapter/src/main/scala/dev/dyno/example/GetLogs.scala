package dev.dyno.example

import com.fasterxml.jackson.core.{JsonFactory, JsonParser, JsonToken}
import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.node.ObjectNode
import dev.dyno.protocol.{Hex, Kernel}
import java.nio.ByteBuffer
import java.nio.charset.StandardCharsets
import org.bouncycastle.crypto.digests.KeccakDigest

/** One log of an `eth_getLogs` response, its hex decoded while parsing. */
final case class Log(
    address: Array[Byte],
    topics: Vector[Array[Byte]],
    data: Array[Byte],
    blockNumber: Long,
    transactionHash: Array[Byte],
    logIndex: Long
)

/** A streaming parse of an `eth_getLogs` response into [[Log]] records, with Jackson's parser. */
object GetLogs:
  private val factory = new JsonFactory()

  private def bytes(p: JsonParser, length: Int): Array[Byte] =
    if p.currentToken != JsonToken.VALUE_STRING then throw new IllegalArgumentException(s"expected a hex string at ${p.currentName}")
    Hex.decode(p.getTextCharacters, p.getTextOffset, p.getTextLength, length)

  private def quantity(p: JsonParser): Long =
    if p.currentToken != JsonToken.VALUE_STRING then throw new IllegalArgumentException(s"expected a hex quantity at ${p.currentName}")
    Hex.quantity(p.getTextCharacters, p.getTextOffset, p.getTextLength)

  private def log(p: JsonParser): Log =
    var address = Array.emptyByteArray
    val topics = Vector.newBuilder[Array[Byte]]
    var data = Array.emptyByteArray
    var block = 0L
    var tx = Array.emptyByteArray
    var index = 0L
    while p.nextToken() == JsonToken.FIELD_NAME do
      val name = p.currentName
      p.nextToken()
      name match
        case "address"         => address = bytes(p, 20)
        case "data"            => data = bytes(p, -1)
        case "blockNumber"     => block = quantity(p)
        case "transactionHash" => tx = bytes(p, 32)
        case "logIndex"        => index = quantity(p)
        case "topics" =>
          while p.nextToken() != JsonToken.END_ARRAY do topics += bytes(p, 32)
        case _ => p.skipChildren()
    Log(address, topics.result(), data, block, tx, index)

  /** The logs of `body`, a whole JSON-RPC response. */
  def parse(body: Array[Byte]): Vector[Log] =
    val p = factory.createParser(body)
    try
      val logs = Vector.newBuilder[Log]
      if p.nextToken() != JsonToken.START_OBJECT then throw new IllegalArgumentException("not a JSON object")
      while p.nextToken() == JsonToken.FIELD_NAME do
        val name = p.currentName
        p.nextToken()
        if name == "result" then
          while p.nextToken() == JsonToken.START_OBJECT do logs += log(p)
        else p.skipChildren()
      logs.result()
    finally p.close()

  /** The case schema's digest of the records: Keccak-256 over every log, in order. */
  def digest(logs: Vector[Log]): Array[Byte] =
    val k = new KeccakDigest(256)
    def put(b: Array[Byte]): Unit = k.update(b, 0, b.length)
    for l <- logs do
      put(l.address)
      put(ByteBuffer.allocate(4).putInt(l.topics.size).array)
      l.topics.foreach(put)
      put(ByteBuffer.allocate(4).putInt(l.data.length).array)
      put(l.data)
      put(ByteBuffer.allocate(8).putLong(l.blockNumber).array)
      put(l.transactionHash)
      put(ByteBuffer.allocate(8).putLong(l.logIndex).array)
    val out = new Array[Byte](32)
    k.doFinal(out, 0)
    out

/** `jsonrpc/getlogs-typed/<n>`: input `body`; expected the counts, the last log's address and
  * block, and the records' digest.
  */
final class GetLogsTyped(cases: JsonNode) extends Kernel:
  private val bodies: Array[Array[Byte]] =
    Array.tabulate(cases.size)(i => Kernel.text(Kernel.input(cases.get(i)), "body").getBytes(StandardCharsets.UTF_8))

  override def size(): Int = bodies.length

  override def once(i: Int): ObjectNode =
    val logs = GetLogs.parse(bodies(i))
    val last = logs.lastOption
    Kernel
      .obj()
      .put("logs", logs.size)
      .put("topics", logs.map(_.topics.size.toLong).sum)
      .put("data_bytes", logs.map(_.data.length.toLong).sum)
      .put("last_address", Hex.encode(last.fold(Array.emptyByteArray)(_.address)))
      .put("last_block", last.fold(0L)(_.blockNumber))
      .put("digest", Hex.encode(GetLogs.digest(logs)))

  override def batch(iterations: Int): Long =
    var p = pos
    var acc = 0L
    var k = 0
    while k < iterations do
      val logs = GetLogs.parse(bodies(p))
      acc += logs.size + logs.lastOption.fold(0L)(_.blockNumber)
      p += 1
      if p == bodies.length then p = 0
      k += 1
    pos = p
    acc
