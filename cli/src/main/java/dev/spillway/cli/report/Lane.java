package dev.spillway.cli.report;

import java.util.Arrays;

/** One row (pid, tid) of a Chrome trace: its thread name and its complete ("X") spans, in microseconds. */
final class Lane
{
    final long pid;
    final long tid;
    String name;
    double[] start = new double[16];
    double[] end = new double[16];
    String[] names = new String[16];
    int size;
    private int ioSpans;

    Lane(final long pid, final long tid)
    {
        this.pid = pid;
        this.tid = tid;
        this.name = "tid " + tid;
    }

    void add(final String spanName, final String category, final double startMicros, final double durationMicros)
    {
        if (size == start.length)
        {
            start = Arrays.copyOf(start, size * 2);
            end = Arrays.copyOf(end, size * 2);
            names = Arrays.copyOf(names, size * 2);
        }
        start[size] = startMicros;
        end[size] = startMicros + Math.max(0, durationMicros);
        names[size] = spanName;
        size++;
        if ("io".equals(category))
        {
            ioSpans++;
        }
    }

    /** @return whether this is the IO thread's row: so named, or holding spans of category "io". */
    boolean isIo()
    {
        return ioSpans > 0 || "IO thread".equals(name);
    }

    /** @return the summed duration of span {@code i} within [from, to), in microseconds. */
    double busy(final int i, final double from, final double to)
    {
        return Math.max(0, Math.min(end[i], to) - Math.max(start[i], from));
    }

    /** @return the summed duration of the spans within [from, to), in microseconds. */
    double busy(final double from, final double to)
    {
        double sum = 0;
        for (int i = 0; i < size; i++)
        {
            sum += busy(i, from, to);
        }
        return sum;
    }
}
