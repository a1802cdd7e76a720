package dev.dyno.example

import java.util.Properties

/** Versions written into the jar by Maven's resource filtering (src/main/resources). */
object BuildInfo:
  private val props =
    val p = new Properties()
    val in = getClass.getResourceAsStream("/scala-adapter.properties")
    if in == null then throw new IllegalStateException("scala-adapter.properties missing from the jar")
    try p.load(in)
    finally in.close()
    p

  val version: String = props.getProperty("version")
  val bouncycastle: String = props.getProperty("bouncycastle")
  val protocol: String = props.getProperty("dyno-protocol")
