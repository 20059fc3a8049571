package dev.spillway.cli.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Charts of {@link BenchRow}s like Figures 6.5, 6.7 and 6.11 of the CHARM-HMC thesis: per kernel, normalised time
 * (time / Spillway in-core time) against the DRAM fraction, largest on the left, one line per policy, one for mmap
 * and, for matmul and LU, StarPU's slowdown: from the same run where {@code --peer starpu} measured it, else from the
 * earlier measurement. Each chart is followed by its table.
 */
public final class BenchChart
{
    static final String STARPU_LABEL = "StarPU 1.3.10 (lws, O_DIRECT), measured";
    static final String STARPU_MEASURED_LABEL = "StarPU 1.3 in this run (--peer starpu)";
    /** Slowdown vs in core at 50, 25 and 12.5 % DRAM: /work/shared/reference/anchors-starpu-measured.md, section 0. */
    private static final double[] STARPU_FRACTIONS = {50, 25, 12.5};
    private static final Map<String, double[]> STARPU = Map.of(
        "matmul", new double[] {1.13, 1.57, 1.55},
        "lu", new double[] {1.30, 1.68, 1.74});
    private static final String[] COLOURS =
    {
        "#2f6fb3", "#59a14f", "#f28e2b", "#b07aa1", "#76b7b2", "#edc948", "#9c755f", "#ff9da7", "#499894", "#d37295"
    };
    private static final String MMAP_COLOUR = "#c8453b";
    private static final String STARPU_COLOUR = "#444444";
    /** Above this ratio of largest to smallest value the y axis is logarithmic. */
    private static final double LOG_Y_SPREAD = 6;

    private static final int LEFT = 64;
    private static final int PLOT_W = 480;
    private static final int PLOT_H = 300;
    private static final int TOP = 16;
    private static final int LEGEND_W = 290;
    private static final int BOTTOM = 48;

    private BenchChart()
    {
    }

    /** Writes one chart and table per kernel, in order of first appearance, to a self-contained HTML page. */
    public static void writeHtml(final Path html, final List<BenchRow> rows, final String title) throws IOException
    {
        final StringBuilder out = new StringBuilder(1 << 14);
        Html.open(out, title);
        if (rows.isEmpty())
        {
            out.append("<p class=\"notice\">No bench rows.</p>\n");
        }
        for (final Map.Entry<String, List<BenchRow>> kernel : BenchTable.byKernel(rows).entrySet())
        {
            out.append("<h2>").append(Html.escape(BenchTable.heading(kernel.getKey(), kernel.getValue())))
                .append("</h2>\n");
            chart(out, kernel.getKey(), kernel.getValue());
            BenchTable.appendHtml(out, kernel.getValue());
        }
        Html.close(out);
        Files.writeString(html, out, StandardCharsets.UTF_8);
    }

    /** One line of the chart: mean value per fraction. */
    private record Series(String label, String colour, boolean dashed, TreeMap<Double, double[]> points)
    {
        Series(final String label, final String colour, final boolean dashed)
        {
            this(label, colour, dashed, new TreeMap<>());
        }

        void add(final double fraction, final double value)
        {
            if (Double.isFinite(value) && value > 0)
            {
                final double[] sumCount = points.computeIfAbsent(fraction, f -> new double[2]);
                sumCount[0] += value;
                sumCount[1]++;
            }
        }

        double mean(final double fraction)
        {
            final double[] sumCount = points.get(fraction);
            return sumCount[0] / sumCount[1];
        }
    }

    private static List<Series> series(final String kernel, final List<BenchRow> rows)
    {
        final Map<String, Series> policies = new LinkedHashMap<>();
        final Series mmap = new Series("mmap", MMAP_COLOUR, false);
        for (final BenchRow r : rows)
        {
            final String colour = COLOURS[policies.size() % COLOURS.length];
            policies.computeIfAbsent(r.policy(), p -> new Series("policy " + p, colour, false))
                .add(r.fraction(), r.spillwayOverIncore());
            mmap.add(r.fraction(), r.mmapTimeS() / r.incoreTimeS());
        }
        final List<Series> all = new ArrayList<>(policies.values());
        if (!mmap.points().isEmpty())
        {
            all.add(mmap);
        }
        final Series measured = new Series(STARPU_MEASURED_LABEL, STARPU_COLOUR, false);
        rows.stream().filter(r -> !Double.isNaN(r.starpuOverIncore()))
            .forEach(r -> measured.add(r.fraction(), r.starpuOverIncore()));
        final double[] starpu = STARPU.get(kernel.toLowerCase(Locale.ROOT));
        if (!measured.points().isEmpty())
        {
            all.add(measured);
        }
        else if (starpu != null)
        {
            final Series s = new Series(STARPU_LABEL, STARPU_COLOUR, true);
            for (int i = 0; i < starpu.length; i++)
            {
                s.add(STARPU_FRACTIONS[i], starpu[i]);
            }
            all.add(s);
        }
        return all;
    }

    private static void chart(final StringBuilder out, final String kernel, final List<BenchRow> rows)
    {
        final List<Series> all = series(kernel, rows);
        final TreeMap<Double, Boolean> fractions = new TreeMap<>();
        double yMin = 1;
        double yMax = 1;
        for (final Series s : all)
        {
            for (final double f : s.points().keySet())
            {
                fractions.put(f, true);
                yMin = Math.min(yMin, s.mean(f));
                yMax = Math.max(yMax, s.mean(f));
            }
        }
        if (fractions.isEmpty())
        {
            out.append("<p class=\"notice\">No measured times to chart.</p>\n");
            return;
        }
        final Axes axes = new Axes(fractions.firstKey(), fractions.lastKey(), yMin, yMax, yMax / yMin > LOG_Y_SPREAD);
        final int width = LEFT + PLOT_W + LEGEND_W;
        final int height = TOP + PLOT_H + BOTTOM;
        out.append("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"bench-chart\" data-kernel=\"")
            .append(Html.escape(kernel)).append("\" width=\"").append(width).append("\" height=\"").append(height)
            .append("\" viewBox=\"0 0 ").append(width).append(' ').append(height).append("\">\n");
        axes.draw(out, fractions.keySet());
        for (int i = 0; i < all.size(); i++)
        {
            line(out, all.get(i), axes);
            legendEntry(out, all.get(i), i);
        }
        out.append("</svg>\n");
    }

    private static void line(final StringBuilder out, final Series s, final Axes axes)
    {
        final StringBuilder points = new StringBuilder();
        final StringBuilder markers = new StringBuilder();
        for (final double f : s.points().descendingKeySet())
        {
            final double x = axes.x(f);
            final double y = axes.y(s.mean(f));
            points.append(points.length() == 0 ? "" : " ").append(Html.num(x)).append(',').append(Html.num(y));
            markers.append("<circle cx=\"").append(Html.num(x)).append("\" cy=\"").append(Html.num(y))
                .append("\" r=\"3.5\" fill=\"").append(s.colour()).append("\"><title>").append(Html.escape(s.label()))
                .append(" at ").append(Html.plain(f)).append(" %: ").append(Html.fixed(s.mean(f), 2))
                .append("\u00d7</title></circle>\n");
        }
        out.append("<polyline class=\"series\" data-series=\"").append(Html.escape(s.label()))
            .append("\" fill=\"none\" stroke=\"").append(s.colour()).append("\" stroke-width=\"2\"")
            .append(s.dashed() ? " stroke-dasharray=\"6,4\"" : "").append(" points=\"").append(points)
            .append("\"/>\n").append(markers);
    }

    private static void legendEntry(final StringBuilder out, final Series s, final int index)
    {
        final int x = LEFT + PLOT_W + 20;
        final int y = TOP + 10 + index * 20;
        out.append("<line x1=\"").append(x).append("\" y1=\"").append(y).append("\" x2=\"").append(x + 24)
            .append("\" y2=\"").append(y).append("\" stroke=\"").append(s.colour()).append("\" stroke-width=\"2\"")
            .append(s.dashed() ? " stroke-dasharray=\"6,4\"" : "").append("/><text x=\"").append(x + 30)
            .append("\" y=\"").append(y + 4).append("\">").append(Html.escape(s.label())).append("</text>\n");
    }

    /** Log x over the DRAM fraction (largest left); linear or log y over the normalised time. */
    private static final class Axes
    {
        private final double logFMax;
        private final double logFSpan;
        private final boolean logY;
        private final double yLo;
        private final double yHi;

        Axes(final double fMin, final double fMax, final double yMin, final double yMax, final boolean logY)
        {
            logFMax = Math.log(fMax) + (fMax == fMin ? 0.5 : 0);
            logFSpan = fMax == fMin ? 1 : Math.log(fMax) - Math.log(fMin);
            this.logY = logY;
            if (logY)
            {
                yLo = Math.log(yMin / 1.15);
                yHi = Math.log(yMax * 1.15);
            }
            else
            {
                yLo = 0;
                yHi = yMax * 1.1;
            }
        }

        /** Leaves 6 % of the width free at either end. */
        double x(final double fraction)
        {
            return LEFT + PLOT_W * (0.06 + 0.88 * (logFMax - Math.log(fraction)) / logFSpan);
        }

        double y(final double value)
        {
            final double v = logY ? Math.log(value) : value;
            return TOP + PLOT_H * (1 - (v - yLo) / (yHi - yLo));
        }

        void draw(final StringBuilder out, final Iterable<Double> fractions)
        {
            out.append("<rect x=\"").append(LEFT).append("\" y=\"").append(TOP).append("\" width=\"").append(PLOT_W)
                .append("\" height=\"").append(PLOT_H).append("\" fill=\"none\" stroke=\"#888\"/>\n");
            for (final double f : fractions)
            {
                final double x = x(f);
                out.append("<line x1=\"").append(Html.num(x)).append("\" y1=\"").append(TOP + PLOT_H)
                    .append("\" x2=\"").append(Html.num(x)).append("\" y2=\"").append(TOP + PLOT_H + 4)
                    .append("\" stroke=\"#888\"/><text x=\"").append(Html.num(x)).append("\" y=\"")
                    .append(TOP + PLOT_H + 17).append("\" text-anchor=\"middle\">").append(Html.plain(f))
                    .append("</text>\n");
            }
            for (final double v : yTicks())
            {
                final double y = y(v);
                out.append("<line x1=\"").append(LEFT - 4).append("\" y1=\"").append(Html.num(y)).append("\" x2=\"")
                    .append(LEFT).append("\" y2=\"").append(Html.num(y)).append("\" stroke=\"#888\"/><text x=\"")
                    .append(LEFT - 7).append("\" y=\"").append(Html.num(y + 4)).append("\" text-anchor=\"end\">")
                    .append(Html.plain(v)).append("</text>\n");
            }
            final double one = y(1.0);
            out.append("<line class=\"guide\" x1=\"").append(LEFT).append("\" y1=\"").append(Html.num(one))
                .append("\" x2=\"").append(LEFT + PLOT_W).append("\" y2=\"").append(Html.num(one))
                .append("\" stroke=\"#999\" stroke-dasharray=\"2,3\"/>\n")
                .append("<text x=\"").append(LEFT + PLOT_W / 2).append("\" y=\"").append(TOP + PLOT_H + 38)
                .append("\" text-anchor=\"middle\">DRAM available (% of the data, log scale)</text>\n")
                .append("<text transform=\"translate(16,").append(TOP + PLOT_H / 2).append(") rotate(-90)\"")
                .append(" text-anchor=\"middle\">normalised time (\u00f7 Spillway in-core)")
                .append(logY ? ", log scale" : "").append("</text>\n");
        }

        private List<Double> yTicks()
        {
            final List<Double> ticks = new ArrayList<>();
            if (logY)
            {
                for (double decade = Math.pow(10, Math.floor(yLo / Math.log(10))); Math.log(decade) <= yHi;
                    decade *= 10)
                {
                    for (final double m : new double[] {1, 2, 5})
                    {
                        final double v = Math.round(m * decade * 1e6) / 1e6;
                        if (Math.log(v) >= yLo && Math.log(v) <= yHi)
                        {
                            ticks.add(v);
                        }
                    }
                }
            }
            else
            {
                final double step = Ticks.niceStep(yHi / 6);
                for (int i = 0; i * step <= yHi; i++)
                {
                    ticks.add(Math.round(i * step * 1e6) / 1e6);
                }
            }
            return ticks;
        }
    }
}
