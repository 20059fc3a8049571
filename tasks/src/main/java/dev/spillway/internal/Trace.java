package dev.spillway.internal;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Chrome trace-event recording: one row (tid) for the IO thread and one per worker, then a row of checkpoint
 * generations (cut to commit) and one of the caller's phases, each written only when it holds spans; and the
 * counter tracks of {@link TraceSamples}. Each row has one writer, phases are taken under a lock; the file is
 * written after every writer stopped.
 */
final class Trace
{
    private record Span(String name, String category, long startNanos, long durationNanos)
    {
    }

    private record Phase(String name, long startNanos)
    {
    }

    private final ArrayList<ArrayList<Span>> rows = new ArrayList<>();
    private final String[] rowNames;
    /** Written by the IO thread. */
    private final ArrayList<Span> checkpoints = new ArrayList<>();
    /** Guarded by itself. */
    private final ArrayList<Phase> phases = new ArrayList<>();
    private final TraceSamples samples;
    private final long origin = System.nanoTime();
    /** When the run stopped: the last sample's time and the last phase's end. */
    private long end;

    Trace(final TraceSamples samples, final String... rowNames)
    {
        this.samples = samples;
        this.rowNames = rowNames;
        for (int i = 0; i < rowNames.length; i++)
        {
            rows.add(new ArrayList<>());
        }
    }

    void record(final int row, final String name, final String category, final long startNanos, final long endNanos)
    {
        rows.get(row).add(new Span(name, category, startNanos, endNanos - startNanos));
    }

    /** IO thread: a checkpoint generation from its cut to its commit (or abandonment). */
    void checkpoint(final String name, final long startNanos, final long endNanos)
    {
        checkpoints.add(new Span(name, "checkpoint", startNanos, endNanos - startNanos));
    }

    /** Any thread: phase {@code name} starts now and lasts until the next one starts or the trace is written. */
    void phase(final String name)
    {
        final long now = System.nanoTime();
        synchronized (phases)
        {
            phases.add(new Phase(name, now));
        }
    }

    /** After every writer stopped, before DRAM is freed: takes the last sample and ends the last phase. */
    void stopped()
    {
        end = System.nanoTime();
        samples.sample(end);
    }

    /** After {@link #stopped()}: writes the file. */
    void write(final Path file) throws IOException
    {
        try (JsonGenerator g = new JsonFactory().createGenerator(file.toFile(), JsonEncoding.UTF8))
        {
            g.writeStartObject();
            g.writeArrayFieldStart("traceEvents");
            for (int row = 0; row < rows.size(); row++)
            {
                row(g, row, rowNames[row], rows.get(row));
            }
            row(g, rows.size(), "checkpoints", checkpoints);
            row(g, rows.size() + 1, "phases", phaseSpans());
            samples.write(g, origin);
            g.writeEndArray();
            g.writeStringField("displayTimeUnit", "ms");
            g.writeEndObject();
        }
    }

    private List<Span> phaseSpans()
    {
        final List<Span> spans = new ArrayList<>();
        synchronized (phases)
        {
            for (int i = 0; i < phases.size(); i++)
            {
                final Phase p = phases.get(i);
                final long until = i + 1 < phases.size() ? phases.get(i + 1).startNanos() : end;
                spans.add(new Span(p.name(), "phase", p.startNanos(), until - p.startNanos()));
            }
        }
        return spans;
    }

    /** Writes a row's name and spans; a row of checkpoints or phases only when it holds spans. */
    private void row(final JsonGenerator g, final int tid, final String name, final List<Span> spans)
        throws IOException
    {
        if (tid >= rows.size() && spans.isEmpty())
        {
            return;
        }
        g.writeStartObject();
        g.writeStringField("name", "thread_name");
        g.writeStringField("ph", "M");
        g.writeNumberField("pid", 1);
        g.writeNumberField("tid", tid);
        g.writeObjectFieldStart("args");
        g.writeStringField("name", name);
        g.writeEndObject();
        g.writeEndObject();
        for (final Span s : spans)
        {
            g.writeStartObject();
            g.writeStringField("name", s.name());
            g.writeStringField("cat", s.category());
            g.writeStringField("ph", "X");
            g.writeNumberField("ts", (s.startNanos() - origin) / 1000.0);
            g.writeNumberField("dur", s.durationNanos() / 1000.0);
            g.writeNumberField("pid", 1);
            g.writeNumberField("tid", tid);
            g.writeEndObject();
        }
    }
}
