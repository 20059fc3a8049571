package dev.spillway.io;

/**
 * A run of bytes in one slab file.
 *
 * @param slab   index of the slab file.
 * @param offset byte offset in the slab, a multiple of the alignment.
 * @param size   bytes, a multiple of the alignment.
 */
record Extent(int slab, long offset, long size)
{
}
