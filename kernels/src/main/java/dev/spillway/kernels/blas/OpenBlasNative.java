package dev.spillway.kernels.blas;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;

/** JNA direct mapping of the OpenBLAS entry points in use. Pointers are raw addresses. */
final class OpenBlasNative
{
    static final String[] SYMBOLS =
        {"cblas_dgemm", "cblas_dtrsm", "dgetrf_", "openblas_set_num_threads", "openblas_get_corename",
            "openblas_get_config"};

    private OpenBlasNative()
    {
    }

    /** Binds the methods below to {@code library}, which must export every one of {@link #SYMBOLS}. */
    static void register(final NativeLibrary library)
    {
        Native.register(OpenBlasNative.class, library);
    }

    static native void cblas_dgemm(
        int order, int transA, int transB, int m, int n, int k, double alpha, long a, int lda, long b, int ldb,
        double beta, long c, int ldc);

    static native void cblas_dtrsm(
        int order, int side, int uplo, int transA, int diag, int m, int n, double alpha, long a, int lda, long b,
        int ldb);

    /** Fortran LAPACK: scalars by reference, 1-based pivots. */
    static native void dgetrf_(int[] m, int[] n, long a, int[] lda, int[] ipiv, int[] info);

    static native void openblas_set_num_threads(int threads);

    static native String openblas_get_corename();

    static native String openblas_get_config();
}
