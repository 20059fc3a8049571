package dev.spillway.cli.report;

import dev.spillway.memory.ByteUnits;

import java.util.List;

import static dev.spillway.cli.report.Plot.LABEL_W;
import static dev.spillway.cli.report.Plot.PLOT_W;

/**
 * The charts of the trace's counter tracks, on the timeline's time axis: DRAM in use by component (stacked: staging,
 * pinned, objects, free pooled buffers) against the budget, each bucket showing its highest sample; and store read
 * and write bandwidth, each bucket's mean, against the disk's raw rates where they are known.
 */
final class CounterCharts
{
    static final String DRAM = "DRAM";
    static final String BUDGET = "DRAM budget";
    static final String BANDWIDTH = "store bandwidth";
    private static final List<String> DRAM_SERIES = List.of("staging", "pinned", "objects", "pooled");
    private static final List<String> DRAM_COLOURS = List.of("#f6bd16", "#9270ca", "#5b8ff9", "#c9d9f5");
    private static final String READ_COLOUR = "#3a78c2";
    private static final String WRITE_COLOUR = "#d6604d";
    private static final int DRAM_H = 120;
    private static final int BANDWIDTH_H = 70;
    private static final int GAP = 14;
    private static final int BUCKETS = PLOT_W / 2;

    private final Plot plot;

    CounterCharts(final Plot plot)
    {
        this.plot = plot;
    }

    /** DRAM by component, stacked, against the budget line (when the trace has one). */
    void dram(final StringBuilder out, final CounterTrack dram, final CounterTrack budget)
    {
        final double limit = budget == null ? 0 : budget.max("budget");
        final int[] peaks = dram.peaks(DRAM_SERIES, plot.t0, plot.t1, BUCKETS);
        final double[] total = new double[BUCKETS];
        final double[][] stacked = new double[DRAM_SERIES.size()][];
        for (int s = 0; s < DRAM_SERIES.size(); s++)
        {
            for (int b = 0; b < BUCKETS; b++)
            {
                total[b] += peaks[b] < 0 ? 0 : dram.value(DRAM_SERIES.get(s), peaks[b]);
            }
            stacked[s] = total.clone();
        }
        final double top = scale(Math.max(limit, max(total)));
        out.append("<div class=\"legend series\">");
        for (int s = DRAM_SERIES.size() - 1; s >= 0; s--)
        {
            out.append(Html.swatch(DRAM_COLOURS.get(s), DRAM_SERIES.get(s) + " (peak " +
                ByteUnits.format(Math.round(dram.max(DRAM_SERIES.get(s)))) + ")"));
        }
        out.append(limit > 0 ? Html.swatch("#222", "budget " + ByteUnits.format(Math.round(limit))) : "")
            .append("</div>\n");
        Plot.openSvg(out, "dram", DRAM_H + Plot.AXIS_H);
        frame(out, "DRAM in use", 0, DRAM_H, limit > 0 ? null : ByteUnits.format(Math.round(top)));
        double[] lower = new double[BUCKETS];
        for (int s = 0; s < DRAM_SERIES.size(); s++)
        {
            area(out, "dram", DRAM_SERIES.get(s), DRAM_COLOURS.get(s), 0, DRAM_H, top, lower, stacked[s],
                DRAM_SERIES.get(s) + ": peak " + ByteUnits.format(Math.round(dram.max(DRAM_SERIES.get(s)))));
            lower = stacked[s];
        }
        if (limit > 0)
        {
            level(out, "budget", "#222", 0, DRAM_H, top, limit, "budget " + ByteUnits.format(Math.round(limit)));
        }
        plot.timeAxis(out, DRAM_H);
        out.append("</svg>\n<p class=\"note\">DRAM allocated under the budget: buffers of data objects (resident ")
            .append("or being written back), pinned objects, IO staging, and free buffers the pool keeps for reuse; ")
            .append("each of ").append(BUCKETS).append(" buckets shows the sample of its highest total.</p>\n");
    }

    /** Store read and write bandwidth, on one scale, against the raw rates in {@code raw} (null: none known). */
    void bandwidth(final StringBuilder out, final CounterTrack bandwidth, final RunFacts.DiskRates raw)
    {
        final double[] read = bandwidth.means("read", plot.t0, plot.t1, BUCKETS);
        final double[] write = bandwidth.means("write", plot.t0, plot.t1, BUCKETS);
        final double rawRead = raw == null ? 0 : raw.readBytesPerSecond();
        final double rawWrite = raw == null ? 0 : raw.writeBytesPerSecond();
        final double top = scale(Math.max(Math.max(max(read), max(write)), Math.max(rawRead, rawWrite)));
        Plot.openSvg(out, "bandwidth", 2 * (BANDWIDTH_H + GAP) + Plot.AXIS_H);
        direction(out, "read", READ_COLOUR, 0, top, read, rawRead, bandwidth);
        direction(out, "write", WRITE_COLOUR, BANDWIDTH_H + GAP, top, write, rawWrite, bandwidth);
        plot.timeAxis(out, 2 * (BANDWIDTH_H + GAP));
        out.append("</svg>\n<p class=\"note\">Bytes per second between DRAM and the store, each of ").append(BUCKETS)
            .append(" buckets' mean. ");
        if (raw == null)
        {
            out.append("No raw-disk figure is known for this disk: run <code>spillway bench io --json FILE</code> ")
                .append("and pass <code>--disk-rates FILE</code> to draw its raw O_DIRECT rates here.");
        }
        else
        {
            out.append("Dashed: the disk's raw O_DIRECT rates, read ").append(ByteUnits.rate(rawRead))
                .append(" and write ").append(ByteUnits.rate(rawWrite)).append(", from ")
                .append(Html.escape(raw.source())).append('.');
        }
        out.append("</p>\n");
    }

    private void direction(final StringBuilder out, final String series, final String colour, final int y,
        final double top, final double[] values, final double raw, final CounterTrack track)
    {
        frame(out, "store " + series, y, BANDWIDTH_H, raw > 0 ? null : ByteUnits.rate(top));
        area(out, "bandwidth", series, colour, y, BANDWIDTH_H, top, new double[values.length], values,
            series + ": peak " + ByteUnits.rate(track.max(series)) + ", mean " +
                ByteUnits.rate(track.mean(series, plot.t0, plot.t1)));
        if (raw > 0)
        {
            level(out, "raw-" + series, colour, y, BANDWIDTH_H, top, raw, "raw " + ByteUnits.rate(raw));
        }
    }

    /** A chart's frame, its name, 0 at the bottom and, unless null, the value at its top. */
    private static void frame(final StringBuilder out, final String name, final int y, final int h,
        final String topLabel)
    {
        Plot.label(out, name, y + h / 2.0);
        out.append("<rect x=\"").append(LABEL_W).append("\" y=\"").append(y).append("\" width=\"").append(PLOT_W)
            .append("\" height=\"").append(h).append("\" fill=\"#fafafa\" stroke=\"#ddd\"/>\n")
            .append("<text x=\"").append(LABEL_W + PLOT_W + 4).append("\" y=\"").append(y + h).append("\">0</text>\n");
        if (topLabel != null)
        {
            out.append("<text x=\"").append(LABEL_W + PLOT_W + 4).append("\" y=\"").append(y + 9).append("\">")
                .append(Html.escape(topLabel)).append("</text>\n");
        }
    }

    /** A step-shaped area between {@code lower} and {@code upper}, values per bucket; {@code top} is the frame's top. */
    private static void area(final StringBuilder out, final String chart, final String series, final String colour,
        final int y, final int h, final double top, final double[] lower, final double[] upper, final String title)
    {
        boolean empty = true;
        final StringBuilder points = new StringBuilder(upper.length * 28);
        for (int b = 0; b < upper.length; b++)
        {
            empty &= upper[b] <= lower[b];
            final String py = Html.num(y + h - upper[b] / top * h);
            points.append(Html.num(LABEL_W + (double)b * PLOT_W / upper.length)).append(',').append(py).append(' ')
                .append(Html.num(LABEL_W + (double)(b + 1) * PLOT_W / upper.length)).append(',').append(py)
                .append(' ');
        }
        if (empty)
        {
            return;
        }
        for (int b = lower.length - 1; b >= 0; b--)
        {
            final String py = Html.num(y + h - lower[b] / top * h);
            points.append(Html.num(LABEL_W + (double)(b + 1) * PLOT_W / lower.length)).append(',').append(py)
                .append(' ').append(Html.num(LABEL_W + (double)b * PLOT_W / lower.length)).append(',').append(py)
                .append(' ');
        }
        out.append("<polygon class=\"counter\" data-chart=\"").append(chart).append("\" data-series=\"")
            .append(series).append("\" fill=\"").append(colour).append("\" points=\"")
            .append(points.toString().trim()).append("\"><title>").append(Html.escape(title))
            .append("</title></polygon>\n");
    }

    /** A dashed horizontal line at {@code value}, labelled in the right margin. */
    private static void level(final StringBuilder out, final String name, final String colour, final int y,
        final int h, final double top, final double value, final String label)
    {
        final String py = Html.num(y + h - value / top * h);
        out.append("<line class=\"level\" data-level=\"").append(name).append("\" x1=\"").append(LABEL_W)
            .append("\" x2=\"").append(LABEL_W + PLOT_W).append("\" y1=\"").append(py).append("\" y2=\"").append(py)
            .append("\" stroke=\"").append(colour).append("\" stroke-dasharray=\"6 4\"/>\n")
            .append("<text x=\"").append(LABEL_W + PLOT_W + 4).append("\" y=\"").append(py).append("\">")
            .append(Html.escape(label)).append("</text>\n");
    }

    /** @return the value at the top of a chart whose largest value is {@code max}: a little above it, never 0. */
    private static double scale(final double max)
    {
        return max > 0 ? max * 1.1 : 1;
    }

    private static double max(final double[] values)
    {
        double max = 0;
        for (final double v : values)
        {
            max = Math.max(max, v);
        }
        return max;
    }
}
