package dev.spillway.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Issue 18: the report of a real run, opened in a real headless browser (Debian's {@code chromium}), shows its DRAM
 * and bandwidth charts, drawn and painted, and no value as NaN. Without the browser the test skips, or fails under
 * {@code CI=true}.
 */
class ReportInBrowserTest
{
    /** Safety net of each browser call, which takes seconds: long enough for a machine ten times slower. */
    private static final long LIMIT_SECONDS = 120;
    private static final Pattern SERIES = Pattern.compile(
        "<polygon class=\"counter\" data-chart=\"(\\w+)\" data-series=\"(\\w+)\" fill=\"[^\"]+\" points=\"([^\"]*)\"");
    /** Colours of the DRAM objects series and the read and write bandwidth (CounterCharts), as 0xRRGGBB. */
    private static final int[] PAINTED = {0x5b8ff9, 0x3a78c2, 0xd6604d};

    @TempDir
    Path tmp;

    @Test
    void theReportOfARealRunShowsItsChartsInABrowser() throws Exception
    {
        final Path browser = browser();
        CiOrSkip.require(browser != null, "no chromium on PATH (scripts/ensure-toolchain installs it)");
        final Path report = tmp.resolve("lu.html");
        final InProcessCli cli = new InProcessCli();
        assertEquals(0, cli.run("run", "lu", "--n", "1024", "--tile", "128", "--dram", "12.5%", "--workers", "2",
            "--dir", tmp.resolve("spill").toString(), "--report", report.toString()), cli.err::toString);
        assertTrue(cli.err.toString().contains("trace (Chrome trace events, for Perfetto) written to " +
            tmp.resolve("lu.trace.json")), cli.err::toString);

        final String dom = browse(browser, report, "--dump-dom");
        assertTrue(dom.contains("<svg") && dom.contains("Spillway run report"), "the browser shows no page:\n" + dom);
        final List<String> drawn = new ArrayList<>();
        final Matcher m = SERIES.matcher(dom);
        while (m.find())
        {
            assertTrue(m.group(3).trim().split("\\s+").length >= 4, m.group(1) + " " + m.group(2) + " is empty");
            drawn.add(m.group(1) + " " + m.group(2));
        }
        assertTrue(drawn.containsAll(List.of("dram objects", "bandwidth read", "bandwidth write")),
            "charts drawn: " + drawn);
        assertTrue(dom.contains("class=\"level\" data-level=\"budget\""), "no budget line");
        assertTrue(!dom.contains("NaN") && !dom.contains("Infinity"), "a value renders as NaN:\n" + dom);

        final Path png = tmp.resolve("lu.png");
        browse(browser, report, "--hide-scrollbars", "--window-size=1300,3000", "--screenshot=" + png);
        final BufferedImage image = ImageIO.read(png.toFile());
        for (final int colour : PAINTED)
        {
            final int pixels = pixelsOf(image, colour);
            assertTrue(pixels > 300, String.format("%d pixels of #%06x painted", pixels, colour));
        }
    }

    /** @return Debian's chromium on the PATH, or null. */
    private static Path browser()
    {
        for (final String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
        {
            final Path candidate = Path.of(dir, "chromium");
            if (!dir.isEmpty() && Files.isExecutable(candidate))
            {
                return candidate;
            }
        }
        return null;
    }

    /** @return what the browser printed for the page with {@code flags}; fails if it fails or outlasts its limit. */
    private String browse(final Path browser, final Path page, final String... flags) throws Exception
    {
        final List<String> command = new ArrayList<>(List.of(browser.toString(), "--headless", "--no-sandbox",
            "--disable-gpu", "--disable-dev-shm-usage", "--user-data-dir=" + tmp.resolve("profile")));
        command.addAll(List.of(flags));
        command.add(page.toUri().toString());
        final Path out = tmp.resolve("browser.out");
        final Path err = tmp.resolve("browser.err");
        final Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(LIMIT_SECONDS, TimeUnit.SECONDS))
        {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            fail("chromium did not finish " + String.join(" ", flags) + " of " + page + " in " + LIMIT_SECONDS +
                " s; its error output:\n" + Files.readString(err));
        }
        assertEquals(0, p.exitValue(), () -> "chromium " + String.join(" ", flags) + " failed: " + readQuietly(err));
        return Files.readString(out);
    }

    private static String readQuietly(final Path file)
    {
        try
        {
            return Files.readString(file);
        }
        catch (final java.io.IOException e)
        {
            return "(unreadable: " + e.getMessage() + ")";
        }
    }

    private static int pixelsOf(final BufferedImage image, final int rgb)
    {
        int n = 0;
        for (int y = 0; y < image.getHeight(); y++)
        {
            for (int x = 0; x < image.getWidth(); x++)
            {
                n += (image.getRGB(x, y) & 0xffffff) == rgb ? 1 : 0;
            }
        }
        return n;
    }
}
