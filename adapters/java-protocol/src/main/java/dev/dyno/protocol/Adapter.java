package dev.dyno.protocol;

import java.util.Map;

/**
 * What an adapter tells the library about itself.
 *
 * @param name the adapter's own name ({@code hello}'s {@code adapter})
 * @param version its version
 * @param prefix names its harness implementations, {@code <prefix>-noop} and {@code
 *     <prefix>-sleep}; unique across adapters
 * @param libraries library coordinate to version, for {@code hello}
 * @param benchmarks what it offers
 */
public record Adapter(
    String name,
    String version,
    String prefix,
    Map<String, String> libraries,
    Benchmarks benchmarks) {}
