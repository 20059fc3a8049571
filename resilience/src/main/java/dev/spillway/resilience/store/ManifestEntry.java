package dev.spillway.resilience.store;

/**
 * Where one tag's block of a generation lives.
 *
 * @param tag            the data object's stable tag.
 * @param length         the block's length in bytes.
 * @param version        the data version the block holds.
 * @param fileGeneration the generation whose {@code blocks-N.dat} holds the block (older when inherited).
 * @param offset         the block's offset in that file, aligned to {@link dev.spillway.io.DirectIo#ALIGNMENT}.
 * @param checksum       the block's {@link BlockChecksum}.
 */
record ManifestEntry(String tag, int length, long version, long fileGeneration, long offset, long checksum)
{
}
