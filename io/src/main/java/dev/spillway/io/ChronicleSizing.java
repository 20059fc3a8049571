package dev.spillway.io;

/**
 * How a {@link ChronicleStore} map is laid out: one segment with one tier of {@code chunks} chunks of
 * {@code chunkBytes}, never grown, so its file is preallocated at open and stays within the disk cap.
 *
 * <p>A Chronicle Map entry must fit in one segment tier (see the reference notes), so a single segment lets one
 * block be as large as the whole tier; only the IO thread calls a store, so lock striping would buy nothing. Chunks
 * are sized so an average block takes 32 to 64 of them, as Chronicle's docs advise.
 *
 * @param chunkBytes    bytes per chunk, a power of two.
 * @param chunks        chunks in the tier.
 * @param averageChunks chunks an average entry takes.
 */
record ChronicleSizing(int chunkBytes, long chunks, long averageChunks)
{
    private static final int CHUNKS_PER_AVERAGE_ENTRY = 32;
    private static final int MIN_CHUNK_BYTES = 64;
    /** Key and value size prefixes and other per-entry bytes, besides tag, header and payload. */
    private static final int ENTRY_OVERHEAD_BYTES = 16;
    /** File header and segment header, besides the hash lookup and the chunk free list. */
    private static final long FIXED_OVERHEAD_BYTES = 64 << 10;
    /** Hash lookup bytes per entry; about 25 measured at 100k entries. */
    private static final long LOOKUP_BYTES_PER_ENTRY = 32;

    /**
     * Chunks for {@code maxBlocks} average entries, or fewer if the disk cap, less the map's own overhead, cannot
     * hold them.
     *
     * @throws IllegalArgumentException if the cap cannot hold even one average block.
     */
    static ChronicleSizing of(final StoreSettings settings)
    {
        final long entryBytes = (long)settings.averageBlockBytes() + BlockValue.HEADER_BYTES + Blocks.AVERAGE_TAG_BYTES +
            ENTRY_OVERHEAD_BYTES;
        final int chunkBytes = (int)Math.max(MIN_CHUNK_BYTES, Long.highestOneBit(entryBytes / CHUNKS_PER_AVERAGE_ENTRY));
        final long averageChunks = (entryBytes + chunkBytes - 1) / chunkBytes;
        final long overhead = FIXED_OVERHEAD_BYTES + LOOKUP_BYTES_PER_ENTRY * settings.maxBlocks() +
            settings.diskCapBytes() / chunkBytes / Byte.SIZE;
        final long chunks = Math.min((settings.diskCapBytes() - overhead) / chunkBytes,
            averageChunks * settings.maxBlocks());
        if (chunks < averageChunks)
        {
            throw new IllegalArgumentException("disk cap of " + settings.diskCapBytes() + " bytes is too small for a " +
                "Chronicle map of " + settings.maxBlocks() + " blocks of " + settings.averageBlockBytes() + " bytes");
        }
        return new ChronicleSizing(chunkBytes, chunks, averageChunks);
    }

    /**
     * @return an upper bound of the map file's bytes, all allocated at open: the chunks, their free list, the hash
     *         lookup and the headers.
     */
    long fileBytesBound(final int maxBlocks)
    {
        return chunks * chunkBytes + chunks / Byte.SIZE + 1 + LOOKUP_BYTES_PER_ENTRY * maxBlocks + FIXED_OVERHEAD_BYTES;
    }
}
