package dev.spillway.cli.report;

import java.math.BigDecimal;
import java.util.Locale;
import java.util.Map;

/** Text helpers shared by the renderers: escaping, number formats and the page frame (well-formed XHTML). */
final class Html
{
    private static final String STYLE = String.join("\n",
        "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222}",
        "h1{font-size:20px}h2{font-size:16px;margin-top:28px}",
        "table{border-collapse:collapse;margin:8px 0}",
        "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}",
        "td:first-child,th:first-child{text-align:left}",
        "table.summary td,table.header td{text-align:left}",
        ".legend span{display:inline-block;margin-right:14px}",
        ".swatch{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:middle}",
        ".note{color:#666}",
        "svg text{font:11px system-ui,sans-serif;fill:#333}");

    private Html()
    {
    }

    /** @return {@code text} safe inside element content and attribute values. */
    static String escape(final String text)
    {
        final StringBuilder out = new StringBuilder(text.length() + 8);
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            switch (c)
            {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(c < 0x20 && c != '\n' && c != '\t' ? ' ' : c);
            }
        }
        return out.toString();
    }

    /** @return an SVG coordinate rounded to 0.01, without a trailing ".0". */
    static String num(final double v)
    {
        final double r = Math.round(v * 100.0) / 100.0;
        if (r == Math.rint(r) && Math.abs(r) < 1e15)
        {
            return Long.toString((long)r);
        }
        return Double.toString(r);
    }

    /** @return {@code v} with {@code decimals} decimals, or an em dash for NaN. */
    static String fixed(final double v, final int decimals)
    {
        return Double.isNaN(v) ? "\u2014" : String.format(Locale.ROOT, "%." + decimals + "f", v);
    }

    /** @return {@code v} in plain notation without trailing zeros, e.g. 12.5 or 100. */
    static String plain(final double v)
    {
        return BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
    }

    /** @return a duration given in microseconds, in ms below 2 s and in s above. */
    static String duration(final double micros)
    {
        return micros < 2e6 ? fixed(micros / 1e3, 2) + " ms" : fixed(micros / 1e6, 3) + " s";
    }

    static void open(final StringBuilder out, final String title)
    {
        out.append("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n")
            .append("<meta charset=\"utf-8\"/>\n<title>").append(escape(title)).append("</title>\n")
            .append("<style>\n").append(STYLE).append("\n</style>\n</head>\n<body>\n")
            .append("<h1>").append(escape(title)).append("</h1>\n");
    }

    static void close(final StringBuilder out)
    {
        out.append("</body>\n</html>\n");
    }

    /** Appends a two-column key/value table of class {@code cls}. */
    static void keyValueTable(final StringBuilder out, final String cls, final Map<String, String> lines)
    {
        out.append("<table class=\"").append(cls).append("\">\n");
        for (final Map.Entry<String, String> e : lines.entrySet())
        {
            out.append("<tr><th>").append(escape(e.getKey())).append("</th><td>")
                .append(escape(String.valueOf(e.getValue()))).append("</td></tr>\n");
        }
        out.append("</table>\n");
    }

    static String swatch(final String colour, final String label)
    {
        return "<span><i class=\"swatch\" style=\"background:" + colour + "\"></i>" + escape(label) + "</span>";
    }
}
