package adapter

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.node.ObjectNode
import dev.dyno.protocol.{Hex, Kernel}
import java.security.MessageDigest

/** The example: SHA-256 from the JDK on dyno's hash/sha256 ids (input `data`, output `digest`). */
final class Sha256(cases: JsonNode) extends Kernel:
  private val data: Array[Array[Byte]] =
    Array.tabulate(cases.size)(i => Kernel.hex(Kernel.input(cases.get(i)), "data"))
  private val md = MessageDigest.getInstance("SHA-256")

  override def size(): Int = data.length

  override def once(i: Int): ObjectNode = Kernel.obj().put("digest", Hex.encode(md.digest(data(i))))

  override def batch(iterations: Int): Long =
    var p = pos
    var acc = 0L
    var k = 0
    while k < iterations do
      acc += md.digest(data(p))(0)
      p += 1
      if p == data.length then p = 0
      k += 1
    pos = p
    acc
