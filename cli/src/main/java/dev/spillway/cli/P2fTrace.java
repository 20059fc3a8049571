package dev.spillway.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.spillway.ranks.DistributedSpillway;

import java.io.BufferedWriter;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code run --trace-p2f DIR} on ranks: rank R writes {@code DIR/rank-R.jsonl}, one JSON object per line: a header
 * {@code {"rank","ranks","incarnation"}}, then in submission order every transfer half
 * {@code {"half":"send"|"receive","source","target","object","version","global_index","seq"}} and every cut
 * {@code {"cut":global_index}}: the transfers and the cut history the past-to-future analysis needs, taken from a
 * real run (they match {@code bench p2f-schedule}'s schedule for the same kernel exactly). With the protocol on, in
 * the order the protocol sees them, also every send posted {@code {"posted":target,"object","version"}}, every cut
 * committed {@code {"committed":global_index}} and every recovery report given {@code {"reported":session}}: what an
 * offline recovery line needs. A rank started again appends to its file, after a header of its own (an empty line
 * first: a killed incarnation may have left its last line half written).
 */
final class P2fTrace implements DistributedSpillway.Recorder, Closeable
{
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final BufferedWriter out;

    P2fTrace(final Path dir, final int rank, final int ranks, final int incarnation) throws IOException
    {
        Files.createDirectories(dir);
        this.out = incarnation == 0 ? Files.newBufferedWriter(file(dir, rank), StandardCharsets.UTF_8) :
            Files.newBufferedWriter(file(dir, rank), StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        if (incarnation > 0)
        {
            // Ends a line a killed incarnation may have left half written.
            out.newLine();
        }
        line(Map.of("rank", rank, "ranks", ranks, "incarnation", incarnation));
    }

    static Path file(final Path dir, final int rank)
    {
        return dir.resolve("rank-" + rank + ".jsonl");
    }

    @Override
    public void task(final long globalIndex, final long seq)
    {
    }

    @Override
    public void transfer(final boolean send, final int source, final int target, final String object,
        final int version, final long globalIndex, final long seq)
    {
        final Map<String, Object> half = new LinkedHashMap<>();
        half.put("half", send ? "send" : "receive");
        half.put("source", source);
        half.put("target", target);
        half.put("object", object);
        half.put("version", version);
        half.put("global_index", globalIndex);
        half.put("seq", seq);
        line(half);
    }

    @Override
    public void cut(final long globalIndex, final long frontier)
    {
        line(Map.of("cut", globalIndex));
    }

    @Override
    public void posted(final int target, final String object, final int version)
    {
        final Map<String, Object> posted = new LinkedHashMap<>();
        posted.put("posted", target);
        posted.put("object", object);
        posted.put("version", version);
        line(posted);
    }

    @Override
    public void committed(final long globalIndex)
    {
        line(Map.of("committed", globalIndex));
    }

    @Override
    public void reported(final long session)
    {
        line(Map.of("reported", session));
        try
        {
            // On disk, with what led to it, before the line it feeds may stop this rank, or a later one kill it.
            synchronized (this)
            {
                out.flush();
            }
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("--trace-p2f: cannot write the trace", e);
        }
    }

    private synchronized void line(final Map<String, Object> value)
    {
        try
        {
            out.write(MAPPER.writeValueAsString(value));
            out.newLine();
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("--trace-p2f: cannot write the trace", e);
        }
    }

    @Override
    public synchronized void close() throws IOException
    {
        out.close();
    }
}
