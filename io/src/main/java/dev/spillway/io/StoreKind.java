package dev.spillway.io;

/** The {@link Store} implementations that {@link Stores#open} can create. */
public enum StoreKind
{
    /**
     * Payloads in preallocated slab files written and read with {@code O_DIRECT} straight from and into the caller's
     * aligned buffers; a persisted Chronicle Map indexes them. Disk use grows one slab at a time up to the cap.
     */
    DIRECT,

    /**
     * Payloads and metadata together in one persisted Chronicle Map, preallocated at open for
     * {@code maxBlocks x averageBlockBytes} (within the cap); reads and writes copy through the page cache.
     */
    CHRONICLE
}
