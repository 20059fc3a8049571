package dev.spillway.cli.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Renders the Chrome trace that {@code SpillwayConfig.traceFile} writes as one self-contained HTML page: a summary
 * table, one timeline lane per worker and for the IO thread, busy fraction over time per lane (IO split into reads
 * and writes), and per-lane totals. Inline SVG and CSS only; hover a span or chart for a tooltip.
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

    /** @return where the trace of the report {@code html} is kept: beside it, {@code NAME.trace.json}. */
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
     * @param chromeTraceJson the trace to read.
     * @param summary         key/value lines for the table at the top, in iteration order.
     * @throws IOException if the trace is missing or not a Chrome trace (the message names the file), or the page
     *                     cannot be written.
     */
    public static void write(final Path html, final Path chromeTraceJson, final Map<String, String> summary)
        throws IOException
    {
        final TraceReader.Result trace = TraceReader.read(chromeTraceJson);
        final StringBuilder out = new StringBuilder(1 << 16);
        Html.open(out, "Spillway utilisation");
        Html.keyValueTable(out, summary);
        final String traceLink = html.toAbsolutePath().getParent().equals(chromeTraceJson.toAbsolutePath().getParent())
            ? chromeTraceJson.getFileName().toString() : chromeTraceJson.toAbsolutePath().toUri().toString();
        out.append("<p class=\"note\">Trace: <a href=\"").append(Html.escape(traceLink)).append("\">")
            .append(Html.escape(chromeTraceJson.getFileName().toString()))
            .append("</a> (Chrome trace events: open it in Perfetto or chrome://tracing)</p>\n");
        if (trace.ignoredEvents() > 0)
        {
            out.append("<p class=\"note\">").append(trace.ignoredEvents())
                .append(" events of phases other than X (complete span) and M (metadata) were skipped.</p>\n");
        }
        final List<Lane> lanes = ordered(trace.lanes());
        final int spans = lanes.stream().mapToInt(l -> l.size).sum();
        if (spans == 0)
        {
            out.append("<p class=\"notice\">The trace holds no spans")
                .append(lanes.isEmpty() ? " and names no threads" : " (" + lanes.size() + " threads named)")
                .append(": nothing ran while tracing was on.</p>\n");
            new Totals(lanes, Double.NaN).append(out);
        }
        else
        {
            final TraceView view = new TraceView(lanes);
            out.append("<h2>Timeline</h2>\n");
            view.legend(out);
            view.timeline(out, spans > DETAILED_SPAN_LIMIT);
            out.append("<h2>Utilisation over time</h2>\n<p class=\"note\">Busy fraction per ")
                .append(Html.duration((view.t1 - view.t0) / UTIL_BUCKETS))
                .append(" bucket. The IO thread's reads (blue) and writes (red) are stacked; the trace holds no byte ")
                .append("counts, see the summary for those.</p>\n");
            view.charts(out);
            out.append("<h2>Totals</h2>\n");
            new Totals(lanes, view.t1 - view.t0).append(out);
        }
        Html.close(out);
        Files.writeString(html, out, StandardCharsets.UTF_8);
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
