package dev.spillway.io;

/**
 * Where a {@link DirectIoStore} block lies and its metadata, as its index keeps it.
 *
 * @param slab     index of the slab file.
 * @param offset   byte offset of the block in the slab, aligned.
 * @param length   payload length in bytes; the extent is this rounded up to the alignment.
 * @param version  data version of the block.
 * @param checksum CRC32C of the payload.
 */
record BlockRecord(int slab, long offset, int length, long version, int checksum)
{
    Extent extent(final int alignment)
    {
        return new Extent(slab, offset, Blocks.alignUp(length, alignment));
    }
}
