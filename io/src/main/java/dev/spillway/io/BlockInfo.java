package dev.spillway.io;

/**
 * Metadata of one stored block.
 *
 * @param length   payload length in bytes.
 * @param version  data version the block holds.
 * @param checksum CRC32C of the payload.
 */
public record BlockInfo(int length, long version, int checksum)
{
}
