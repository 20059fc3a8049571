package dev.spillway.cli.report;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.spillway.memory.ByteUnits;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** Tables of {@link BenchRow}s: markdown, one table per kernel, and JSON files. */
public final class BenchTable
{
    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private record Column(String header, Function<BenchRow, String> cell)
    {
    }

    private static final List<Column> COLUMNS = List.of(
        new Column("fraction", r -> Html.plain(r.fraction()) + " %"),
        new Column("policy", BenchRow::policy),
        new Column("time s", r -> Html.fixed(r.timeS(), 3)),
        new Column("in-core s", r -> Html.fixed(r.incoreTimeS(), 3)),
        new Column("spillway/in-core", r -> Html.fixed(r.spillwayOverIncore(), 2)),
        new Column("mmap s", r -> Html.fixed(r.mmapTimeS(), 3)),
        new Column("mmap/spillway", r -> Html.fixed(r.mmapOverSpillway(), 2)),
        new Column("StarPU/its in-core", r -> Html.fixed(r.starpuOverIncore(), 2)),
        new Column("read", r -> ByteUnits.format(r.bytesRead())),
        new Column("written", r -> ByteUnits.format(r.bytesWritten())),
        new Column("lower bound", r -> ByteUnits.format(r.ioLowerBoundBytes())),
        new Column("moved/bound", r -> Html.fixed(r.movedOverBound(), 2)),
        new Column("verified", r -> r.verified() ? "yes" : "NO"));

    private BenchTable()
    {
    }

    /**
     * @return one markdown table per kernel, in order of first appearance; rows by fraction (largest first), then
     *         policy.
     */
    public static String markdown(final List<BenchRow> rows)
    {
        final StringBuilder out = new StringBuilder();
        for (final Map.Entry<String, List<BenchRow>> kernel : byKernel(rows).entrySet())
        {
            out.append("### ").append(heading(kernel.getKey(), kernel.getValue())).append("\n\n|");
            COLUMNS.forEach(c -> out.append(' ').append(c.header()).append(" |"));
            out.append("\n|");
            COLUMNS.forEach(c -> out.append(c.header().equals("policy") ? "---|" : "---:|"));
            out.append('\n');
            for (final BenchRow r : kernel.getValue())
            {
                out.append('|');
                COLUMNS.forEach(c -> out.append(' ').append(c.cell().apply(r).replace("|", "\\|")).append(" |"));
                out.append('\n');
            }
            out.append('\n');
        }
        return out.toString();
    }

    /** Writes {@code rows} as a JSON array with snake_case keys; unmeasured times are {@code null}. */
    public static void writeJson(final Path file, final List<BenchRow> rows) throws IOException
    {
        MAPPER.writeValue(file.toFile(), rows);
    }

    /** @return the rows of a file written by {@link #writeJson}. */
    public static List<BenchRow> readJson(final Path file) throws IOException
    {
        if (!Files.isRegularFile(file))
        {
            throw new NoSuchFileException(file.toString(), null, "no bench results file here");
        }
        try
        {
            return MAPPER.readValue(file.toFile(), new TypeReference<List<BenchRow>>()
            {
            });
        }
        catch (final IOException e)
        {
            throw new IOException("cannot read bench rows from " + file + ": " + e.getMessage(), e);
        }
    }

    /** @return the rows grouped by kernel in order of first appearance, each group sorted for display. */
    static Map<String, List<BenchRow>> byKernel(final List<BenchRow> rows)
    {
        final Map<String, List<BenchRow>> groups = new LinkedHashMap<>();
        for (final BenchRow r : rows)
        {
            groups.computeIfAbsent(r.kernel(), k -> new ArrayList<>()).add(r);
        }
        groups.values().forEach(g -> g.sort(Comparator.comparingDouble(BenchRow::fraction).reversed()
            .thenComparing(BenchRow::policy)));
        return groups;
    }

    /** @return e.g. "matmul, n = 8192, tile 1024". */
    static String heading(final String kernel, final List<BenchRow> rows)
    {
        final String ns = String.join("/", rows.stream().map(r -> Long.toString(r.n())).distinct().toList());
        final String tiles = String.join("/", rows.stream().map(r -> Integer.toString(r.tile())).distinct().toList());
        return kernel + ", n = " + ns + ", tile " + tiles;
    }

    /** Appends the rows of one kernel as an HTML table with the markdown table's columns. */
    static void appendHtml(final StringBuilder out, final List<BenchRow> kernelRows)
    {
        out.append("<table class=\"bench\">\n<tr>");
        COLUMNS.forEach(c -> out.append("<th>").append(Html.escape(c.header())).append("</th>"));
        out.append("</tr>\n");
        for (final BenchRow r : kernelRows)
        {
            out.append("<tr>");
            COLUMNS.forEach(c -> out.append("<td>").append(Html.escape(c.cell().apply(r))).append("</td>"));
            out.append("</tr>\n");
        }
        out.append("</table>\n");
    }
}
