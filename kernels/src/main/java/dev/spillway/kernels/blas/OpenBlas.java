package dev.spillway.kernels.blas;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;

import java.io.File;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * {@link TileBlas} on OpenBLAS through JNA. Loading sets OpenBLAS to one thread, so each calling thread runs
 * single-threaded BLAS. LU without pivoting, which OpenBLAS lacks, is recursive with native {@code dtrsm} and
 * {@code dgemm} for the updates.
 */
public final class OpenBlas implements TileBlas
{
    private static final int COL_MAJOR = 102;
    private static final int NO_TRANS = 111;
    private static final int TRANS = 112;
    private static final int UPPER = 121;
    private static final int LOWER = 122;
    private static final int NON_UNIT = 131;
    private static final int UNIT = 132;
    private static final int LEFT = 141;
    private static final int RIGHT = 142;
    private static final int PANEL_WIDTH = 32;

    private static OpenBlas loaded;
    private static String failure;

    private final String library;
    private final String coreName;
    private final String config;
    private final RecursiveLu noPivotLu = new RecursiveLu(this, PANEL_WIDTH);

    private OpenBlas(final String library, final String coreName, final String config)
    {
        this.library = library;
        this.coreName = coreName;
        this.config = config;
    }

    /**
     * Loads OpenBLAS once per JVM: {@code openblas} on the library path, then the usual Debian and Red Hat files.
     *
     * @throws IllegalStateException listing every place tried and why it failed.
     */
    public static synchronized OpenBlas load()
    {
        if (loaded != null)
        {
            return loaded;
        }
        if (failure != null)
        {
            throw new IllegalStateException(failure);
        }
        final List<String> reasons = new ArrayList<>();
        for (final String candidate : candidates())
        {
            if (candidate.startsWith("/") && !new File(candidate).exists())
            {
                reasons.add(candidate + ": no such file");
                continue;
            }
            try
            {
                loaded = bind(NativeLibrary.getInstance(candidate), candidate);
                return loaded;
            }
            catch (final LinkageError | RuntimeException e)
            {
                reasons.add(candidate + ": " + briefly(e.getMessage()));
            }
        }
        failure = "OpenBLAS cannot be loaded; tried " + String.join("; ", reasons);
        throw new IllegalStateException(failure);
    }

    private static OpenBlas bind(final NativeLibrary library, final String candidate)
    {
        for (final String symbol : OpenBlasNative.SYMBOLS)
        {
            library.getFunction(symbol);
        }
        OpenBlasNative.register(library);
        OpenBlasNative.openblas_set_num_threads(1);
        final File file = library.getFile();
        return new OpenBlas(file == null ? candidate : file.getPath(), OpenBlasNative.openblas_get_corename(),
            OpenBlasNative.openblas_get_config());
    }

    /** @return JNA's multi-line message on one line, without repeats or its class-path resource search. */
    private static String briefly(final String message)
    {
        return String.valueOf(message).lines()
            .map(String::strip)
            .filter(line -> !line.startsWith("Native library ("))
            .distinct()
            .collect(Collectors.joining(" "));
    }

    private static List<String> candidates()
    {
        final String multiarch = System.getProperty("os.arch").equals("aarch64") ? "aarch64" : "x86_64";
        return List.of(
            "openblas",
            "/usr/lib/" + multiarch + "-linux-gnu/libopenblas.so.0",
            "/usr/lib/" + multiarch + "-linux-gnu/openblas-pthread/libopenblas.so.0",
            "/usr/lib64/libopenblas.so.0");
    }

    @Override
    public String name()
    {
        return "openblas";
    }

    /** @return the core OpenBLAS runs kernels for, such as {@code SkylakeX} or {@code Prescott}. */
    public String coreName()
    {
        return coreName;
    }

    /** @return build configuration, core and library file, for reports. */
    public String description()
    {
        return config + ", core " + coreName + ", " + library;
    }

    @Override
    public void dgemm(
        final boolean transA, final boolean transB, final int m, final int n, final int k, final double alpha,
        final ByteBuffer a, final int lda, final ByteBuffer b, final int ldb, final double beta, final ByteBuffer c,
        final int ldc)
    {
        TileArgs.dgemm(transA, transB, m, n, k, a, lda, b, ldb, c, ldc);
        if (m == 0 || n == 0)
        {
            return;
        }
        // With alpha = 0, OpenBLAS 0.3.21 still multiplies and lets NaNs in A or B through; k = 0 only scales C.
        OpenBlasNative.cblas_dgemm(COL_MAJOR, transA ? TRANS : NO_TRANS, transB ? TRANS : NO_TRANS, m, n,
            alpha == 0 ? 0 : k, alpha, address(a), lda, address(b), ldb, beta, address(c), ldc);
        Reference.reachabilityFence(a);
        Reference.reachabilityFence(b);
        Reference.reachabilityFence(c);
    }

    @Override
    public void dtrsm(
        final boolean left, final boolean lower, final boolean transA, final boolean unitDiagonal, final int m,
        final int n, final double alpha, final ByteBuffer a, final int lda, final ByteBuffer b, final int ldb)
    {
        TileArgs.dtrsm(left, m, n, a, lda, b, ldb);
        if (m == 0 || n == 0)
        {
            return;
        }
        OpenBlasNative.cblas_dtrsm(COL_MAJOR, left ? LEFT : RIGHT, lower ? LOWER : UPPER, transA ? TRANS : NO_TRANS,
            unitDiagonal ? UNIT : NON_UNIT, m, n, alpha, address(a), lda, address(b), ldb);
        Reference.reachabilityFence(a);
        Reference.reachabilityFence(b);
    }

    @Override
    public void dgetrfNoPivot(final int m, final int n, final ByteBuffer a, final int lda)
    {
        TileArgs.dgetrf(m, n, a, lda);
        noPivotLu.factor(m, n, a, lda, null);
    }

    @Override
    public void dgetrf(final int m, final int n, final ByteBuffer a, final int lda, final int[] ipiv)
    {
        TileArgs.dgetrf(m, n, a, lda);
        final int k = Math.min(m, n);
        TileArgs.pivots(ipiv, k);
        if (k == 0)
        {
            return;
        }
        final int[] info = new int[1];
        OpenBlasNative.dgetrf_(new int[] {m}, new int[] {n}, address(a), new int[] {lda}, ipiv, info);
        Reference.reachabilityFence(a);
        for (int i = 0; i < k; i++)
        {
            ipiv[i]--;
        }
        if (info[0] > 0)
        {
            throw new ArithmeticException("LU: the pivot in column " + (info[0] - 1) + " is exactly zero");
        }
        if (info[0] < 0)
        {
            throw new IllegalArgumentException("dgetrf rejected argument " + -info[0]);
        }
    }

    private static long address(final ByteBuffer buffer)
    {
        return Pointer.nativeValue(Native.getDirectBufferPointer(buffer));
    }
}
