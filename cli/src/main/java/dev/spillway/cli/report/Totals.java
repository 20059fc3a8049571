package dev.spillway.cli.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The per-lane totals table over a window of the trace (the compute phase where the trace marks it): busy time and
 * busy fraction within the window; span counts, task counts by kind and IO reads and writes of the whole trace.
 */
final class Totals
{
    private static final int KINDS_SHOWN = 8;

    private final List<Lane> lanes;
    private final double from;
    private final double to;
    private final String window;

    /**
     * @param from   the window's start, in trace microseconds; NaN without spans.
     * @param to     its end.
     * @param window what the window is, for the note under the table.
     */
    Totals(final List<Lane> lanes, final double from, final double to, final String window)
    {
        this.lanes = lanes;
        this.from = from;
        this.to = to;
        this.window = window;
    }

    void append(final StringBuilder out)
    {
        out.append("<table class=\"totals\">\n<tr><th>lane</th><th>spans</th><th>busy</th><th>busy %</th>")
            .append("<th>detail</th></tr>\n");
        final double range = to - from;
        double workerBusy = 0;
        int workers = 0;
        for (final Lane lane : lanes)
        {
            final double busy = Double.isNaN(range) ? 0 : lane.busy(from, to);
            out.append("<tr data-lane=\"").append(Html.escape(lane.name)).append("\"><td>")
                .append(Html.escape(lane.name)).append("</td><td>").append(lane.size).append("</td><td>")
                .append(Html.duration(busy)).append("</td><td class=\"busy\">")
                .append(Html.fixed(100 * busy / range, 1))
                .append("</td><td>").append(Html.escape(lane.isIo() ? ioDetail(lane, range) : taskDetail(lane)))
                .append("</td></tr>\n");
            if (!lane.isIo())
            {
                workerBusy += busy;
                workers++;
            }
        }
        if (workers > 1)
        {
            out.append("<tr data-lane=\"workers (mean)\"><td>workers (mean)</td><td></td><td>")
                .append(Html.duration(workerBusy / workers)).append("</td><td class=\"busy\">")
                .append(Html.fixed(100 * workerBusy / workers / range, 1)).append("</td><td></td></tr>\n");
        }
        out.append("</table>\n");
        if (!Double.isNaN(range))
        {
            out.append("<p class=\"note\">Busy and busy % are over ").append(Html.escape(window)).append(" (")
                .append(Html.duration(range)).append("); spans and kinds count the whole trace.</p>\n");
        }
        if (lanes.stream().anyMatch(Lane::isIo))
        {
            out.append("<p class=\"note\">IO reads count fetch spans; fetching an object that was never written ")
                .append("allocates DRAM without reading the store, so the store's read count can be lower.</p>\n");
        }
    }

    private static String taskDetail(final Lane lane)
    {
        final Map<String, Integer> counts = new TreeMap<>();
        for (int i = 0; i < lane.size; i++)
        {
            counts.merge(SpanKinds.prefix(lane.names[i]), 1, Integer::sum);
        }
        final List<Map.Entry<String, Integer>> ranked = new ArrayList<>(counts.entrySet());
        ranked.sort(Map.Entry.<String, Integer>comparingByValue().reversed());
        final StringBuilder text = new StringBuilder();
        for (int i = 0; i < ranked.size(); i++)
        {
            if (i == KINDS_SHOWN)
            {
                text.append(", ").append(ranked.size() - KINDS_SHOWN).append(" more kinds");
                break;
            }
            text.append(i == 0 ? "" : ", ").append(ranked.get(i).getKey()).append(' ').append(ranked.get(i).getValue());
        }
        return text.toString();
    }

    private String ioDetail(final Lane lane, final double range)
    {
        final Map<String, Integer> byKind = new LinkedHashMap<>();
        int reads = 0;
        int writes = 0;
        double readBusy = 0;
        double writeBusy = 0;
        for (int i = 0; i < lane.size; i++)
        {
            byKind.merge(SpanKinds.prefix(lane.names[i]), 1, Integer::sum);
            final SpanKinds.IoKind kind = SpanKinds.ioKind(lane.names[i]);
            if (kind == SpanKinds.IoKind.READ)
            {
                reads++;
                readBusy += lane.busy(i, from, to);
            }
            else if (kind == SpanKinds.IoKind.WRITE)
            {
                writes++;
                writeBusy += lane.busy(i, from, to);
            }
        }
        final StringBuilder text = new StringBuilder()
            .append("reads ").append(reads).append(" (busy ").append(Html.fixed(100 * readBusy / range, 1))
            .append(" %), writes ").append(writes).append(" (busy ").append(Html.fixed(100 * writeBusy / range, 1))
            .append(" %)");
        String separator = ": ";
        for (final Map.Entry<String, Integer> e : byKind.entrySet())
        {
            text.append(separator).append(e.getKey()).append(' ').append(e.getValue());
            separator = ", ";
        }
        return text.toString();
    }
}
