package dev.spillway.io;

import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The free extents of a {@link SlabFiles}: freed neighbours merge, and allocation takes the smallest extent that
 * fits (best fit), splitting off the rest.
 */
final class FreeExtents
{
    /** Extents are keyed by {@code slab << SLAB_SHIFT | offset}, so slabs must stay under 1 TiB. */
    private static final int SLAB_SHIFT = 40;

    private final TreeMap<Long, Long> sizeByAddress = new TreeMap<>();
    private final TreeMap<Long, TreeSet<Long>> addressesBySize = new TreeMap<>();
    private long bytes;

    /** @return free bytes in all extents. */
    long bytes()
    {
        return bytes;
    }

    /** Adds an extent, merged with free neighbours; @return the merged extent. */
    Extent add(final Extent extent)
    {
        long address = address(extent);
        long size = extent.size();
        final Map.Entry<Long, Long> before = sizeByAddress.floorEntry(address);
        if (before != null && before.getKey() + before.getValue() == address)
        {
            remove(before.getKey(), before.getValue());
            address = before.getKey();
            size += before.getValue();
        }
        final Long after = sizeByAddress.get(address + size);
        if (after != null)
        {
            remove(address + size, after);
            size += after;
        }
        sizeByAddress.put(address, size);
        addressesBySize.computeIfAbsent(size, s -> new TreeSet<>()).add(address);
        bytes += size;
        return new Extent(extent.slab(), address & ((1L << SLAB_SHIFT) - 1), size);
    }

    /** Removes an extent that {@link #add} returned. */
    void remove(final Extent extent)
    {
        remove(address(extent), extent.size());
    }

    /** @return an extent of exactly {@code size} bytes taken from the smallest that fits, or {@code null}. */
    Extent take(final long size)
    {
        final Map.Entry<Long, TreeSet<Long>> fit = addressesBySize.ceilingEntry(size);
        if (fit == null)
        {
            return null;
        }
        final long address = fit.getValue().first();
        remove(address, fit.getKey());
        if (fit.getKey() > size)
        {
            sizeByAddress.put(address + size, fit.getKey() - size);
            addressesBySize.computeIfAbsent(fit.getKey() - size, s -> new TreeSet<>()).add(address + size);
            bytes += fit.getKey() - size;
        }
        return new Extent((int)(address >>> SLAB_SHIFT), address & ((1L << SLAB_SHIFT) - 1), size);
    }

    private void remove(final long address, final long size)
    {
        sizeByAddress.remove(address);
        final TreeSet<Long> addresses = addressesBySize.get(size);
        addresses.remove(address);
        if (addresses.isEmpty())
        {
            addressesBySize.remove(size);
        }
        bytes -= size;
    }

    private static long address(final Extent extent)
    {
        return (long)extent.slab() << SLAB_SHIFT | extent.offset();
    }
}
