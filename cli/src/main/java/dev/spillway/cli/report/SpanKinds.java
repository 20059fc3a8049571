package dev.spillway.cli.report;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Colour classes of spans. Task spans are classed by name prefix (text before the first ' ', '[' or '('); the ten
 * busiest prefixes get their own colour, the rest share "other". IO spans are reads ("fetch", "read"), writes
 * ("evict", "write-behind", "write", ...) or other IO.
 */
final class SpanKinds
{
    private static final String[] TASK_COLOURS =
    {
        "#59a14f", "#f28e2b", "#b07aa1", "#edc948", "#76b7b2", "#9c755f", "#ff9da7", "#8cd17d", "#d37295", "#499894"
    };
    static final String READ_COLOUR = "#2f6fb3";
    static final String WRITE_COLOUR = "#c8453b";
    private static final String OTHER_COLOUR = "#a0a0a0";

    final List<String> labels = new ArrayList<>();
    final List<String> colours = new ArrayList<>();
    final int read;
    final int write;
    final int otherIo;
    private final Map<String, Integer> taskClass = new HashMap<>();
    private final int otherTask;

    SpanKinds(final List<Lane> lanes)
    {
        final Map<String, Double> busyByPrefix = new HashMap<>();
        for (final Lane lane : lanes)
        {
            if (!lane.isIo())
            {
                for (int i = 0; i < lane.size; i++)
                {
                    busyByPrefix.merge(prefix(lane.names[i]), lane.end[i] - lane.start[i], Double::sum);
                }
            }
        }
        final List<Map.Entry<String, Double>> ranked = new ArrayList<>(busyByPrefix.entrySet());
        ranked.sort(Map.Entry.<String, Double>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()));
        for (final Map.Entry<String, Double> e : ranked)
        {
            if (labels.size() < TASK_COLOURS.length)
            {
                taskClass.put(e.getKey(), labels.size());
                colours.add(TASK_COLOURS[labels.size()]);
                labels.add(e.getKey());
            }
        }
        otherTask = ranked.size() > TASK_COLOURS.length ? add("other tasks", OTHER_COLOUR) : -1;
        read = add("IO read", READ_COLOUR);
        write = add("IO write", WRITE_COLOUR);
        otherIo = add("other IO", OTHER_COLOUR);
    }

    private int add(final String label, final String colour)
    {
        labels.add(label);
        colours.add(colour);
        return labels.size() - 1;
    }

    /** @return the class id of each span of {@code lane}. */
    int[] classesOf(final Lane lane)
    {
        final int[] classes = new int[lane.size];
        final boolean io = lane.isIo();
        for (int i = 0; i < lane.size; i++)
        {
            if (io)
            {
                final IoKind kind = ioKind(lane.names[i]);
                classes[i] = kind == IoKind.READ ? read : kind == IoKind.WRITE ? write : otherIo;
            }
            else
            {
                classes[i] = taskClass.getOrDefault(prefix(lane.names[i]), otherTask);
            }
        }
        return classes;
    }

    /** @return the text before the first ' ', '[' or '(', or the whole name when that is empty. */
    static String prefix(final String name)
    {
        for (int i = 0; i < name.length(); i++)
        {
            final char c = name.charAt(i);
            if (c == ' ' || c == '[' || c == '(')
            {
                return i == 0 ? name : name.substring(0, i);
            }
        }
        return name;
    }

    enum IoKind
    {
        READ, WRITE, OTHER
    }

    /** @return the transfer direction named by the first word of an IO span. */
    static IoKind ioKind(final String name)
    {
        final String kind = prefix(name);
        return switch (kind)
        {
            case "fetch", "read", "prefetch" -> IoKind.READ;
            case "evict", "write-behind", "write", "writeback", "write-back", "spill" -> IoKind.WRITE;
            default -> IoKind.OTHER;
        };
    }
}
