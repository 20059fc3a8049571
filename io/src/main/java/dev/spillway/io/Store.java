package dev.spillway.io;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The NVMe tier: a block store keyed by a data object's stable tag.
 *
 * <p>Contract, shared by every implementation and checked by the store contract tests:
 * <ul>
 *   <li>{@link #write} replaces the block of a tag atomically: a reader sees the old block or the new one,
 *       never a mix, and a failed write (disk full, cap reached) leaves the old block, or none, visible.</li>
 *   <li>Every block carries a checksum that {@link #read} verifies; a mismatch or a short block throws
 *       {@link BlockCorruptedException} naming the tag.</li>
 *   <li>Buffers handed to {@link #write} and {@link #read} are direct, aligned to {@link #alignment()}, and
 *       have a capacity of at least the block length rounded up to {@link #alignment()}.</li>
 *   <li>Only the IO thread calls a store; implementations need not be thread-safe.</li>
 * </ul>
 */
public interface Store extends AutoCloseable
{
    /** @return a short name for reports, such as {@code direct} or {@code chronicle}. */
    String name();

    /** @return the alignment in bytes that buffers and lengths must respect for this store (a power of two). */
    int alignment();

    /**
     * Writes {@code src} from its position to its limit as the new block of {@code tag}.
     *
     * @param tag     the data object's stable tag.
     * @param src     the bytes; its position is left unchanged.
     * @param version the data version being written, kept in the block's metadata.
     * @throws StoreFullException if the disk or the configured cap cannot take the block.
     * @throws IOException        on any other IO failure.
     */
    void write(String tag, ByteBuffer src, long version) throws IOException;

    /**
     * Reads the block of {@code tag} into {@code dst} from its position, verifying the checksum.
     *
     * @return the block length in bytes; {@code dst}'s position is left unchanged.
     * @throws BlockNotFoundException  if no block was ever written for {@code tag}.
     * @throws BlockCorruptedException if the block fails its checksum or is truncated.
     */
    int read(String tag, ByteBuffer dst) throws IOException;

    /** @return the metadata of {@code tag}'s block, or {@code null} if there is none. */
    BlockInfo info(String tag) throws IOException;

    /** Removes {@code tag}'s block, if any, and returns its space. */
    void delete(String tag) throws IOException;

    /**
     * @return bytes of DRAM the store holds for staging (bounce buffers, copies); the engine charges them to the
     *         DRAM budget when it opens the store.
     */
    long stagingBytes();

    /** @return bytes of disk space this store currently occupies (files, including slack). */
    long diskBytesUsed();

    /** Closes the store and removes its spill files. */
    @Override
    void close() throws IOException;
}
