package adapter

import dev.dyno.protocol.{Adapter, Benchmarks, Worker}
import scala.jdk.CollectionConverters.*

/** {{name}}: a dyno adapter (docs/adapter-protocol.md), served by dyno's JVM protocol library. Add a
  * benchmark: a `Kernel` for the ids it offers (`dyno list` shows them; dyno's
  * adapters/testdata/prepare.jsonl has their cases), added below.
  */
object Main:
  def adapter(): Adapter =
    val b = new Benchmarks()
    for size <- List("1B", "32B", "1KiB", "100KiB") do
      b.add(s"hash/sha256/$size", "{{name}}-sha256", "java.security", new Sha256(_))
    val libraries = Map(
      "scala" -> scala.util.Properties.versionNumberString,
      "java.security (SHA-256)" -> System.getProperty("java.version")
    )
    new Adapter("{{name}}", "0.1.0", "{{name}}", libraries.asJava, b)

  def main(args: Array[String]): Unit = Worker.run(() => adapter())
