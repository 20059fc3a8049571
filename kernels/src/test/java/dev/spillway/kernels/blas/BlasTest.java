package dev.spillway.kernels.blas;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BlasTest
{
    private final String saved = System.getProperty(Blas.PROPERTY);

    @AfterEach
    void restoreProperty()
    {
        if (saved == null)
        {
            System.clearProperty(Blas.PROPERTY);
        }
        else
        {
            System.setProperty(Blas.PROPERTY, saved);
        }
    }

    @Test
    void javaPropertyPicksThePureJavaFallbackOnce()
    {
        System.setProperty(Blas.PROPERTY, "java");
        final Blas.Choice choice = Blas.load();
        assertInstanceOf(JavaBlas.class, choice.blas());
        assertEquals("java", choice.blas().name());
        assertTrue(choice.note().contains("slower"), choice.note());
        assertSame(choice, Blas.load());
    }

    @Test
    void unknownValueIsRejectedByName()
    {
        System.setProperty(Blas.PROPERTY, "mkl");
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, Blas::load);
        assertTrue(e.getMessage().contains("spillway.blas=mkl"), e.getMessage());
    }

    @Test
    void autoAndOpenblasAgreeWithWhetherOpenBlasLoads()
    {
        boolean loads;
        try
        {
            OpenBlas.load();
            loads = true;
        }
        catch (final IllegalStateException e)
        {
            loads = false;
        }
        System.setProperty(Blas.PROPERTY, "auto");
        final Blas.Choice auto = Blas.load();
        assertEquals(loads ? "openblas" : "java", auto.blas().name(), auto.note());
        assertTrue(auto.note().contains(loads ? "OPENBLAS_CORETYPE" : "OpenBLAS not found"), auto.note());

        System.setProperty(Blas.PROPERTY, "openblas");
        if (loads)
        {
            assertSame(auto.blas(), Blas.load().blas());
        }
        else
        {
            final IllegalStateException e = assertThrows(IllegalStateException.class, Blas::load);
            assertTrue(e.getMessage().startsWith("spillway.blas=openblas but OpenBLAS cannot be loaded"),
                e.getMessage());
        }
    }

    @Test
    void warnsOnlyWhenAnAvx512CpuRunsAnOlderCore()
    {
        assertTrue(Blas.coreWarning("Prescott", true).contains("OPENBLAS_CORETYPE=SkylakeX"));
        assertTrue(Blas.coreWarning("Haswell", true).contains("core Haswell"));
        assertEquals("", Blas.coreWarning("SkylakeX", true));
        assertEquals("", Blas.coreWarning("Cooperlake", true));
        assertEquals("", Blas.coreWarning("Prescott", false));
    }
}
