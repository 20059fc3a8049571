package dev.spillway.resilience.p2f;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * The payloads a rank keeps to send again to a rank that rolls back, by log tag, until the global watermark passes
 * the epoch each was received in. They live in segment files of a directory on the spill tier, not in the heap: a
 * rank in a low cluster logs every transfer it sends up, which for 8 MiB tiles outgrew a 160 MiB heap within two
 * checkpoint intervals. A segment file is deleted once every payload in it was collected. Thread-safe; a payload is
 * written before it can be read.
 */
public final class ReplayCopies implements AutoCloseable
{
    /** A new segment begins once the current one holds this many bytes. */
    static final long SEGMENT_BYTES = 256L << 20;

    private final Path dir;
    private final long segmentBytes;
    private final TreeMap<Integer, Segment> segments = new TreeMap<>();
    private final Map<String, Entry> entries = new HashMap<>();
    private Segment current;
    private boolean closed;

    private static final class Segment
    {
        final int number;
        final FileChannel channel;
        final Path file;
        long size;
        int live;

        Segment(final int number, final Path file) throws IOException
        {
            this.number = number;
            this.file = file;
            this.channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        }
    }

    private record Entry(Segment segment, long offset, int length, int receiveEpoch)
    {
        Entry receivedIn(final int epoch)
        {
            return new Entry(segment, offset, length, epoch);
        }
    }

    private ReplayCopies(final Path dir, final long segmentBytes)
    {
        this.dir = dir;
        this.segmentBytes = segmentBytes;
    }

    /**
     * @param dir a directory of this rank's alone; what an earlier incarnation left there is deleted.
     * @return an empty set of copies in {@code dir}.
     */
    public static ReplayCopies in(final Path dir) throws IOException
    {
        return in(dir, SEGMENT_BYTES);
    }

    /** As {@link #in(Path)}, a new segment beginning once one holds {@code segmentBytes}. */
    static ReplayCopies in(final Path dir, final long segmentBytes) throws IOException
    {
        deleteTree(dir);
        Files.createDirectories(dir);
        return new ReplayCopies(dir, segmentBytes);
    }

    /** Keeps a copy of {@code payload} (position 0 to its limit) under {@code logTag}, replacing any earlier one. */
    public void put(final String logTag, final ByteBuffer payload)
    {
        final int length = payload.limit();
        final Segment segment;
        final long offset;
        synchronized (this)
        {
            checkOpen();
            segment = segmentWithRoom();
            offset = segment.size;
            segment.size += length;
            segment.live++;
        }
        final ByteBuffer src = payload.duplicate().position(0).limit(length);
        try
        {
            for (long at = offset; src.hasRemaining(); )
            {
                at += segment.channel.write(src, at);
            }
        }
        catch (final IOException e)
        {
            synchronized (this)
            {
                release(segment);
            }
            throw new UncheckedIOException("cannot keep the copy of " + logTag + " to send it again in " +
                segment.file + ": " + e.getMessage(), e);
        }
        synchronized (this)
        {
            final Entry old = entries.put(logTag, new Entry(segment, offset, length, Integer.MAX_VALUE));
            if (old != null)
            {
                release(old.segment());
            }
        }
    }

    /** The transfer under {@code logTag} was received in {@code epoch}: it is kept until the watermark passes it. */
    public synchronized void receivedIn(final String logTag, final int epoch)
    {
        entries.computeIfPresent(logTag, (tag, e) -> e.receivedIn(epoch));
    }

    /** @return whether a copy is kept under {@code logTag}. */
    public synchronized boolean holds(final String logTag)
    {
        return entries.containsKey(logTag);
    }

    /** @return a new direct buffer with the copy kept under {@code logTag}, or null when none is. */
    public ByteBuffer get(final String logTag)
    {
        final Entry e;
        synchronized (this)
        {
            checkOpen();
            e = entries.get(logTag);
            if (e == null)
            {
                return null;
            }
            e.segment().live++;
        }
        try
        {
            final ByteBuffer dst = ByteBuffer.allocateDirect(e.length());
            for (long at = e.offset(); dst.hasRemaining(); )
            {
                final int n = e.segment().channel.read(dst, at);
                if (n < 0)
                {
                    throw new IOException("it ends before the copy's " + e.length() + " bytes at offset " + e.offset());
                }
                at += n;
            }
            return dst.flip();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot read the copy of " + logTag + " from " + e.segment().file + ": " +
                ex.getMessage(), ex);
        }
        finally
        {
            synchronized (this)
            {
                release(e.segment());
            }
        }
    }

    /** Drops the copies received before {@code gcEpoch}, and the segment files left with none. */
    public synchronized void collect(final int gcEpoch)
    {
        for (final Iterator<Entry> it = entries.values().iterator(); it.hasNext(); )
        {
            final Entry e = it.next();
            if (e.receiveEpoch() < gcEpoch)
            {
                it.remove();
                release(e.segment());
            }
        }
    }

    /** @return the bytes of the segment files on disk now. */
    public synchronized long diskBytes()
    {
        return segments.values().stream().mapToLong(s -> s.size).sum();
    }

    /** Closes and deletes every segment file and the directory. */
    @Override
    public synchronized void close() throws IOException
    {
        if (closed)
        {
            return;
        }
        closed = true;
        for (final Segment s : segments.values())
        {
            s.channel.close();
        }
        segments.clear();
        entries.clear();
        deleteTree(dir);
    }

    private Segment segmentWithRoom()
    {
        if (current == null || current.size >= segmentBytes)
        {
            final Segment full = current;
            final int number = segments.isEmpty() ? 0 : segments.lastKey() + 1;
            try
            {
                current = new Segment(number, dir.resolve("replays-" + number));
            }
            catch (final IOException e)
            {
                throw new UncheckedIOException("cannot create a file for copies to send again in " + dir + ": " +
                    e.getMessage(), e);
            }
            segments.put(number, current);
            if (full != null)
            {
                deleteIfUnused(full);
            }
        }
        return current;
    }

    /** One use of {@code s} less. */
    private void release(final Segment s)
    {
        s.live--;
        deleteIfUnused(s);
    }

    /** Deletes {@code s} if no copy in it is kept or being read, and it is no longer written to. */
    private void deleteIfUnused(final Segment s)
    {
        if (s.live > 0 || s == current || closed)
        {
            return;
        }
        segments.remove(s.number);
        try
        {
            s.channel.close();
            Files.deleteIfExists(s.file);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("cannot delete " + s.file + ", whose copies were all collected: " +
                e.getMessage(), e);
        }
    }

    private void checkOpen()
    {
        if (closed)
        {
            throw new IllegalStateException("the copies to send again in " + dir + " are closed");
        }
    }

    private static void deleteTree(final Path dir) throws IOException
    {
        if (!Files.exists(dir))
        {
            return;
        }
        try (var files = Files.list(dir))
        {
            for (final Path f : (Iterable<Path>) files::iterator)
            {
                Files.delete(f);
            }
        }
        Files.delete(dir);
    }
}
