package dev.spillway.cli.report;

import java.util.Arrays;
import java.util.List;

import static dev.spillway.cli.report.Plot.LABEL_W;
import static dev.spillway.cli.report.Plot.PLOT_W;

/** The timeline lanes, with the run's phases and checkpoint generations above them, and the utilisation charts. */
final class TraceView
{
    private static final int LANE_H = 18;
    private static final int LANE_GAP = 6;
    private static final int CHART_H = 36;
    private static final int CHART_GAP = 12;
    private static final String BUSY_COLOUR = "#4e9a5b";
    private static final String PHASE_COLOUR = "#d9e2ec";
    private static final String ABANDONED_COLOUR = "#bbbbbb";

    private final List<Lane> lanes;
    private final List<Mark> phases;
    private final List<Mark> checkpoints;
    private final SpanKinds kinds;
    private final Plot plot;
    private final int[][] classes;

    TraceView(final List<Lane> lanes, final List<Mark> phases, final List<Mark> checkpoints, final Plot plot)
    {
        this.lanes = lanes;
        this.phases = phases;
        this.checkpoints = checkpoints;
        this.kinds = new SpanKinds(lanes);
        this.plot = plot;
        classes = new int[lanes.size()][];
        for (int l = 0; l < lanes.size(); l++)
        {
            classes[l] = kinds.classesOf(lanes.get(l));
        }
    }

    void legend(final StringBuilder out)
    {
        final boolean[] used = new boolean[kinds.labels.size()];
        for (final int[] c : classes)
        {
            for (final int k : c)
            {
                used[k] = true;
            }
        }
        out.append("<div class=\"legend\">");
        for (int k = 0; k < used.length; k++)
        {
            if (used[k])
            {
                out.append(Html.swatch(kinds.colours.get(k), kinds.labels.get(k)));
            }
        }
        out.append("</div>\n");
    }

    /**
     * Phases and checkpoints first (where the trace has them), then one lane per row; {@code aggregated} draws one
     * bar per pixel column whose height is the busy fraction.
     */
    void timeline(final StringBuilder out, final boolean aggregated)
    {
        final int markRows = (phases.isEmpty() ? 0 : 1) + (checkpoints.isEmpty() ? 0 : 1);
        final int height = (markRows + lanes.size()) * (LANE_H + LANE_GAP) + Plot.AXIS_H;
        Plot.openSvg(out, "timeline", height);
        int row = 0;
        if (!phases.isEmpty())
        {
            markLane(out, "phases", phases, row++ * (LANE_H + LANE_GAP));
        }
        if (!checkpoints.isEmpty())
        {
            markLane(out, "checkpoints", checkpoints, row++ * (LANE_H + LANE_GAP));
        }
        for (int l = 0; l < lanes.size(); l++)
        {
            final Lane lane = lanes.get(l);
            final int top = row++ * (LANE_H + LANE_GAP);
            out.append("<g class=\"lane\" data-lane=\"").append(Html.escape(lane.name)).append("\">\n");
            Plot.label(out, lane.name, top + LANE_H / 2.0);
            background(out, top);
            if (aggregated)
            {
                aggregatedLane(out, l, top);
            }
            else
            {
                detailedLane(out, l, top);
            }
            out.append("</g>\n");
        }
        plot.timeAxis(out, row * (LANE_H + LANE_GAP));
        out.append("</svg>\n");
        if (aggregated)
        {
            out.append("<p class=\"note\">Each bar is one pixel column (")
                .append(Html.duration((plot.t1 - plot.t0) / PLOT_W))
                .append("): its height is the busy fraction (at least 1 px when busy at all), its colour the busiest ")
                .append("kind.</p>\n");
        }
    }

    private static void background(final StringBuilder out, final int top)
    {
        out.append("<rect x=\"").append(LABEL_W).append("\" y=\"").append(top).append("\" width=\"").append(PLOT_W)
            .append("\" height=\"").append(LANE_H).append("\" fill=\"#f3f3f3\"/>\n");
    }

    /** A lane of named intervals, each labelled inside when it is wide enough. */
    private void markLane(final StringBuilder out, final String name, final List<Mark> marks, final int top)
    {
        out.append("<g class=\"marks\" data-lane=\"").append(name).append("\">\n");
        Plot.label(out, name, top + LANE_H / 2.0);
        background(out, top);
        for (final Mark m : marks)
        {
            final double x = plot.x(m.start());
            final double w = Math.max(0.5, plot.x(m.end()) - x);
            final String colour = "phases".equals(name) ? PHASE_COLOUR :
                m.name().endsWith("abandoned") ? ABANDONED_COLOUR : SpanKinds.colourOf("checkpoint");
            out.append("<rect class=\"mark\" x=\"").append(Html.num(x)).append("\" y=\"").append(top)
                .append("\" width=\"").append(Html.num(w)).append("\" height=\"").append(LANE_H)
                .append("\" fill=\"").append(colour).append("\" stroke=\"#fff\"><title>").append(Html.escape(m.name()))
                .append(": ").append(Html.duration(m.end() - m.start())).append(" from ")
                .append(Html.duration(m.start() - plot.t0)).append("</title></rect>\n");
            if (w > 7 * m.name().length())
            {
                out.append("<text x=\"").append(Html.num(x + 4)).append("\" y=\"").append(top + 13).append("\">")
                    .append(Html.escape(m.name())).append("</text>\n");
            }
        }
        out.append("</g>\n");
    }

    private void detailedLane(final StringBuilder out, final int l, final int top)
    {
        final Lane lane = lanes.get(l);
        for (int i = 0; i < lane.size; i++)
        {
            final double x = plot.x(lane.start[i]);
            final double w = Math.max(0.3, plot.x(lane.end[i]) - x);
            out.append("<rect class=\"span\" x=\"").append(Html.num(x)).append("\" y=\"").append(top)
                .append("\" width=\"").append(Html.num(w)).append("\" height=\"").append(LANE_H)
                .append("\" fill=\"").append(kinds.colours.get(classes[l][i])).append("\"><title>")
                .append(Html.escape(lane.names[i])).append(": ").append(Html.duration(lane.end[i] - lane.start[i]))
                .append(" at ").append(Html.duration(lane.start[i] - plot.t0)).append("</title></rect>\n");
        }
    }

    private void aggregatedLane(final StringBuilder out, final int l, final int top)
    {
        final double[][] busy = BusyBuckets.of(lanes.get(l), classes[l], kinds.labels.size(), plot.t0, plot.t1,
            PLOT_W);
        final double width = (plot.t1 - plot.t0) / PLOT_W;
        final StringBuilder[] bars = new StringBuilder[busy.length];
        int runStart = 0;
        int runClass = -1;
        int runHeight = 0;
        for (int px = 0; px <= PLOT_W; px++)
        {
            int cls = -1;
            int h = 0;
            if (px < PLOT_W)
            {
                double total = 0;
                double best = 0;
                for (int c = 0; c < busy.length; c++)
                {
                    total += busy[c][px];
                    if (busy[c][px] > best)
                    {
                        best = busy[c][px];
                        cls = c;
                    }
                }
                h = cls < 0 ? 0 : Math.max(1, (int)Math.round(Math.min(1.0, total / width) * LANE_H));
            }
            if (cls != runClass || h != runHeight)
            {
                if (runClass >= 0)
                {
                    if (bars[runClass] == null)
                    {
                        bars[runClass] = new StringBuilder();
                    }
                    bars[runClass].append('M').append(LABEL_W + runStart).append(' ').append(top + LANE_H - runHeight)
                        .append('h').append(px - runStart).append('v').append(runHeight).append("h-")
                        .append(px - runStart).append('z');
                }
                runStart = px;
                runClass = cls;
                runHeight = h;
            }
        }
        for (int c = 0; c < bars.length; c++)
        {
            if (bars[c] != null)
            {
                out.append("<path class=\"agg\" fill=\"").append(kinds.colours.get(c)).append("\" d=\"")
                    .append(bars[c]).append("\"/>\n");
            }
        }
    }

    /** Busy fraction over time: all workers (mean), each worker, and the IO thread with reads and writes stacked. */
    void charts(final StringBuilder out)
    {
        final List<Lane> workers = lanes.stream().filter(l -> !l.isIo()).toList();
        final int rows = lanes.size() + (workers.size() > 1 ? 1 : 0);
        Plot.openSvg(out, "utilisation", rows * (CHART_H + CHART_GAP) + Plot.AXIS_H);
        final double width = (plot.t1 - plot.t0) / UtilisationReport.UTIL_BUCKETS;
        final double[] mean = new double[UtilisationReport.UTIL_BUCKETS];
        final double[] zero = new double[UtilisationReport.UTIL_BUCKETS];
        int row = workers.size() > 1 ? 1 : 0;
        for (int l = 0; l < lanes.size(); l++)
        {
            final Lane lane = lanes.get(l);
            final double[][] busy = BusyBuckets.of(lane, classes[l], kinds.labels.size(), plot.t0, plot.t1,
                UtilisationReport.UTIL_BUCKETS);
            final int top = row++ * (CHART_H + CHART_GAP);
            chartFrame(out, lane.name, top);
            if (lane.isIo())
            {
                final double[] reads = BusyBuckets.fraction(busy, kinds.read, kinds.read + 1, width);
                final double[] readsWrites = BusyBuckets.fraction(busy, kinds.read, kinds.write + 1, width);
                final double[] all = BusyBuckets.fraction(busy, 0, busy.length, width);
                band(out, lane.name, "read", SpanKinds.READ_COLOUR, top, zero, reads);
                band(out, lane.name, "write", SpanKinds.WRITE_COLOUR, top, reads, readsWrites);
                band(out, lane.name, "other", "#a0a0a0", top, readsWrites, all);
            }
            else
            {
                final double[] f = BusyBuckets.fraction(busy, 0, busy.length, width);
                band(out, lane.name, "busy", BUSY_COLOUR, top, zero, f);
                for (int b = 0; b < f.length; b++)
                {
                    mean[b] += f[b] / workers.size();
                }
            }
        }
        if (workers.size() > 1)
        {
            chartFrame(out, "workers (mean)", 0);
            band(out, "workers (mean)", "busy", BUSY_COLOUR, 0, zero, mean);
        }
        plot.timeAxis(out, rows * (CHART_H + CHART_GAP));
        out.append("</svg>\n");
    }

    private void chartFrame(final StringBuilder out, final String name, final int top)
    {
        Plot.label(out, name, top + CHART_H / 2.0);
        out.append("<rect x=\"").append(LABEL_W).append("\" y=\"").append(top).append("\" width=\"").append(PLOT_W)
            .append("\" height=\"").append(CHART_H).append("\" fill=\"#fafafa\" stroke=\"#ddd\"/>\n")
            .append("<text x=\"").append(LABEL_W + PLOT_W + 4).append("\" y=\"").append(top + 9)
            .append("\">100%</text>\n")
            .append("<text x=\"").append(LABEL_W + PLOT_W + 4).append("\" y=\"").append(top + CHART_H)
            .append("\">0%</text>\n");
    }

    /** A step-shaped band between {@code lower} and {@code upper} (fractions per bucket). */
    private void band(final StringBuilder out, final String lane, final String what, final String colour,
        final int top, final double[] lower, final double[] upper)
    {
        final int n = upper.length;
        final double base = top + CHART_H;
        double area = 0;
        final StringBuilder points = new StringBuilder(n * 28);
        for (int b = 0; b < n; b++)
        {
            final double y = base - upper[b] * CHART_H;
            area += upper[b] - lower[b];
            points.append(Html.num(LABEL_W + (double)b * PLOT_W / n)).append(',').append(Html.num(y)).append(' ')
                .append(Html.num(LABEL_W + (double)(b + 1) * PLOT_W / n)).append(',').append(Html.num(y)).append(' ');
        }
        if (area <= 0)
        {
            return;
        }
        if (Arrays.stream(lower).allMatch(v -> v == 0))
        {
            points.append(LABEL_W + PLOT_W).append(',').append(Html.num(base)).append(' ')
                .append(LABEL_W).append(',').append(Html.num(base));
        }
        else
        {
            for (int b = n - 1; b >= 0; b--)
            {
                final double y = base - lower[b] * CHART_H;
                points.append(Html.num(LABEL_W + (double)(b + 1) * PLOT_W / n)).append(',').append(Html.num(y))
                    .append(' ').append(Html.num(LABEL_W + (double)b * PLOT_W / n)).append(',').append(Html.num(y))
                    .append(' ');
            }
        }
        out.append("<polygon class=\"util\" data-lane=\"").append(Html.escape(lane)).append("\" data-kind=\"")
            .append(what).append("\" fill=\"").append(colour).append("\" points=\"")
            .append(points.toString().trim()).append("\"><title>").append(Html.escape(lane)).append(' ').append(what)
            .append(": ").append(Html.fixed(100.0 * area / n, 1)).append(" % on average</title></polygon>\n");
    }
}
