package dev.spillway.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * StarPU 1.3 beside Spillway in {@code bench kernels --peer starpu}: tiled GEMM by {@code ooc_tiled.c} (ours, built
 * here: every tile StarPU-allocated and first written by a task, so StarPU may evict it to its disk swap) and LU by
 * StarPU's stock out-of-core example ({@code plu_outofcore_example_double}, tiles homed on disk), on the same sizes,
 * workers and memory caps, with {@code STARPU_LIMIT_CPU_MEM} set to the budget. Needs Debian's StarPU packages.
 */
final class StarpuPeer
{
    static final String PACKAGES = "libstarpu-dev starpu-examples openmpi-bin build-essential pkg-config";
    static final Path PLU = Path.of("/usr/lib/x86_64-linux-gnu/starpu/mpi/plu_outofcore_example_double");
    private static final Pattern OOC_TILED = Pattern.compile("^RESULT .*?compute_s=([\\d.]+) .*?check=(\\S+)",
        Pattern.MULTILINE);
    private static final Pattern PLU_TOOK = Pattern.compile("Computation took: ([\\d.]+) ms");

    private final Path dir;
    private final Path oocTiled;
    private final int workers;
    private final long timeoutS;

    private StarpuPeer(final Path dir, final Path oocTiled, final int workers, final long timeoutS)
    {
        this.dir = dir;
        this.oocTiled = oocTiled;
        this.workers = workers;
        this.timeoutS = timeoutS;
    }

    /** One peer run: its compute time, or why it failed, and whether its result was checked. */
    record Result(double timeS, boolean checked, String failure)
    {
        boolean ok()
        {
            return failure == null;
        }
    }

    /**
     * Builds {@code ooc_tiled} into {@code dir}.
     *
     * @throws IllegalStateException naming what is missing and the packages to install.
     */
    static StarpuPeer build(final Path dir, final int workers, final long timeoutS)
        throws IOException, InterruptedException
    {
        final List<String> missing = new ArrayList<>();
        if (exit(List.of("pkg-config", "--exists", "starpu-1.3")) != 0)
        {
            missing.add("pkg-config starpu-1.3");
        }
        if (exit(List.of("gcc", "--version")) != 0)
        {
            missing.add("gcc");
        }
        if (exit(List.of("mpirun", "--version")) != 0)
        {
            missing.add("mpirun");
        }
        if (!Files.isExecutable(PLU))
        {
            missing.add(PLU.toString());
        }
        if (!missing.isEmpty())
        {
            throw new IllegalStateException("--peer starpu needs StarPU 1.3 (missing: " + String.join(", ", missing) +
                "): apt-get install -y " + PACKAGES);
        }
        Files.createDirectories(dir.resolve("home"));
        final Path source = dir.resolve("ooc_tiled.c");
        try (InputStream in = StarpuPeer.class.getResourceAsStream("starpu/ooc_tiled.c"))
        {
            Files.copy(in, source, StandardCopyOption.REPLACE_EXISTING);
        }
        final Path binary = dir.resolve("ooc_tiled");
        final String flags = new String(new ProcessBuilder("pkg-config", "--cflags", "--libs", "starpu-1.3").start()
            .getInputStream().readAllBytes()).trim();
        final List<String> gcc = new ArrayList<>(List.of("gcc", "-O2", "-o", binary.toString(), source.toString()));
        gcc.addAll(List.of(flags.split("\\s+")));
        gcc.addAll(List.of("-lopenblas", "-lm"));
        final Process p = new ProcessBuilder(gcc).redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0)
        {
            throw new IllegalStateException("cannot build " + source + ": " + out);
        }
        return new StarpuPeer(dir, binary, workers, timeoutS);
    }

    /**
     * Runs {@code kernel} ("matmul" or "lu") of order {@code n} in {@code tile}-sized tiles, limited to
     * {@code budget} bytes ({@code -1}: in core), in {@code group} when capped.
     */
    Result run(final String kernel, final int n, final int tile, final long budget, final MemoryCgroup group,
        final Path log) throws IOException, InterruptedException
    {
        final Path swap = dir.resolve("swap");
        deleteTree(swap);
        Files.createDirectories(swap);
        final List<String> cmd = command(kernel, n, tile, swap);
        final ProcessBuilder pb = new ProcessBuilder(group == null ? cmd : group.wrap(cmd)).redirectErrorStream(true)
            .redirectOutput(log.toFile());
        pb.environment().putAll(environment(budget, swap));
        final Process p = pb.start();
        try
        {
            if (!p.waitFor(timeoutS, TimeUnit.SECONDS))
            {
                p.destroyForcibly().waitFor();
                return new Result(Double.NaN, false, "timed out after " + timeoutS + " s");
            }
            final String out = Files.readString(log);
            if (p.exitValue() != 0)
            {
                return new Result(Double.NaN, false, "exit " + p.exitValue() + (group != null &&
                    group.limitHits() > 0 ? " (memory cap hit " + group.limitHits() + " times)" : "") + ", see " +
                    log);
            }
            return parse(kernel, out, log);
        }
        finally
        {
            deleteTree(swap);
        }
    }

    /** @return the time and check status from a run's output, or a failure naming {@code log}. */
    static Result parse(final String kernel, final String out, final Path log)
    {
        final Matcher m = ("matmul".equals(kernel) ? OOC_TILED : PLU_TOOK).matcher(out);
        if (!m.find())
        {
            return new Result(Double.NaN, false, "no time in its output, see " + log);
        }
        if ("matmul".equals(kernel))
        {
            return "ok".equals(m.group(2)) ? new Result(Double.parseDouble(m.group(1)), true, null) :
                new Result(Double.NaN, false, "its check says " + m.group(2) + ", see " + log);
        }
        return new Result(Double.parseDouble(m.group(1)) / 1000, false, null);
    }

    List<String> command(final String kernel, final int n, final int tile, final Path swap)
    {
        return switch (kernel)
        {
            case "matmul" -> List.of(oocTiled.toString(), "gemm", "-n", Integer.toString(n), "-b",
                Integer.toString(tile), "-check");
            case "lu" -> List.of("mpirun", "--allow-run-as-root", "-np", "1", PLU.toString(), "-size",
                Integer.toString(n), "-nblocks", Integer.toString(n / tile), "-path", swap.toString(), "-p", "1", "-q",
                "1");
            default -> throw new IllegalArgumentException("StarPU runs matmul and lu, not " + kernel);
        };
    }

    /** @return StarPU's environment: workers, the memory limit in MiB (none in core), the O_DIRECT disk swap. */
    Map<String, String> environment(final long budget, final Path swap)
    {
        final Map<String, String> env = new LinkedHashMap<>();
        env.put("STARPU_HOME", dir.resolve("home").toString());
        env.put("STARPU_NCPU", Integer.toString(workers));
        env.put("OPENBLAS_NUM_THREADS", "1");
        env.put("MALLOC_MMAP_THRESHOLD_", "1048576");
        env.put("STARPU_WATCHDOG_TIMEOUT", "5000000");
        if (budget >= 0)
        {
            env.put("STARPU_LIMIT_CPU_MEM", Long.toString(Math.max(1, budget >> 20)));
            env.put("STARPU_DISK_SWAP", swap.toString());
            env.put("STARPU_DISK_SWAP_SIZE", "16384");
            env.put("STARPU_DISK_SWAP_BACKEND", "unistd_o_direct");
        }
        return env;
    }

    private static int exit(final List<String> cmd) throws InterruptedException
    {
        try
        {
            final Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return p.waitFor();
        }
        catch (final IOException e)
        {
            return 127;
        }
    }

    private static void deleteTree(final Path root) throws IOException
    {
        if (!Files.exists(root))
        {
            return;
        }
        try (Stream<Path> paths = Files.walk(root))
        {
            for (final Path p : paths.sorted(Comparator.reverseOrder()).toList())
            {
                Files.deleteIfExists(p);
            }
        }
    }
}
