package dev.spillway.cli.report;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Colour classes of spans. Task spans are classed by kind, their name's prefix (text before the first ' ', '[' or
 * '('); the {@value #OWN_CLASSES} busiest kinds get their own class, the rest share "other tasks". A kind's colour is
 * a function of the kind alone ({@link #colourOf}), so it is the same in every report. IO spans are reads ("fetch",
 * "read"), writes ("evict", "write-behind", "write", ...) or other IO.
 */
final class SpanKinds
{
    /** The kernels' task kinds, and the runtime's, in colours far apart. */
    private static final Map<String, String> KNOWN = Map.ofEntries(
        Map.entry("gemm", "#59a14f"), Map.entry("trsm", "#f28e2b"), Map.entry("getrf", "#b07aa1"),
        Map.entry("fill", "#edc948"), Map.entry("initialize", "#76b7b2"), Map.entry("step", "#9c755f"),
        Map.entry("verify", "#ff9da7"), Map.entry("checksum", "#8cd17d"), Map.entry("checkpoint", "#d37295"),
        Map.entry("log", "#499894"), Map.entry("acquire", "#b6992d"));
    static final int OWN_CLASSES = 24;
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
            if (labels.size() < OWN_CLASSES)
            {
                taskClass.put(e.getKey(), labels.size());
                colours.add(colourOf(e.getKey()));
                labels.add(e.getKey());
            }
        }
        otherTask = ranked.size() > OWN_CLASSES ? add("other tasks", OTHER_COLOUR) : -1;
        read = add("IO read", READ_COLOUR);
        write = add("IO write", WRITE_COLOUR);
        otherIo = add("other IO", OTHER_COLOUR);
    }

    /** @return the colour of task kind {@code kind}: a fixed one for known kinds, else a hue from its hash. */
    static String colourOf(final String kind)
    {
        final String known = KNOWN.get(kind);
        return known != null ? known : "hsl(" + Math.floorMod(kind.hashCode() * 47, 360) + ",55%,55%)";
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
