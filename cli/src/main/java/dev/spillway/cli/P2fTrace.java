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
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code run --trace-p2f DIR} on ranks: rank R writes {@code DIR/rank-R.jsonl}, one JSON object per line, in
 * submission order: a header {@code {"rank","ranks"}}, then every transfer half
 * {@code {"half":"send"|"receive","source","target","object","version","global_index","seq"}} and every cut
 * {@code {"cut":global_index}}: the transfers and the cut history the past-to-future analysis needs, taken from a
 * real run (they match {@code bench p2f-schedule}'s schedule for the same kernel exactly).
 */
final class P2fTrace implements DistributedSpillway.Recorder, Closeable
{
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final BufferedWriter out;

    P2fTrace(final Path dir, final int rank, final int ranks) throws IOException
    {
        Files.createDirectories(dir);
        this.out = Files.newBufferedWriter(file(dir, rank), StandardCharsets.UTF_8);
        line(Map.of("rank", rank, "ranks", ranks));
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
    public void cut(final long globalIndex)
    {
        line(Map.of("cut", globalIndex));
    }

    private void line(final Map<String, Object> value)
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
    public void close() throws IOException
    {
        out.close();
    }
}
