package dev.spillway.cli.report;

import dev.spillway.memory.ByteUnits;

import java.util.Locale;
import java.util.Map;

/** The tables of what the page knows besides the trace: the run's context and figures, the baseline, the counts. */
final class FactTables
{
    private FactTables()
    {
    }

    /** The run beside its baseline: time, bytes read and written, the ratio of each, and whether results match. */
    static void comparison(final StringBuilder out, final RunFacts.Comparison c)
    {
        final RunFacts.Side a = c.run();
        final RunFacts.Side b = c.baseline();
        out.append("<table class=\"baseline\">\n<tr><th></th><th>").append(Html.escape(a.name())).append("</th><th>")
            .append(Html.escape(b.name())).append("</th><th>").append(Html.escape(a.name())).append(" / ")
            .append(Html.escape(b.name())).append("</th></tr>\n");
        row(out, "compute time", seconds(a.seconds()), seconds(b.seconds()), ratio(a.seconds(), b.seconds()));
        row(out, "read from the store", ByteUnits.format(a.bytesRead()), ByteUnits.format(b.bytesRead()),
            ratio(a.bytesRead(), b.bytesRead()));
        row(out, "written to the store", ByteUnits.format(a.bytesWritten()), ByteUnits.format(b.bytesWritten()),
            ratio(a.bytesWritten(), b.bytesWritten()));
        out.append("<tr><td>results</td><td colspan=\"3\">").append(c.identical() ? "bit-identical" : "DIFFER")
            .append("</td></tr>\n</table>\n");
    }

    /** Hits, misses, hit rate, evictions clean and dirty, write-behinds and prefetches: the counters' last values. */
    static void counts(final StringBuilder out, final Map<String, CounterTrack> counters)
    {
        final CounterTrack cache = counters.get("cache");
        final CounterTrack evictions = counters.get("evictions");
        final CounterTrack background = counters.get("background IO");
        if (cache == null || evictions == null || background == null)
        {
            out.append("<p class=\"note\">The trace holds no cache counters.</p>\n");
            return;
        }
        final double hits = cache.last("hits");
        final double misses = cache.last("misses");
        out.append("<table class=\"counts\">\n<tr><th>count</th><th>over the run</th></tr>\n");
        count(out, "hits", hits);
        count(out, "misses", misses);
        out.append("<tr data-count=\"hit rate\"><td>hit rate</td><td>")
            .append(hits + misses > 0 ? Html.fixed(100 * hits / (hits + misses), 1) + " %" : "\u2014")
            .append("</td></tr>\n");
        count(out, "clean evictions", evictions.last("clean"));
        count(out, "dirty evictions", evictions.last("dirty"));
        count(out, "write-behinds", background.last("write-behinds"));
        count(out, "prefetches", background.last("prefetches"));
        out.append("</table>\n<p class=\"note\">Hits and misses count the uses of objects by admitted tasks; a miss ")
            .append("reads the store.</p>\n");
    }

    private static void count(final StringBuilder out, final String name, final double value)
    {
        out.append("<tr data-count=\"").append(name).append("\"><td>").append(name).append("</td><td>")
            .append(String.format(Locale.ROOT, "%,d", Math.round(value))).append("</td></tr>\n");
    }

    private static void row(final StringBuilder out, final String what, final String a, final String b,
        final String ratio)
    {
        out.append("<tr><td>").append(what).append("</td><td>").append(Html.escape(a)).append("</td><td>")
            .append(Html.escape(b)).append("</td><td>").append(ratio).append("</td></tr>\n");
    }

    /** @return seconds with three significant digits (no fraction from 100 s), or an em dash. */
    static String seconds(final double s)
    {
        if (!Double.isFinite(s))
        {
            return "\u2014";
        }
        return (s >= 100 ? String.format(Locale.ROOT, "%.0f", s) : String.format(Locale.ROOT, "%.3g", s)) + " s";
    }

    /** @return a / b with three significant digits, or an em dash when b is not positive. */
    static String ratio(final double a, final double b)
    {
        if (!(b > 0) || !Double.isFinite(a))
        {
            return "\u2014";
        }
        final double r = a / b;
        return (r >= 100 ? String.format(Locale.ROOT, "%.0f", r) : String.format(Locale.ROOT, "%.3g", r)) + "\u00d7";
    }
}
