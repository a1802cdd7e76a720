package dev.dyno.example

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.node.ObjectNode
import dev.dyno.protocol.{Hex, Kernel}
import org.bouncycastle.crypto.digests.KeccakDigest

/** `hash/keccak256/<size>`: input `data`, expected `digest`; BouncyCastle's Keccak from Scala. */
final class Keccak(cases: JsonNode) extends Kernel:
  private val data: Array[Array[Byte]] =
    Array.tabulate(cases.size)(i => Kernel.hex(Kernel.input(cases.get(i)), "data"))
  private val digest = new KeccakDigest(256)
  private val out = new Array[Byte](32)

  private def hash(d: Array[Byte]): Array[Byte] =
    digest.update(d, 0, d.length)
    digest.doFinal(out, 0)
    out

  override def size(): Int = data.length

  override def once(i: Int): ObjectNode = Kernel.obj().put("digest", Hex.encode(hash(data(i)).clone()))

  override def batch(iterations: Int): Long =
    var p = pos
    var acc = 0L
    var k = 0
    while k < iterations do
      acc += hash(data(p))(0)
      p += 1
      if p == data.length then p = 0
      k += 1
    pos = p
    acc
