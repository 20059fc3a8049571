package dev.spillway.cli.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.spillway.Data;
import dev.spillway.Spillway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.IntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The utilisation page of hand-written, engine-written, large and broken Chrome traces. */
@Timeout(600)
class UtilisationReportTest
{
    private static final Pattern BAR = Pattern.compile("M[\\d.]+ [\\d.]+h([\\d.]+)v([\\d.]+)h-[\\d.]+z");
    private static final RunFacts SUMMARY = new RunFacts(Map.of("command", "spillway run"),
        new LinkedHashMap<>(Map.of("kernel", "test <&>")), null, null);

    @TempDir
    Path dir;

    @Test
    void rendersAHandWrittenTraceWithTheExpectedTotals() throws Exception
    {
        final Path trace = dir.resolve("trace.json");
        try (SyntheticTrace t = new SyntheticTrace(trace))
        {
            t.row(0, "IO thread").span(0, "fetch a", "io", 0, 100).span(0, "fetch b", "io", 100, 100)
                .span(0, "evict a", "io", 300, 100).span(0, "write-behind c", "io", 400, 50);
            t.row(1, "worker 0").span(1, "gemm 0 0 0", "task", 200, 500).span(1, "trsm[1]", "task", 700, 100);
            t.row(2, "worker 1").span(2, "getrf(0)", "task", 0, 1000);
        }
        final Path html = dir.resolve("report.html");
        UtilisationReport.write(html, trace, SUMMARY);
        final HtmlDoc doc = HtmlDoc.parse(html);

        assertEquals("test <&>", doc.one("//table[@class='summary']//td").getTextContent());
        assertEquals(List.of("IO thread", "worker 0", "worker 1"),
            doc.all("//g[@class='lane']").stream().map(e -> e.getAttribute("data-lane")).toList());
        assertEquals(7, doc.all("//rect[@class='span']").size());
        assertEquals(0, doc.all("//path[@class='agg']").size());
        assertEquals("35.0", busyCell(doc, "IO thread"));
        assertEquals("60.0", busyCell(doc, "worker 0"));
        assertEquals("100.0", busyCell(doc, "worker 1"));
        assertEquals("80.0", busyCell(doc, "workers (mean)"));
        final String io = doc.one("//tr[@data-lane='IO thread']/td[5]").getTextContent();
        assertTrue(io.startsWith("reads 2 (busy 20.0 %), writes 2 (busy 15.0 %)"), io);
        final String legend = doc.one("//div[@class='legend']").getTextContent();
        assertTrue(legend.contains("gemm") && legend.contains("trsm") && legend.contains("getrf") &&
            legend.contains("IO read") && legend.contains("IO write"), legend);

        assertEquals(0.60, chartMean(doc, "worker 0", "busy"), 1e-3);
        assertEquals(1.00, chartMean(doc, "worker 1", "busy"), 1e-3);
        assertEquals(0.80, chartMean(doc, "workers (mean)", "busy"), 1e-3);
        assertEquals(0.20, chartMean(doc, "IO thread", "read"), 1e-3);
        assertEquals(0.15, chartMean(doc, "IO thread", "write"), 1e-3);
        // worker 0 is idle over the first fifth: the first 60 of 300 buckets are at the baseline.
        final List<double[]> top = HtmlDoc.points(doc.one("//polygon[@data-lane='worker 0']"));
        final double base = top.get(top.size() - 1)[1];
        for (int b = 0; b < 120; b++)
        {
            assertEquals(base, top.get(b)[1], 1e-9, "point " + b);
        }
        assertTrue(top.get(120)[1] < base);
    }

    @Test
    void drawsCountersPhasesCheckpointsAndTheBaseline() throws Exception
    {
        final Path trace = dir.resolve("counters.json");
        final long mib = 1 << 20;
        final long gib = 1L << 30;
        try (SyntheticTrace t = new SyntheticTrace(trace))
        {
            t.row(0, "IO thread").span(0, "fetch a", "io", 250, 250);
            t.row(1, "worker 0").span(1, "gemm 0", "task", 0, 100).span(1, "gemm 1", "task", 100, 400)
                .span(1, "trsm 0", "task", 900, 100);
            t.row(2, "phases").span(2, "generation", "phase", 0, 100).span(2, "compute", "phase", 100, 800)
                .span(2, "verification", "phase", 900, 100);
            t.row(3, "checkpoints").span(3, "checkpoint 1", "checkpoint", 300, 100)
                .span(3, "checkpoint 2 abandoned", "checkpoint", 600, 50);
            final long[] objects = {0, mib, 3 * mib, 2 * mib, 2 * mib};
            final double[] read = {0, gib, 2 * gib, 0, 0};
            for (int i = 0; i < objects.length; i++)
            {
                t.counter("DRAM", 250 * i, "objects", objects[i], "pinned", i == 0 ? 0 : mib / 2, "staging", 0);
                t.counter("store bandwidth", 250 * i, "read", read[i], "write", i == 1 ? gib : 0);
            }
            t.counter("DRAM budget", 0, "budget", 4 * mib).counter("DRAM budget", 1000, "budget", 4 * mib);
            t.counter("cache", 1000, "hits", 1_234_500, "misses", 137_167);
            t.counter("evictions", 1000, "clean", 5, "dirty", 7);
            t.counter("background IO", 1000, "write-behinds", 3, "prefetches", 11);
        }
        final RunFacts.Comparison baseline = new RunFacts.Comparison(new RunFacts.Side("spillway", 2.5, 3 * gib, gib),
            new RunFacts.Side("incore", 1.0, 0, 0), true);
        final Path html = dir.resolve("counters.html");
        UtilisationReport.write(html, trace, new RunFacts(Map.of("command", "spillway run"), Map.of(), baseline,
            new RunFacts.DiskRates(3.0 * gib, 2.0 * gib, "bench.json")));
        final HtmlDoc doc = HtmlDoc.parse(html);

        assertEquals("50.0", busyCell(doc, "worker 0"), "busy over the compute phase, not over the whole trace");
        assertTrue(doc.one("//table[@class='totals']/following-sibling::p[1]").getTextContent()
            .contains("the compute phase"));
        assertEquals(3, doc.all("//g[@data-lane='phases']/rect[@class='mark']").size());
        assertEquals(2, doc.all("//g[@data-lane='checkpoints']/rect[@class='mark']").size());
        assertEquals(List.of("IO thread", "worker 0"),
            doc.all("//g[@class='lane']").stream().map(e -> e.getAttribute("data-lane")).toList());

        // the DRAM peak, 3.5 MiB, stands at 7/8 of the 4 MiB budget line.
        final Element budget = doc.one("//line[@data-level='budget']");
        final double base = HtmlDoc.attr(doc.all("//svg[@class='dram']/rect").get(0), "height");
        final double peak = HtmlDoc.points(doc.one("//polygon[@data-series='objects']")).stream()
            .mapToDouble(p -> p[1]).min().orElseThrow();
        assertEquals(0.875, (base - peak) / (base - HtmlDoc.attr(budget, "y1")), 1e-3);
        assertEquals(1, doc.all("//polygon[@data-series='pinned']").size());
        assertEquals(0, doc.all("//polygon[@data-series='staging']").size(), "no staging, nothing drawn");

        // mean read bandwidth 0.75 GiB/s is a quarter of the raw 3 GiB/s line, over the frame's width.
        final Element frame = doc.all("//svg[@class='bandwidth']/rect").get(0);
        final Element raw = doc.one("//line[@data-level='raw-read']");
        final double readArea = HtmlDoc.area(doc.one("//polygon[@data-chart='bandwidth' and @data-series='read']"));
        assertEquals(0.25, readArea / (HtmlDoc.attr(frame, "width") * (HtmlDoc.attr(frame, "height") -
            HtmlDoc.attr(raw, "y1"))), 1e-3);
        assertTrue(html.toFile().length() > 0 && Files.readString(html).contains("read 3 GiB/s and write 2 GiB/s"));

        assertEquals("1,234,500", doc.one("//tr[@data-count='hits']/td[2]").getTextContent());
        assertEquals("90.0 %", doc.one("//tr[@data-count='hit rate']/td[2]").getTextContent());
        assertEquals("7", doc.one("//tr[@data-count='dirty evictions']/td[2]").getTextContent());
        assertEquals("11", doc.one("//tr[@data-count='prefetches']/td[2]").getTextContent());

        final List<String> rows = doc.all("//table[@class='baseline']//tr").stream()
            .map(e -> e.getTextContent()).toList();
        assertEquals(List.of("spillwayincorespillway / incore", "compute time2.50 s1.00 s2.50\u00d7",
            "read from the store3 GiB0 B\u2014", "written to the store1 GiB0 B\u2014", "resultsbit-identical"), rows);
        assertNoNonNumbers(Files.readString(html));

        UtilisationReport.write(html, trace, new RunFacts(Map.of(), Map.of(), null, null));
        assertTrue(Files.readString(html).contains("No raw-disk figure is known"));
        assertEquals(0, HtmlDoc.parse(html).all("//line[@data-level='raw-read']").size());
    }

    /** Issue 18: a kind keeps its colour whichever kinds are busiest in a report. */
    @Test
    void aKindHasOneColourInEveryReport() throws Exception
    {
        final Map<String, String> first = spanColours("a.json", 100, 900);
        final Map<String, String> second = spanColours("b.json", 900, 100);
        assertEquals(first, second);
        assertEquals(SpanKinds.colourOf("gemm"), first.get("gemm"));
        assertTrue(!first.get("gemm").equals(first.get("potrf")), first.toString());
    }

    /** @return the colour of each kind on the page of a trace of a gemm and a potrf span. */
    private Map<String, String> spanColours(final String name, final double gemm, final double potrf)
        throws Exception
    {
        final Path trace = dir.resolve(name);
        try (SyntheticTrace t = new SyntheticTrace(trace))
        {
            t.row(1, "worker 0").span(1, "gemm 1", "task", 0, gemm).span(1, "potrf 1", "task", gemm, potrf);
        }
        final Path html = dir.resolve(name + ".html");
        UtilisationReport.write(html, trace, SUMMARY);
        final Map<String, String> colours = new HashMap<>();
        for (final Element span : HtmlDoc.parse(html).all("//rect[@class='span']"))
        {
            colours.put(SpanKinds.prefix(span.getTextContent()), span.getAttribute("fill"));
        }
        return colours;
    }

    /** Fails if the page shows a number Java could not format. */
    static void assertNoNonNumbers(final String page)
    {
        for (final String bad : List.of("NaN", "Infinity"))
        {
            assertTrue(!page.contains(bad), "the page shows " + bad);
        }
    }

    @Test
    void rendersARealEngineTrace() throws Exception
    {
        final int size = 64 << 10;
        final int objects = 8;
        final Path trace = dir.resolve("engine-trace.json");
        try (Spillway sw = Spillway.builder().workers(2).dramBudget(4L * size).storeDir(dir.resolve("spill"))
            .storeSizing(256, size).traceFile(trace).build())
        {
            final Data[] d = new Data[objects];
            for (int i = 0; i < objects; i++)
            {
                d[i] = sw.data("d" + i, size);
                final Data mine = d[i];
                sw.task("init[" + i + "]").write(mine).submit(ctx -> fill(ctx.buffer(mine)));
            }
            for (int i = 0; i < objects; i++)
            {
                sw.task("gemm " + i).read(d[i]).readWrite(d[(i + 1) % objects]).submit(ctx -> spin(1_000_000));
            }
            sw.awaitAll();
        }
        final Path html = dir.resolve("engine.html");
        UtilisationReport.write(html, trace, SUMMARY);
        final HtmlDoc doc = HtmlDoc.parse(html);

        final Expected expected = Expected.from(trace);
        assertEquals(List.of("IO thread", "worker 0", "worker 1"),
            doc.all("//g[@class='lane']").stream().map(e -> e.getAttribute("data-lane")).toList());
        int taskSpans = 0;
        for (final String lane : List.of("IO thread", "worker 0", "worker 1"))
        {
            final double busy = expected.busy.getOrDefault(lane, 0.0) / expected.range;
            assertEquals(100 * busy, Double.parseDouble(busyCell(doc, lane)), 0.05 + 1e-9, lane);
            final double drawn = expected.busy.getOrDefault(lane, 0.0) / expected.plotRange;
            final int spans = expected.spans.getOrDefault(lane, 0);
            assertEquals(spans, Integer.parseInt(doc.one("//tr[@data-lane='" + lane + "']/td[2]").getTextContent()));
            if (!lane.equals("IO thread"))
            {
                taskSpans += spans;
                if (spans > 0)
                {
                    assertEquals(drawn, chartMean(doc, lane, "busy"), 2e-3, lane);
                }
            }
        }
        assertEquals(2 * objects, taskSpans, "every task is one span on a worker lane");
        assertTrue(expected.spans.getOrDefault("IO thread", 0) > 0,
            "a budget of half the data makes the IO thread work");
        assertEquals(expected.spans.values().stream().mapToInt(Integer::intValue).sum(),
            doc.all("//rect[@class='span']").size());
        final String legend = doc.one("//div[@class='legend']").getTextContent();
        assertTrue(legend.contains("gemm") && legend.contains("init"), legend);
    }

    @Test
    void aggregatesALargeTraceIntoABoundedPage() throws Exception
    {
        final Path trace = dir.resolve("large.json");
        final int workers = 16;
        final int perWorker = 12_000;
        final int ioSpans = 8_000;
        final double end = 60e6;
        final double lastDuration = 1000;
        final Map<String, Double> busy = new HashMap<>();
        final Random random = new Random(42);
        try (SyntheticTrace t = new SyntheticTrace(trace))
        {
            t.row(0, "IO thread");
            busy.put("IO thread",
                spans(t, 0, ioSpans, end, random, i -> (i % 3 == 0 ? "evict d" : "fetch d") + i, "io"));
            for (int w = 1; w <= workers; w++)
            {
                t.row(w, "worker " + (w - 1));
                busy.put("worker " + (w - 1),
                    spans(t, w, perWorker, end, random, i -> (i % 4 == 0 ? "trsm " : "gemm ") + i, "task"));
            }
            // every other span ends before end: this one fixes the traced range at [0, end + lastDuration).
            t.span(workers, "gemm last", "task", end, lastDuration);
            busy.merge("worker " + (workers - 1), lastDuration, Double::sum);
        }
        final Path html = dir.resolve("large.html");
        UtilisationReport.write(html, trace, SUMMARY);
        final long bytes = Files.size(html);
        assertTrue(bytes < 3_000_000, "page of " + bytes + " bytes for " + (workers * perWorker + ioSpans) + " spans");

        final HtmlDoc doc = HtmlDoc.parse(html);
        assertEquals(0, doc.all("//rect[@class='span']").size());
        assertEquals(workers + 1, doc.all("//g[@class='lane']").size());
        final double range = end + lastDuration;
        for (final Map.Entry<String, Double> e : busy.entrySet())
        {
            final double fraction = e.getValue() / range;
            assertEquals(100 * fraction, Double.parseDouble(busyCell(doc, e.getKey())), 0.05 + 1e-9, e.getKey());
            final double barArea = doc.all("//g[@data-lane='" + e.getKey() + "']/path[@class='agg']").stream()
                .mapToDouble(UtilisationReportTest::barArea).sum();
            final Element lane = doc.all("//g[@data-lane='" + e.getKey() + "']/rect").get(0);
            final double barFraction = barArea / (HtmlDoc.attr(lane, "width") * HtmlDoc.attr(lane, "height"));
            assertEquals(fraction, barFraction, 0.03, "pixel bars of " + e.getKey());
        }
        assertEquals(busy.get("worker 3") / range, chartMean(doc, "worker 3", "busy"), 2e-3);
    }

    @Test
    void rendersTracesWithoutSpans() throws Exception
    {
        final Path empty = dir.resolve("empty.json");
        Files.writeString(empty, "{\"traceEvents\":[]}");
        final Path html = dir.resolve("empty.html");
        UtilisationReport.write(html, empty, SUMMARY);
        HtmlDoc doc = HtmlDoc.parse(html);
        assertTrue(doc.one("//p[@class='notice']").getTextContent().contains("no spans and names no threads"));
        assertEquals(0, doc.all("//svg").size());

        final Path metadata = dir.resolve("metadata.json");
        try (Spillway sw = Spillway.builder().workers(2).dramBudget(1 << 20).storeDir(dir.resolve("spill"))
            .storeSizing(256, 64 << 10).traceFile(metadata).build())
        {
            sw.awaitAll();
        }
        UtilisationReport.write(html, metadata, SUMMARY);
        doc = HtmlDoc.parse(html);
        assertTrue(doc.one("//p[@class='notice']").getTextContent().contains("(3 threads named)"));
        assertEquals(List.of("IO thread", "worker 0", "worker 1", "workers (mean)"),
            doc.all("//table[@class='totals']//tr[@data-lane]").stream().map(e -> e.getAttribute("data-lane"))
                .toList());
        assertEquals("0", doc.one("//tr[@data-lane='worker 1']/td[2]").getTextContent());
    }

    @Test
    void badTracesFailNamingTheFile() throws IOException
    {
        final Path html = dir.resolve("bad.html");
        final Path missing = dir.resolve("missing.json");
        assertNamesFile(assertThrows(IOException.class, () -> UtilisationReport.write(html, missing, SUMMARY)),
            missing);
        final List<String> texts = List.of("", "[1]", "{\"other\":1}",
            "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\"}]}", "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":");
        for (final String text : texts)
        {
            final Path bad = dir.resolve("bad.json");
            Files.writeString(bad, text);
            assertNamesFile(assertThrows(IOException.class, () -> UtilisationReport.write(html, bad, SUMMARY), text),
                bad);
        }
        assertTrue(Files.notExists(html));
    }

    private static void assertNamesFile(final IOException e, final Path file)
    {
        assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
    }

    /** @return the summed area of the "M x y h w v h h -w z" bars of a path. */
    private static double barArea(final Element path)
    {
        final Matcher bar = BAR.matcher(path.getAttribute("d"));
        double area = 0;
        int end = 0;
        while (bar.find() && bar.start() == end)
        {
            area += Double.parseDouble(bar.group(1)) * Double.parseDouble(bar.group(2));
            end = bar.end();
        }
        assertEquals(path.getAttribute("d").length(), end, "path data is only bars");
        return area;
    }

    private static String busyCell(final HtmlDoc doc, final String lane) throws Exception
    {
        return doc.one("//tr[@data-lane='" + lane + "']/td[@class='busy']").getTextContent();
    }

    /** @return the mean busy fraction a chart band shows: its area over the area of its frame. */
    private static double chartMean(final HtmlDoc doc, final String lane, final String kind) throws Exception
    {
        final Element band = doc.one("//polygon[@data-lane='" + lane + "' and @data-kind='" + kind + "']");
        final Element frame = doc.all("//polygon[@data-lane='" + lane + "' and @data-kind='" + kind +
            "']/preceding-sibling::rect").stream().reduce((a, b) -> b).orElseThrow();
        return HtmlDoc.area(band) / (HtmlDoc.attr(frame, "width") * HtmlDoc.attr(frame, "height"));
    }

    /** Writes back-to-back spans with random gaps over [0, end); @return their summed duration. */
    private static double spans(final SyntheticTrace t, final int tid, final int count, final double end,
        final Random random, final IntFunction<String> name, final String category)
        throws IOException
    {
        final double slot = end / count;
        double busy = 0;
        for (int i = 0; i < count; i++)
        {
            final double dur = slot * (0.1 + 0.85 * random.nextDouble());
            t.span(tid, name.apply(i), category, i * slot, dur);
            busy += dur;
        }
        return busy;
    }

    private static void fill(final ByteBuffer b)
    {
        while (b.remaining() >= 8)
        {
            b.putLong(b.position());
        }
    }

    private static void spin(final long nanos)
    {
        final long end = System.nanoTime() + nanos;
        while (System.nanoTime() < end)
        {
            Thread.onSpinWait();
        }
    }

    /**
     * Busy time and span count per lane, the range of the spans and that of every event (the charts' time axis),
     * read straight from the JSON.
     */
    private record Expected(Map<String, Double> busy, Map<String, Integer> spans, double range, double plotRange)
    {
        static Expected from(final Path trace) throws IOException
        {
            final JsonNode events = new ObjectMapper().readTree(trace.toFile()).get("traceEvents");
            final Map<Long, String> names = new HashMap<>();
            for (final JsonNode e : events)
            {
                if (e.get("ph").asText().equals("M"))
                {
                    names.put(e.get("tid").asLong(), e.get("args").get("name").asText());
                }
            }
            final Map<String, Double> busy = new HashMap<>();
            final Map<String, Integer> spans = new HashMap<>();
            double first = Double.POSITIVE_INFINITY;
            double last = Double.NEGATIVE_INFINITY;
            double start = Double.POSITIVE_INFINITY;
            double end = Double.NEGATIVE_INFINITY;
            for (final JsonNode e : events)
            {
                if (e.has("ts"))
                {
                    start = Math.min(start, e.get("ts").asDouble());
                    end = Math.max(end, e.get("ts").asDouble() + e.path("dur").asDouble(0));
                }
                if (e.get("ph").asText().equals("X"))
                {
                    final String lane = names.get(e.get("tid").asLong());
                    busy.merge(lane, e.get("dur").asDouble(), Double::sum);
                    spans.merge(lane, 1, Integer::sum);
                    first = Math.min(first, e.get("ts").asDouble());
                    last = Math.max(last, e.get("ts").asDouble() + e.get("dur").asDouble());
                }
            }
            return new Expected(busy, spans, last - first, end - start);
        }
    }
}
