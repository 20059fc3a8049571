package dev.spillway.kernels.blas;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Picks the {@link TileBlas} for this JVM from the system property {@value #PROPERTY}: {@code auto} (the default:
 * OpenBLAS if it loads, else pure Java), {@code openblas} (fail if it does not load) or {@code java}.
 */
public final class Blas
{
    /** The system property naming the implementation. */
    public static final String PROPERTY = "spillway.blas";

    private static final Set<String> AVX512_CORES = Set.of("skylakex", "cooperlake", "sapphirerapids");
    private static final Map<String, Choice> CHOICES = new ConcurrentHashMap<>();

    /**
     * The implementation in use and a line for the run's report.
     *
     * @param blas the implementation.
     * @param note which one was picked and why, with any warning about its speed.
     */
    public record Choice(TileBlas blas, String note)
    {
    }

    private Blas()
    {
    }

    /**
     * @return the choice for the current value of {@value #PROPERTY}, made once per value and JVM.
     * @throws IllegalArgumentException if the property has another value.
     * @throws IllegalStateException    if it is {@code openblas} and OpenBLAS does not load.
     */
    public static Choice load()
    {
        final String mode = System.getProperty(PROPERTY, "auto").trim().toLowerCase(Locale.ROOT);
        return CHOICES.computeIfAbsent(mode, Blas::choose);
    }

    private static Choice choose(final String mode)
    {
        switch (mode)
        {
            case "java":
                return new Choice(new JavaBlas(),
                    "pure-Java BLAS (" + PROPERTY + "=java): expect it to be much slower than OpenBLAS");
            case "openblas":
                try
                {
                    return openBlas(OpenBlas.load());
                }
                catch (final IllegalStateException e)
                {
                    throw new IllegalStateException(PROPERTY + "=openblas but " + e.getMessage(), e);
                }
            case "auto":
                try
                {
                    return openBlas(OpenBlas.load());
                }
                catch (final IllegalStateException e)
                {
                    return new Choice(new JavaBlas(), "OpenBLAS not found (" + e.getMessage() +
                        "): using the pure-Java fallback, expect it to be much slower");
                }
            default:
                throw new IllegalArgumentException(
                    PROPERTY + "=" + mode + " is not one of auto, openblas, java");
        }
    }

    private static Choice openBlas(final OpenBlas blas)
    {
        final String coreType = System.getenv("OPENBLAS_CORETYPE");
        final String note = blas.description() + ", " +
            (coreType == null ? "OPENBLAS_CORETYPE unset" : "OPENBLAS_CORETYPE=" + coreType) +
            coreWarning(blas.coreName(), cpuHasAvx512());
        return new Choice(blas, note);
    }

    /** @return a warning when OpenBLAS runs kernels without AVX-512 on a CPU that has it, else empty. */
    static String coreWarning(final String coreName, final boolean cpuHasAvx512)
    {
        if (!cpuHasAvx512 || AVX512_CORES.contains(coreName.toLowerCase(Locale.ROOT)))
        {
            return "";
        }
        return "; WARNING: the CPU has AVX-512 but OpenBLAS picked core " + coreName +
            ", about 5x slower dgemm: set OPENBLAS_CORETYPE=SkylakeX";
    }

    /** @return whether /proc/cpuinfo lists avx512f; false where it cannot be read. */
    static boolean cpuHasAvx512()
    {
        try (var lines = Files.lines(Path.of("/proc/cpuinfo")))
        {
            return lines.anyMatch(line -> line.startsWith("flags") && line.contains(" avx512f"));
        }
        catch (final IOException | RuntimeException e)
        {
            return false;
        }
    }
}
