package dev.dyno.example

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.node.ObjectNode
import dev.dyno.protocol.{Hex, Kernel}
import java.math.BigInteger
import org.bouncycastle.crypto.ec.CustomNamedCurves
import org.bouncycastle.math.ec.{ECAlgorithms, ECPoint}

/** secp256k1 public-key recovery (SEC 1 v2, 4.1.6) in Scala over BouncyCastle's curve arithmetic. */
object Secp256k1:
  private val params = CustomNamedCurves.getByName("secp256k1")
  private val n: BigInteger = params.getN

  /** The 65-byte uncompressed key that signed `hash` as (r, s) with y parity `v`; None if none. */
  def recover(hash: Array[Byte], r: BigInteger, s: BigInteger, v: Int): Option[Array[Byte]] =
    if r.signum <= 0 || r.compareTo(n) >= 0 || s.signum <= 0 || s.compareTo(n) >= 0 then None
    else
      val x = new Array[Byte](33)
      x(0) = (if v == 1 then 0x03 else 0x02).toByte
      val rb = r.toByteArray
      val len = math.min(rb.length, 32)
      System.arraycopy(rb, rb.length - len, x, 33 - len, len)
      val point: Option[ECPoint] =
        try Some(params.getCurve.decodePoint(x))
        catch case _: IllegalArgumentException => None
      point.flatMap { big =>
        val e = new BigInteger(1, hash).mod(n)
        val rInv = r.modInverse(n)
        val u1 = e.negate.mod(n).multiply(rInv).mod(n)
        val u2 = s.multiply(rInv).mod(n)
        val q = ECAlgorithms.sumOfTwoMultiplies(params.getG, u1, big, u2).normalize()
        if q.isInfinity then None else Some(q.getEncoded(false))
      }

/** `crypto/secp256k1-recover/valid`: input `message_hash`, `r`, `s`, `v`; expected `public_key`. */
final class Recover(cases: JsonNode) extends Kernel:
  private case class Sig(hash: Array[Byte], r: BigInteger, s: BigInteger, v: Int)

  private val sigs: Array[Sig] = Array.tabulate(cases.size) { i =>
    val in = Kernel.input(cases.get(i))
    val v = Kernel.number(in, "v")
    require(v == 0 || v == 1, "input.v must be 0 or 1")
    Sig(
      Kernel.hex(in, "message_hash", 32),
      new BigInteger(1, Kernel.hex(in, "r", 32)),
      new BigInteger(1, Kernel.hex(in, "s", 32)),
      v.toInt
    )
  }

  private def run(i: Int): Array[Byte] =
    val g = sigs(i)
    Secp256k1
      .recover(g.hash, g.r, g.s, g.v)
      .getOrElse(throw new Kernel.Mismatch("public_key", "a key", "no key recovers"))

  override def size(): Int = sigs.length

  override def once(i: Int): ObjectNode = Kernel.obj().put("public_key", Hex.encode(run(i)))

  override def batch(iterations: Int): Long =
    var p = pos
    var acc = 0L
    var k = 0
    while k < iterations do
      acc += run(p)(64)
      p += 1
      if p == sigs.length then p = 0
      k += 1
    pos = p
    acc
