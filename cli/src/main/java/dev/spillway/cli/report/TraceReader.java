package dev.spillway.cli.report;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Streams a Chrome trace-event file (an object with {@code traceEvents}, or a bare array of events) into lanes.
 * Keeps complete spans ({@code "ph":"X"}) and {@code thread_name} metadata; other phases are counted and skipped.
 */
final class TraceReader
{
    private static final JsonFactory FACTORY = new JsonFactory();

    private final Path file;
    private final Map<String, Lane> lanes = new HashMap<>();
    private int ignored;
    private int index;

    private TraceReader(final Path file)
    {
        this.file = file;
    }

    /** The lanes of a trace, ordered by pid then tid, and the count of events of other phases. */
    record Result(List<Lane> lanes, int ignoredEvents)
    {
    }

    static Result read(final Path file) throws IOException
    {
        if (!Files.isRegularFile(file))
        {
            throw new NoSuchFileException(file.toString(), null, "no Chrome trace file here");
        }
        final TraceReader reader = new TraceReader(file);
        try (JsonParser p = FACTORY.createParser(file.toFile()))
        {
            reader.readTop(p);
        }
        catch (final JsonProcessingException e)
        {
            final String where = e.getLocation() == null ? "" : " at " + e.getLocation().offsetDescription();
            throw new IOException("cannot parse Chrome trace " + file + ": " + e.getOriginalMessage() + where, e);
        }
        final List<Lane> ordered = new ArrayList<>(reader.lanes.values());
        ordered.sort(Comparator.<Lane>comparingLong(l -> l.pid).thenComparingLong(l -> l.tid));
        return new Result(ordered, reader.ignored);
    }

    private void readTop(final JsonParser p) throws IOException
    {
        final JsonToken first = p.nextToken();
        if (first == JsonToken.START_ARRAY)
        {
            readEvents(p);
            return;
        }
        if (first != JsonToken.START_OBJECT)
        {
            throw new IOException("Chrome trace " + file + (first == null ? " is empty" : " starts with " + first) +
                "; expected an object with \"traceEvents\" or an array of events");
        }
        boolean found = false;
        while (p.nextToken() == JsonToken.FIELD_NAME)
        {
            final String field = p.currentName();
            final JsonToken value = p.nextToken();
            if ("traceEvents".equals(field) && value == JsonToken.START_ARRAY)
            {
                readEvents(p);
                found = true;
            }
            else
            {
                p.skipChildren();
            }
        }
        if (!found)
        {
            throw new IOException("Chrome trace " + file + " has no \"traceEvents\" array");
        }
    }

    private void readEvents(final JsonParser p) throws IOException
    {
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.START_OBJECT)
        {
            readEvent(p);
            index++;
        }
        if (t != JsonToken.END_ARRAY)
        {
            throw new IOException("Chrome trace " + file + ": event " + index + " is " + t + ", not an object");
        }
    }

    private void readEvent(final JsonParser p) throws IOException
    {
        String name = null;
        String category = null;
        String phase = null;
        String threadName = null;
        double ts = Double.NaN;
        double dur = Double.NaN;
        long pid = 0;
        long tid = 0;
        while (p.nextToken() == JsonToken.FIELD_NAME)
        {
            final String field = p.currentName();
            final JsonToken value = p.nextToken();
            switch (field)
            {
                case "name" -> name = p.getValueAsString();
                case "cat" -> category = p.getValueAsString();
                case "ph" -> phase = p.getValueAsString();
                case "ts" -> ts = number(p, value, "ts");
                case "dur" -> dur = number(p, value, "dur");
                case "pid" -> pid = p.getValueAsLong();
                case "tid" -> tid = p.getValueAsLong();
                case "args" -> threadName = argsName(p, value);
                default -> p.skipChildren();
            }
        }
        if ("X".equals(phase))
        {
            if (Double.isNaN(ts) || Double.isNaN(dur))
            {
                throw new IOException("Chrome trace " + file + ": span event " + index + " ('" + name +
                    "') lacks a numeric ts or dur");
            }
            lane(pid, tid).add(name == null ? "" : name, category, ts, dur);
        }
        else if ("M".equals(phase) && "thread_name".equals(name))
        {
            if (threadName != null)
            {
                lane(pid, tid).name = threadName;
            }
        }
        else if (!"M".equals(phase))
        {
            ignored++;
        }
    }

    private double number(final JsonParser p, final JsonToken value, final String field) throws IOException
    {
        if (!value.isNumeric())
        {
            throw new IOException("Chrome trace " + file + ": event " + index + " has a non-numeric " + field);
        }
        return p.getDoubleValue();
    }

    private static String argsName(final JsonParser p, final JsonToken value) throws IOException
    {
        if (value != JsonToken.START_OBJECT)
        {
            p.skipChildren();
            return null;
        }
        String found = null;
        while (p.nextToken() == JsonToken.FIELD_NAME)
        {
            final String field = p.currentName();
            p.nextToken();
            if ("name".equals(field))
            {
                found = p.getValueAsString();
            }
            else
            {
                p.skipChildren();
            }
        }
        return found;
    }

    private Lane lane(final long pid, final long tid)
    {
        return lanes.computeIfAbsent(pid + ":" + tid, k -> new Lane(pid, tid));
    }
}
