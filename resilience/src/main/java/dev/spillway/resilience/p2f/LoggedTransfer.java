package dev.spillway.resilience.p2f;

/**
 * What the engine's protocol keeps of a transfer it sent: which version of which object, its size, and where its
 * payload was copied when the transfer is logged at its send.
 *
 * @param tag     the data object.
 * @param version its version.
 * @param bytes   its size.
 * @param logTag  the local object holding a copy of the payload ({@code RankProtocol.logTag}), or null when the
 *                transfer was not expected to be logged.
 */
public record LoggedTransfer(String tag, int version, int bytes, String logTag)
{
}
