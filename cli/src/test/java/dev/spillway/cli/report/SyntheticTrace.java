package dev.spillway.cli.report;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Writes a Chrome trace shaped like the engine's (Trace.java): thread_name metadata, X spans per row, and C counter
 * events.
 */
final class SyntheticTrace implements AutoCloseable
{
    private final JsonGenerator g;

    SyntheticTrace(final Path file) throws IOException
    {
        g = new JsonFactory().createGenerator(file.toFile(), JsonEncoding.UTF8);
        g.writeStartObject();
        g.writeArrayFieldStart("traceEvents");
    }

    SyntheticTrace row(final int tid, final String name) throws IOException
    {
        g.writeStartObject();
        g.writeStringField("name", "thread_name");
        g.writeStringField("ph", "M");
        g.writeNumberField("pid", 1);
        g.writeNumberField("tid", tid);
        g.writeObjectFieldStart("args");
        g.writeStringField("name", name);
        g.writeEndObject();
        g.writeEndObject();
        return this;
    }

    SyntheticTrace span(final int tid, final String name, final String category, final double ts, final double dur)
        throws IOException
    {
        g.writeStartObject();
        g.writeStringField("name", name);
        g.writeStringField("cat", category);
        g.writeStringField("ph", "X");
        g.writeNumberField("ts", ts);
        g.writeNumberField("dur", dur);
        g.writeNumberField("pid", 1);
        g.writeNumberField("tid", tid);
        g.writeEndObject();
        return this;
    }

    /** A counter event: {@code series} are name, value pairs. */
    SyntheticTrace counter(final String name, final double ts, final Object... series) throws IOException
    {
        g.writeStartObject();
        g.writeStringField("name", name);
        g.writeStringField("ph", "C");
        g.writeNumberField("ts", ts);
        g.writeNumberField("pid", 1);
        g.writeObjectFieldStart("args");
        for (int i = 0; i < series.length; i += 2)
        {
            g.writeNumberField((String)series[i], ((Number)series[i + 1]).doubleValue());
        }
        g.writeEndObject();
        g.writeEndObject();
        return this;
    }

    @Override
    public void close() throws IOException
    {
        g.writeEndArray();
        g.writeStringField("displayTimeUnit", "ms");
        g.writeEndObject();
        g.close();
    }
}
