package dev.spillway.kernels.blas;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The contract on OpenBLAS; skipped where it does not load, except under CI=true where that fails. */
class OpenBlasTest extends TileBlasContract
{
    private static OpenBlas blas;

    @BeforeAll
    static void load()
    {
        try
        {
            blas = OpenBlas.load();
        }
        catch (final IllegalStateException e)
        {
            if ("true".equals(System.getenv("CI")))
            {
                fail("CI=true requires OpenBLAS: " + e.getMessage(), e);
            }
            assumeTrue(false, "skipped: " + e.getMessage());
        }
    }

    @Override
    TileBlas blas()
    {
        return blas;
    }

    @Test
    void describesTheLibraryAndCore()
    {
        assertEquals("openblas", blas.name());
        assertFalse(blas.coreName().isBlank());
        assertTrue(blas.description().contains(blas.coreName()), blas.description());
    }
}
