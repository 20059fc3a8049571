package dev.spillway.cli.report;

/**
 * The shared frame of the page's timeline and charts: a label column, a plot area over the time range [t0, t1]
 * (microseconds of the trace), a right margin, and the time axis below.
 */
final class Plot
{
    static final int LABEL_W = 110;
    static final int PLOT_W = 1000;
    static final int RIGHT_W = 110;
    static final int AXIS_H = 34;

    final double t0;
    final double t1;

    /** @param t1 at least {@code t0}; an empty range is widened to one microsecond. */
    Plot(final double t0, final double t1)
    {
        this.t0 = t0;
        this.t1 = t1 > t0 ? t1 : t0 + 1;
    }

    /** @return the x coordinate of time {@code t}. */
    double x(final double t)
    {
        return LABEL_W + (t - t0) / (t1 - t0) * PLOT_W;
    }

    static void openSvg(final StringBuilder out, final String cls, final int height)
    {
        final int width = LABEL_W + PLOT_W + RIGHT_W;
        out.append("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"").append(cls).append("\" width=\"")
            .append(width).append("\" height=\"").append(height).append("\" viewBox=\"0 0 ").append(width).append(' ')
            .append(height).append("\">\n");
    }

    /** A right-aligned label in the label column, centred on {@code middle}. */
    static void label(final StringBuilder out, final String text, final double middle)
    {
        out.append("<text x=\"").append(LABEL_W - 6).append("\" y=\"").append(Html.num(middle + 4))
            .append("\" text-anchor=\"end\">").append(Html.escape(text)).append("</text>\n");
    }

    /** Ticks at 1, 2 or 5 times a power of ten, in ms or s since {@code t0}. */
    void timeAxis(final StringBuilder out, final int top)
    {
        final double range = t1 - t0;
        final double step = Ticks.niceStep(range / 8);
        out.append("<line x1=\"").append(LABEL_W).append("\" y1=\"").append(top).append("\" x2=\"")
            .append(LABEL_W + PLOT_W).append("\" y2=\"").append(top).append("\" stroke=\"#888\"/>\n");
        for (double t = 0; t <= range * (1 + 1e-9); t += step)
        {
            final double x = x(t0 + t);
            out.append("<line x1=\"").append(Html.num(x)).append("\" y1=\"").append(top).append("\" x2=\"")
                .append(Html.num(x)).append("\" y2=\"").append(top + 4).append("\" stroke=\"#888\"/>")
                .append("<text x=\"").append(Html.num(x)).append("\" y=\"").append(top + 16)
                .append("\" text-anchor=\"middle\">").append(tickLabel(t, step)).append("</text>\n");
        }
        out.append("<text x=\"").append(LABEL_W + PLOT_W).append("\" y=\"").append(top + 29)
            .append("\" text-anchor=\"end\">time since the trace began</text>\n");
    }

    private static String tickLabel(final double micros, final double step)
    {
        if (step >= 1e5)
        {
            return Html.plain(Math.round(micros / 1e5) / 10.0) + " s";
        }
        if (step >= 100)
        {
            return Html.plain(Math.round(micros / 100) / 10.0) + " ms";
        }
        return Html.plain(Math.round(micros * 10) / 10.0) + " \u00b5s";
    }
}
