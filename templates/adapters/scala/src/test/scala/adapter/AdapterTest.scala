package adapter

import com.fasterxml.jackson.databind.ObjectMapper
import dev.dyno.protocol.Worker
import java.io.ByteArrayOutputStream
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Test

/** The example benchmark through the protocol loop, in-process. */
class AdapterTest:
  // SHA-256 of 32 zero bytes, from outside this code (FIPS 180-4; coreutils:
  // `head -c 32 /dev/zero | sha256sum`).
  private val zeros = "0x" + "00" * 32
  private val digest = "0x66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
  private val json = new ObjectMapper()
  private val worker = new Worker(Main.adapter(), new ByteArrayOutputStream())

  private def prepare(want: String) = worker.handle(json.readTree(
    s"""{"type":"prepare","id":"hash/sha256/32B","implementation":"{{name}}-sha256","cases":[{"input":{"data":"$zeros"},"expected":{"digest":"$want"}}]}"""
  ))

  @Test def sha256IsCheckedThenTimed(): Unit =
    assertEquals("prepared", prepare(digest).get("type").asText)
    val run = worker.handle(json.readTree("""{"type":"run","iterations":100,"samples":2}"""))
    assertEquals(2, run.get("ns").size)

  @Test def aWrongDigestIsAMismatch(): Unit =
    val r = prepare(zeros)
    assertEquals("mismatch", r.get("type").asText)
    assertEquals("digest", r.get("field").asText)
