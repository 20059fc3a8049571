package dev.spillway.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.spillway.memory.BufferPool;
import dev.spillway.memory.DramBudget;
import org.junit.jupiter.api.Test;

import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A long run's samples stay bounded, still cover the whole run, and their bandwidth adds up to the bytes moved. */
class TraceSamplesTest
{
    private static final long MS = 1_000_000L;

    @Test
    void aLongRunIsDecimatedWithoutLosingBytes() throws Exception
    {
        final Counters counters = new Counters();
        final TraceSamples samples = new TraceSamples(counters, new BufferPool(new DramBudget(1 << 30), 4096), 4096);
        final long ticks = 300_000;
        for (long t = 0; t <= ticks; t++)
        {
            counters.bytesRead += 1000;
            counters.bytesWritten += t % 2 == 0 ? 3000 : 0;
            samples.tick(t * MS);
        }
        samples.sample(ticks * MS);
        final StringWriter text = new StringWriter();
        try (JsonGenerator g = new JsonFactory().createGenerator(text))
        {
            g.writeStartArray();
            samples.write(g, 0);
            g.writeEndArray();
        }
        final List<JsonNode> bandwidth = new ArrayList<>();
        for (final JsonNode e : new ObjectMapper().readTree(text.toString()))
        {
            assertEquals("C", e.get("ph").asText());
            if (e.get("name").asText().equals("store bandwidth"))
            {
                bandwidth.add(e);
            }
        }
        assertTrue(bandwidth.size() > TraceSamples.CAPACITY / 2 && bandwidth.size() <= TraceSamples.CAPACITY,
            bandwidth.size() + " samples");
        assertEquals(0, bandwidth.get(0).get("ts").asDouble());
        final double last = bandwidth.get(bandwidth.size() - 1).get("ts").asDouble();
        assertTrue(last > 0.99 * ticks * 1000, "samples end at " + last + " µs");
        double read = 0;
        double written = 0;
        for (int i = 0; i + 1 < bandwidth.size(); i++)
        {
            final double seconds = (bandwidth.get(i + 1).get("ts").asDouble() - bandwidth.get(i).get("ts").asDouble())
                / 1e6;
            read += bandwidth.get(i).get("args").get("read").asDouble() * seconds;
            written += bandwidth.get(i).get("args").get("write").asDouble() * seconds;
        }
        // the first sample saw the first tick's bytes; the last saw every byte.
        assertEquals(1000.0 * ticks, read, 1e-6 * read);
        assertEquals(3000.0 * ticks / 2, written, 1e-6 * written);
        final JsonNode middle = bandwidth.get(bandwidth.size() / 2).get("args");
        assertEquals(1_000_000, middle.get("read").asLong());
        assertEquals(1_500_000, middle.get("write").asLong());
    }
}
