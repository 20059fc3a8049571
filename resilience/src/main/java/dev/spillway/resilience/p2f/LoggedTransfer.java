package dev.spillway.resilience.p2f;

/**
 * What the engine's protocol keeps of a transfer it sent: which version of which object, and its size. A log entry
 * names the payload; its bytes are not captured yet (see the README's limits).
 *
 * @param tag     the data object.
 * @param version its version.
 * @param bytes   its size.
 */
public record LoggedTransfer(String tag, int version, int bytes)
{
}
