package dev.dyno.example

import com.fasterxml.jackson.databind.ObjectMapper
import dev.dyno.protocol.Worker
import java.io.ByteArrayOutputStream
import org.junit.jupiter.api.Assertions.{assertEquals, assertTrue}
import org.junit.jupiter.api.Test

/** The Scala benchmarks through the protocol loop, against values from outside this code. */
class AdapterTest:
  private val json = new ObjectMapper()
  private val worker = new Worker(Main.adapter(), new ByteArrayOutputStream())

  private def ask(req: String) = worker.handle(json.readTree(req))

  private def prepare(id: String, cases: String) =
    ask(s"""{"type":"prepare","id":"$id","implementation":"scala-example","cases":$cases}""")

  // Keccak-256 of the empty string (the Keccak team's known answer, also go-ethereum's
  // crypto.Keccak256(nil)).
  @Test def keccakOfNothing(): Unit =
    val r = prepare(
      "hash/keccak256/1B",
      """[{"input":{"data":"0x"},"expected":{"digest":"0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"}}]"""
    )
    assertEquals("prepared", r.get("type").asText, r.toString)
    val run = ask("""{"type":"run","iterations":100,"samples":2}""")
    assertEquals(2, run.get("ns").size)

  // Ethereum's EIP-155 example transaction: signed by the key 0x4646...46, whose address is
  // 0x9d8a62f656a8d1615c1294fd71e9cfb3e4855a4f; its signing hash, r, s and recovery id (v = 37 - 35 - 2*1 = 0)
  // are in the EIP. The recovered key must hash to that address.
  @Test def recoverFindsTheEip155Signer(): Unit =
    val hash = hex("daf5a779ae972f972197303d7b574746c7ef83eadac0f2791ad23db92e4c8e53")
    val r = BigInt("18515461264373351373200002665853028612451056578545711640558177340181847433846").bigInteger
    val s = BigInt("46948507304638947509940763649030358759909902576025900602547168820602576006531").bigInteger
    val key = Secp256k1.recover(hash, r, s, 0).getOrElse(throw new AssertionError("no key"))
    val k = new org.bouncycastle.crypto.digests.KeccakDigest(256)
    k.update(key, 1, 64)
    val out = new Array[Byte](32)
    k.doFinal(out, 0)
    assertEquals("9d8a62f656a8d1615c1294fd71e9cfb3e4855a4f", out.drop(12).map("%02x".format(_)).mkString)
    // and the wrong parity recovers another key
    assertTrue(Secp256k1.recover(hash, r, s, 1).forall(!_.sameElements(key)))

  @Test def getLogsCountsAndDigests(): Unit =
    val body =
      """{"jsonrpc":"2.0","id":1,"result":[{"address":"0x00000000000000000000000000000000000000aa","topics":["0x0000000000000000000000000000000000000000000000000000000000000001"],"data":"0x0102","blockNumber":"0x10","transactionHash":"0x00000000000000000000000000000000000000000000000000000000000000ff","transactionIndex":"0x0","blockHash":"0x00000000000000000000000000000000000000000000000000000000000000ee","logIndex":"0x2","removed":false}]}"""
    val logs = GetLogs.parse(body.getBytes("UTF-8"))
    assertEquals(1, logs.size)
    assertEquals(16L, logs.head.blockNumber)
    assertEquals(2L, logs.head.logIndex)
    assertEquals(2, logs.head.data.length)

  @Test def helloOffersTheThreeFamiliesAndTheHarness(): Unit =
    val h = ask("""{"type":"hello","protocol":1}""")
    val ids = (0 until h.get("benchmarks").size).map(i => h.get("benchmarks").get(i).get("id").asText).toSet
    for id <- List("crypto/secp256k1-recover/valid", "hash/keccak256/32B", "jsonrpc/getlogs-typed/100", "harness/sleep/1ms") do
      assertTrue(ids.contains(id), id)

  private def hex(s: String): Array[Byte] = s.grouped(2).map(Integer.parseInt(_, 16).toByte).toArray
