package dev.spillway.cli.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import dev.spillway.memory.ByteUnits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Bench rows as JSON, markdown and charts: values plotted and tabulated equal those computed here. */
class BenchReportTest
{
    private static final double[] FRACTIONS = {100, 50, 25, 12.5, 6.25};
    /** In the order the charts draw them: sorted. */
    private static final List<String> POLICIES = List.of("a,s", "default", "p,s,d");

    @TempDir
    Path dir;

    /** Times grow as the fraction shrinks, differently per policy; mmap is not run at 100 %. */
    static List<BenchRow> rows(final String kernel, final double mmapSlowdown)
    {
        final List<BenchRow> rows = new ArrayList<>();
        final double incore = 2.0;
        for (int p = 0; p < POLICIES.size(); p++)
        {
            for (final double f : FRACTIONS)
            {
                final double time = incore * (1 + (p + 1) * 0.05 * (100 / f - 1));
                final double mmap = f == 100 ? Double.NaN : incore * (1 + mmapSlowdown * (100 / f - 1) / 15);
                rows.add(BenchRow.of(kernel, 8192, 1024, f, POLICIES.get(p), time, incore, mmap,
                    (long)(3e9 * 100 / f), (long)(1e9 * 100 / f), f == 100 ? 0 : (long)(2e9 * 100 / f), true));
            }
        }
        return rows;
    }

    @Test
    void jsonRoundTripKeepsEveryFieldAndWritesNanAsNull() throws IOException
    {
        final List<BenchRow> rows = rows("matmul", 4);
        final Path file = dir.resolve("bench.json");
        BenchTable.writeJson(file, rows);
        assertEquals(rows, BenchTable.readJson(file));

        final JsonNode first = new ObjectMapper().readTree(file.toFile()).get(0);
        assertEquals(List.of("kernel", "n", "tile", "fraction", "policy", "time_s", "incore_time_s", "mmap_time_s",
            "spillway_over_incore", "mmap_over_spillway", "bytes_read", "bytes_written", "io_lower_bound_bytes",
            "verified", "starpu_time_s", "starpu_incore_time_s"),
            fieldNames(first));
        assertTrue(first.get("mmap_time_s").isNull() && first.get("mmap_over_spillway").isNull(), first.toString());
        assertEquals(first.get("time_s").asDouble() / first.get("incore_time_s").asDouble(),
            first.get("spillway_over_incore").asDouble(), 1e-12);

        final String snake = new ObjectMapper().setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .writeValueAsString(rows.get(1));
        assertTrue(snake.contains("\"incore_time_s\":2.0") && snake.contains("\"mmap_over_spillway\":"), snake);

        Files.writeString(file, "[{\"kernel\":\"lu\",\"n\":4,\"tile\":2,\"fraction\":50,\"policy\":\"p\"," +
            "\"time_s\":1.5,\"incore_time_s\":null,\"bytes_read\":7,\"bytes_written\":8,\"verified\":true}]");
        final BenchRow partial = BenchTable.readJson(file).get(0);
        assertEquals(1.5, partial.timeS());
        assertTrue(Double.isNaN(partial.incoreTimeS()) && Double.isNaN(partial.mmapTimeS()) &&
            Double.isNaN(partial.spillwayOverIncore()), partial.toString());

        final Path missing = dir.resolve("none.json");
        assertTrue(assertThrows(IOException.class, () -> BenchTable.readJson(missing)).getMessage()
            .contains(missing.toString()));
    }

    @Test
    void markdownHasOneTablePerKernelSortedByFractionThenPolicy()
    {
        final List<BenchRow> rows = new ArrayList<>(rows("matmul", 4));
        rows.addAll(rows("stencil", 4));
        final String md = BenchTable.markdown(rows);
        final List<String> headings = md.lines().filter(l -> l.startsWith("### ")).toList();
        assertEquals(List.of("### matmul, n = 8192, tile 1024", "### stencil, n = 8192, tile 1024"), headings);

        final List<String[]> matmul = md.lines().takeWhile(l -> !l.startsWith("### stencil"))
            .filter(l -> l.startsWith("| ") && !l.startsWith("| fraction")).map(BenchReportTest::cells).toList();
        assertEquals(FRACTIONS.length * POLICIES.size(), matmul.size());
        assertEquals(List.of("100 %", "a,s"), List.of(matmul.get(0)[0], matmul.get(0)[1]));
        assertEquals(List.of("100 %", "default"), List.of(matmul.get(1)[0], matmul.get(1)[1]));
        assertEquals(List.of("6.25 %", "p,s,d"), List.of(matmul.get(14)[0], matmul.get(14)[1]));
        for (final String[] c : matmul)
        {
            final double time = Double.parseDouble(c[2]);
            final double incore = Double.parseDouble(c[3]);
            assertEquals(String.format(Locale.ROOT, "%.2f", time / incore), c[4]);
            if (c[0].equals("100 %"))
            {
                assertEquals(List.of("\u2014", "\u2014"), List.of(c[5], c[6]));
            }
            else
            {
                assertEquals(Double.parseDouble(c[5]) / time, Double.parseDouble(c[6]), 0.006);
            }
            final double f = Double.parseDouble(c[0].replace(" %", ""));
            assertEquals("\u2014", c[7], "no StarPU in this run");
            assertEquals(ByteUnits.format((long)(3e9 * 100 / f)), c[8]);
            assertEquals(f == 100 ? List.of("0 B", "\u2014") : List.of(ByteUnits.format((long)(2e9 * 100 / f)), "2.00"),
                List.of(c[10], c[11]), "lower bound and (read + written) / bound");
            assertEquals("yes", c[12]);
        }
    }

    @Test
    void chartDrawsOneLinePerPolicyPlusMmapAndStarPuForMatmul() throws Exception
    {
        final List<BenchRow> rows = new ArrayList<>(rows("matmul", 4));
        rows.addAll(rows("stencil", 4));
        final Path html = dir.resolve("chart.html");
        BenchChart.writeHtml(html, rows, "Kernels <test>");
        final HtmlDoc doc = HtmlDoc.parse(html);
        assertEquals("Kernels <test>", doc.one("//h1").getTextContent());

        final List<Element> matmul = doc.all("//svg[@data-kernel='matmul']/polyline");
        assertEquals(List.of("policy a,s", "policy default", "policy p,s,d", "mmap", BenchChart.STARPU_LABEL),
            matmul.stream().map(e -> e.getAttribute("data-series")).toList());
        assertEquals("6,4", matmul.get(4).getAttribute("stroke-dasharray"));
        assertEquals(POLICIES.size() + 1, doc.all("//svg[@data-kernel='stencil']/polyline").size());
        assertEquals(2, doc.all("//table[@class='bench']").size());
        assertEquals(FRACTIONS.length * POLICIES.size() + 1, doc.all("//table[@class='bench'][1]//tr").size());

        final Element frame = doc.all("//svg[@data-kernel='matmul']/rect").get(0);
        final double bottom = HtmlDoc.attr(frame, "y") + HtmlDoc.attr(frame, "height");
        final double one = HtmlDoc.attr(doc.one("//svg[@data-kernel='matmul']/line[@class='guide']"), "y1");
        for (int p = 0; p < POLICIES.size(); p++)
        {
            final List<double[]> points = HtmlDoc.points(matmul.get(p));
            assertEquals(FRACTIONS.length, points.size());
            for (int i = 0; i < FRACTIONS.length; i++)
            {
                final double expected = 1 + (p + 1) * 0.05 * (100 / FRACTIONS[i] - 1);
                assertEquals(expected, (bottom - points.get(i)[1]) / (bottom - one), 2e-3, POLICIES.get(p));
                assertTrue(i == 0 || points.get(i)[0] > points.get(i - 1)[0], "largest fraction on the left");
            }
        }
        final List<double[]> mmap = HtmlDoc.points(matmul.get(3));
        assertEquals(FRACTIONS.length - 1, mmap.size(), "mmap was not run at 100 %");
        assertEquals(1 + 4.0 * 15 / 15, (bottom - mmap.get(3)[1]) / (bottom - one), 2e-3);
        final List<double[]> starpu = HtmlDoc.points(matmul.get(4));
        final double[] slowdown = {1.13, 1.57, 1.55};
        for (int i = 0; i < slowdown.length; i++)
        {
            assertEquals(slowdown[i], (bottom - starpu.get(i)[1]) / (bottom - one), 2e-3);
            assertEquals(points(matmul.get(0)).get(i + 1)[0], starpu.get(i)[0], 1e-9, "StarPU at 50, 25, 12.5 %");
        }
    }

    @Test
    void starPuMeasuredInTheSameRunReplacesTheEarlierLineAndFillsItsColumn() throws Exception
    {
        final List<BenchRow> rows = rows("lu", 4).stream()
            .map(r -> r.withStarpu(r.fraction() == 100 ? 30 : 30 * (1 + 0.1 * (100 / r.fraction() - 1)), 30)).toList();
        final BenchRow quarter = rows.stream().filter(r -> r.fraction() == 25).findFirst().orElseThrow();
        assertEquals(1.3, quarter.starpuOverIncore(), 1e-12);
        assertEquals(quarter.timeS() / quarter.incoreTimeS(), quarter.spillwayOverIncore(), 1e-12, "unchanged");
        final Path file = dir.resolve("peer.json");
        BenchTable.writeJson(file, rows);
        assertEquals(rows, BenchTable.readJson(file));
        assertTrue(BenchTable.markdown(rows).lines().anyMatch(l -> l.startsWith("| 25 % |") &&
            cells(l)[7].equals("1.30")), BenchTable.markdown(rows));

        final Path html = dir.resolve("peer.html");
        BenchChart.writeHtml(html, rows, "LU with StarPU");
        final List<Element> lines = HtmlDoc.parse(html).all("//svg[@data-kernel='lu']/polyline");
        assertEquals(BenchChart.STARPU_MEASURED_LABEL, lines.get(lines.size() - 1).getAttribute("data-series"));
        assertTrue(lines.stream().noneMatch(e -> e.getAttribute("data-series").equals(BenchChart.STARPU_LABEL)));
        assertEquals(FRACTIONS.length, HtmlDoc.points(lines.get(lines.size() - 1)).size());
    }

    @Test
    void largeMmapSlowdownsSwitchToALogAxisAndLuGetsItsStarPuLine() throws Exception
    {
        final Path html = dir.resolve("lu.html");
        BenchChart.writeHtml(html, rows("lu", 60), "LU");
        final HtmlDoc doc = HtmlDoc.parse(html);
        final List<Element> lines = doc.all("//svg[@data-kernel='lu']/polyline");
        assertEquals(BenchChart.STARPU_LABEL, lines.get(lines.size() - 1).getAttribute("data-series"));
        final String svg = doc.one("//svg[@data-kernel='lu']").getTextContent();
        assertTrue(svg.contains("log scale)") && svg.contains("normalised time (\u00f7 Spillway in-core), log scale"),
            svg);
        final List<double[]> starpu = HtmlDoc.points(lines.get(lines.size() - 1));
        final double one = HtmlDoc.attr(doc.one("//svg[@data-kernel='lu']/line[@class='guide']"), "y1");
        assertTrue(one > starpu.get(0)[1] && starpu.get(0)[1] > starpu.get(1)[1] && starpu.get(1)[1] > starpu.get(2)[1],
            "1 < 1.30 < 1.68 < 1.74 upwards");
        final Element mmap = lines.get(lines.size() - 2);
        assertEquals("mmap", mmap.getAttribute("data-series"));
        final double top = HtmlDoc.attr(doc.all("//svg[@data-kernel='lu']/rect").get(0), "y");
        assertTrue(points(mmap).get(3)[1] > top, "the largest value stays inside the frame");
        assertFalse(doc.all("//svg[@data-kernel='lu']/text").isEmpty());
    }

    private static List<double[]> points(final Element e)
    {
        return HtmlDoc.points(e);
    }

    private static String[] cells(final String line)
    {
        final String[] raw = line.substring(1, line.length() - 1).split("\\|");
        final String[] out = new String[raw.length];
        for (int i = 0; i < raw.length; i++)
        {
            out[i] = raw[i].trim();
        }
        return out;
    }

    private static List<String> fieldNames(final JsonNode node)
    {
        final List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
