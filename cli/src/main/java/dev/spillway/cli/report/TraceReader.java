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
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Streams a Chrome trace-event file (an object with {@code traceEvents}, or a bare array of events) into lanes.
 * Keeps complete spans ({@code "ph":"X"}), {@code thread_name} metadata and counters ({@code "ph":"C"}); spans of
 * category {@code phase} or {@code checkpoint} are marks, not lane spans. Other phases are counted and skipped.
 */
final class TraceReader
{
    private static final JsonFactory FACTORY = new JsonFactory();

    private final Path file;
    private final Map<String, Lane> lanes = new HashMap<>();
    private final Set<String> markRows = new HashSet<>();
    private final List<Mark> phases = new ArrayList<>();
    private final List<Mark> checkpoints = new ArrayList<>();
    private final Map<String, CounterTrack> counters = new LinkedHashMap<>();
    private int ignored;
    private int index;

    private TraceReader(final Path file)
    {
        this.file = file;
    }

    /**
     * The lanes of a trace, ordered by pid then tid; its phases and checkpoint generations in time order; its
     * counter tracks by name; and the count of events of other phases.
     */
    record Result(List<Lane> lanes, List<Mark> phases, List<Mark> checkpoints, Map<String, CounterTrack> counters,
        int ignoredEvents)
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
        reader.markRows.forEach(reader.lanes::remove);
        final List<Lane> ordered = new ArrayList<>(reader.lanes.values());
        ordered.sort(Comparator.<Lane>comparingLong(l -> l.pid).thenComparingLong(l -> l.tid));
        reader.phases.sort(Comparator.comparingDouble(Mark::start));
        reader.checkpoints.sort(Comparator.comparingDouble(Mark::start));
        return new Result(ordered, reader.phases, reader.checkpoints, reader.counters, reader.ignored);
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
        Map<String, Object> args = Map.of();
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
                case "args" -> args = args(p, value);
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
            span(pid, tid, name == null ? "" : name, category, ts, dur);
        }
        else if ("C".equals(phase) && name != null && !Double.isNaN(ts))
        {
            counters.computeIfAbsent(name, CounterTrack::new).add(ts, args);
        }
        else if ("M".equals(phase) && "thread_name".equals(name))
        {
            if (args.get("name") instanceof String threadName)
            {
                lane(pid, tid).name = threadName;
            }
        }
        else if (!"M".equals(phase))
        {
            ignored++;
        }
    }

    private void span(final long pid, final long tid, final String name, final String category, final double ts,
        final double dur)
    {
        final boolean phase = "phase".equals(category);
        if (phase || "checkpoint".equals(category))
        {
            markRows.add(key(pid, tid));
            (phase ? phases : checkpoints).add(new Mark(name, ts, ts + Math.max(0, dur)));
            return;
        }
        lane(pid, tid).add(name, category, ts, dur);
    }

    private double number(final JsonParser p, final JsonToken value, final String field) throws IOException
    {
        if (!value.isNumeric())
        {
            throw new IOException("Chrome trace " + file + ": event " + index + " has a non-numeric " + field);
        }
        return p.getDoubleValue();
    }

    /** @return the string and number members of an args object; nested values are skipped. */
    private static Map<String, Object> args(final JsonParser p, final JsonToken value) throws IOException
    {
        if (value != JsonToken.START_OBJECT)
        {
            p.skipChildren();
            return Map.of();
        }
        final Map<String, Object> found = new LinkedHashMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME)
        {
            final String field = p.currentName();
            final JsonToken t = p.nextToken();
            if (t == JsonToken.VALUE_STRING)
            {
                found.put(field, p.getText());
            }
            else if (t.isNumeric())
            {
                found.put(field, p.getDoubleValue());
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
        return lanes.computeIfAbsent(key(pid, tid), k -> new Lane(pid, tid));
    }

    private static String key(final long pid, final long tid)
    {
        return pid + ":" + tid;
    }
}
