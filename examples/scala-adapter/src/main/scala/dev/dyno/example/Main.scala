package dev.dyno.example

import dev.dyno.protocol.{Adapter, Benchmarks, Worker}
import scala.jdk.CollectionConverters.*

/** A dyno adapter written in Scala: three of dyno's benchmark families on Scala code, served by
  * dyno's JVM protocol library (docs/own-adapter.md).
  */
object Main:
  /** The implementation's name in dyno's tables (`--impl scala-example`). */
  val Name = "scala-example"

  def adapter(): Adapter =
    val bc = "org.bouncycastle:bcprov-jdk18on"
    val jackson = "com.fasterxml.jackson.core:jackson-core"
    val benchmarks = new Benchmarks()
    for size <- List("1B", "32B", "1KiB", "100KiB") do
      benchmarks.add(s"hash/keccak256/$size", Name, bc, new Keccak(_))
    benchmarks.add("crypto/secp256k1-recover/valid", Name, bc, new Recover(_))
    for n <- List("100", "1000", "5000") do
      benchmarks.add(s"jsonrpc/getlogs-typed/$n", Name, jackson, new GetLogsTyped(_))
    val libraries = Map(
      "scala" -> scala.util.Properties.versionNumberString,
      bc -> BuildInfo.bouncycastle,
      jackson -> com.fasterxml.jackson.core.json.PackageVersion.VERSION.toString,
      "dev.dyno:dyno-protocol" -> BuildInfo.protocol
    )
    new Adapter(Name, BuildInfo.version, Name, libraries.asJava, benchmarks)

  def main(args: Array[String]): Unit = Worker.run(() => adapter())
