package dev.spillway.checkpoint;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Writes one generation. It inherits every block of the newest committed generation; {@link #save} replaces a
 * tag's block. Called only from the runtime's IO thread.
 */
public interface GenerationWriter
{
    /** @return the cut this generation records. */
    Cut cut();

    /**
     * Writes {@code src} (position to limit) as the block of {@code tag} at {@code version}. The buffer is direct and
     * page-aligned with a capacity rounded up to a page, so it can be written with direct IO; its position and limit
     * are left unchanged.
     */
    void save(String tag, ByteBuffer src, long version) throws IOException;

    /**
     * Makes the generation durable (blocks, then a self-checksummed manifest, fsync, atomic rename) and the newest,
     * then deletes generations older than the one before it and any block file no kept generation refers to.
     *
     * @return bytes written by this generation.
     */
    long commit() throws IOException;

    /** Gives up on this generation: nothing it wrote will be used, and its files are removed. */
    void abandon();
}
