package dev.spillway.cli.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Renders a run and the Chrome trace that {@code SpillwayConfig.traceFile} wrote as one self-contained HTML page:
 * the run's context and figures, its baseline beside it, a timeline of the run's phases, checkpoint generations and
 * one lane per worker and for the IO thread, DRAM in use against the budget, store bandwidth, busy fraction over
 * time per lane, the cache counts and per-lane totals over the compute phase. Inline SVG and CSS only; hover a span
 * or chart for a tooltip.
 */
public final class UtilisationReport
{
    /** Above this many spans, lanes are drawn as one bar per pixel column instead of one rectangle per span. */
    static final int DETAILED_SPAN_LIMIT = 4000;
    /** Time buckets of the utilisation charts. */
    static final int UTIL_BUCKETS = 300;

    private UtilisationReport()
    {
    }

    /** @return where the trace of the report {@code html} is kept by default: beside it, {@code NAME.trace.json}. */
    public static Path traceNextTo(final Path html)
    {
        final String name = html.getFileName().toString();
        final int dot = name.lastIndexOf('.');
        return html.resolveSibling((dot > 0 ? name.substring(0, dot) : name) + ".trace.json");
    }

    /**
     * Writes the report.
     *
     * @param html            the page to write.
     * @param chromeTraceJson the trace to read; the page links it.
     * @param facts           what the page says of the run besides the trace.
     * @throws IOException if the trace is missing or not a Chrome trace (the message names the file), or the page
     *                     cannot be written.
     */
    public static void write(final Path html, final Path chromeTraceJson, final RunFacts facts) throws IOException
    {
        final TraceReader.Result trace = TraceReader.read(chromeTraceJson);
        final StringBuilder out = new StringBuilder(1 << 16);
        Html.open(out, "Spillway run report");
        Html.keyValueTable(out, "header", facts.header());
        Html.keyValueTable(out, "summary", facts.results());
        if (facts.baseline() != null)
        {
            out.append("<h2>Against the baseline</h2>\n");
            FactTables.comparison(out, facts.baseline());
        }
        traceLink(out, html, chromeTraceJson);
        if (trace.ignoredEvents() > 0)
        {
            out.append("<p class=\"note\">").append(trace.ignoredEvents()).append(" events of phases other than ")
                .append("X (complete span), C (counter) and M (metadata) were skipped.</p>\n");
        }
        final List<Lane> lanes = ordered(trace.lanes());
        final int spans = lanes.stream().mapToInt(l -> l.size).sum();
        final Plot plot = plot(trace);
        final TraceView view = spans == 0 ? null : new TraceView(lanes, trace.phases(), trace.checkpoints(), plot);
        if (view == null)
        {
            out.append("<p class=\"notice\">The trace holds no spans")
                .append(lanes.isEmpty() ? " and names no threads" : " (" + lanes.size() + " threads named)")
                .append(": nothing ran while tracing was on.</p>\n");
        }
        else
        {
            out.append("<h2>Timeline</h2>\n");
            view.legend(out);
            view.timeline(out, spans > DETAILED_SPAN_LIMIT);
        }
        counterCharts(out, trace, plot, facts.rawDisk());
        if (view != null)
        {
            out.append("<h2>Utilisation over time</h2>\n<p class=\"note\">Busy fraction per ")
                .append(Html.duration((plot.t1 - plot.t0) / UTIL_BUCKETS))
                .append(" bucket. The IO thread's reads (blue) and writes (red) are stacked.</p>\n");
            view.charts(out);
        }
        out.append("<h2>Counts</h2>\n");
        FactTables.counts(out, trace.counters());
        out.append("<h2>Totals</h2>\n");
        totals(lanes, trace.phases()).append(out);
        Html.close(out);
        Files.writeString(html, out, StandardCharsets.UTF_8);
    }

    private static void traceLink(final StringBuilder out, final Path html, final Path trace)
    {
        final String link = html.toAbsolutePath().getParent().equals(trace.toAbsolutePath().getParent())
            ? trace.getFileName().toString() : trace.toAbsolutePath().toUri().toString();
        out.append("<p class=\"note\">Trace: <a href=\"").append(Html.escape(link)).append("\">")
            .append(Html.escape(trace.getFileName().toString()))
            .append("</a> (Chrome trace events: open it in Perfetto or chrome://tracing)</p>\n");
    }

    private static void counterCharts(final StringBuilder out, final TraceReader.Result trace, final Plot plot,
        final RunFacts.DiskRates raw)
    {
        final CounterCharts charts = new CounterCharts(plot);
        final CounterTrack dram = trace.counters().get(CounterCharts.DRAM);
        final CounterTrack bandwidth = trace.counters().get(CounterCharts.BANDWIDTH);
        out.append("<h2>DRAM</h2>\n");
        if (dram == null || dram.size() == 0)
        {
            out.append("<p class=\"note\">The trace holds no DRAM samples.</p>\n");
        }
        else
        {
            charts.dram(out, dram, trace.counters().get(CounterCharts.BUDGET));
        }
        out.append("<h2>Store bandwidth</h2>\n");
        if (bandwidth == null || bandwidth.size() == 0)
        {
            out.append("<p class=\"note\">The trace holds no bandwidth samples.</p>\n");
        }
        else
        {
            charts.bandwidth(out, bandwidth, raw);
        }
    }

    /** @return the time range of everything in the trace: spans, marks and counter samples. */
    private static Plot plot(final TraceReader.Result trace)
    {
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        for (final Lane lane : trace.lanes())
        {
            for (int i = 0; i < lane.size; i++)
            {
                min = Math.min(min, lane.start[i]);
                max = Math.max(max, lane.end[i]);
            }
        }
        for (final List<Mark> marks : List.of(trace.phases(), trace.checkpoints()))
        {
            for (final Mark m : marks)
            {
                min = Math.min(min, m.start());
                max = Math.max(max, m.end());
            }
        }
        for (final CounterTrack c : trace.counters().values())
        {
            for (int i = 0; i < c.size(); i++)
            {
                min = Math.min(min, c.time(i));
                max = Math.max(max, c.time(i));
            }
        }
        return min > max ? new Plot(0, 1) : new Plot(min, max);
    }

    /** @return the totals over the compute phase where the trace marks one, else from the first span to the last. */
    private static Totals totals(final List<Lane> lanes, final List<Mark> phases)
    {
        for (final Mark m : phases)
        {
            if ("compute".equals(m.name()))
            {
                return new Totals(lanes, m.start(), m.end(), "the compute phase");
            }
        }
        double first = Double.POSITIVE_INFINITY;
        double last = Double.NEGATIVE_INFINITY;
        for (final Lane lane : lanes)
        {
            for (int i = 0; i < lane.size; i++)
            {
                first = Math.min(first, lane.start[i]);
                last = Math.max(last, lane.end[i]);
            }
        }
        return first > last ? new Totals(lanes, Double.NaN, Double.NaN, "") :
            new Totals(lanes, first, last, "the first span to the end of the last (the trace marks no compute phase)");
    }

    /** @return IO lanes first, then the others, each group in trace order. */
    private static List<Lane> ordered(final List<Lane> lanes)
    {
        final List<Lane> out = new ArrayList<>();
        lanes.stream().filter(Lane::isIo).forEach(out::add);
        lanes.stream().filter(l -> !l.isIo()).forEach(out::add);
        return out;
    }
}
