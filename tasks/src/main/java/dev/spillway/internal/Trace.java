package dev.spillway.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;

/**
 * Chrome trace-event recording: one row (tid) for the IO thread and one per worker. Each row has one writer;
 * the file is written after every writer stopped.
 */
final class Trace
{
    private record Span(String name, String category, long startNanos, long durationNanos)
    {
    }

    private final ArrayList<ArrayList<Span>> rows = new ArrayList<>();
    private final String[] rowNames;
    private final long origin = System.nanoTime();

    Trace(final String... rowNames)
    {
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

    void write(final Path file) throws IOException
    {
        try (JsonGenerator g = new JsonFactory().createGenerator(file.toFile(), com.fasterxml.jackson.core.JsonEncoding.UTF8))
        {
            g.writeStartObject();
            g.writeArrayFieldStart("traceEvents");
            for (int row = 0; row < rows.size(); row++)
            {
                g.writeStartObject();
                g.writeStringField("name", "thread_name");
                g.writeStringField("ph", "M");
                g.writeNumberField("pid", 1);
                g.writeNumberField("tid", row);
                g.writeObjectFieldStart("args");
                g.writeStringField("name", rowNames[row]);
                g.writeEndObject();
                g.writeEndObject();
                for (final Span s : rows.get(row))
                {
                    g.writeStartObject();
                    g.writeStringField("name", s.name());
                    g.writeStringField("cat", s.category());
                    g.writeStringField("ph", "X");
                    g.writeNumberField("ts", (s.startNanos() - origin) / 1000.0);
                    g.writeNumberField("dur", s.durationNanos() / 1000.0);
                    g.writeNumberField("pid", 1);
                    g.writeNumberField("tid", row);
                    g.writeEndObject();
                }
            }
            g.writeEndArray();
            g.writeStringField("displayTimeUnit", "ms");
            g.writeEndObject();
        }
    }
}
