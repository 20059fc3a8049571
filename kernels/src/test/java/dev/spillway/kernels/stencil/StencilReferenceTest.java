package dev.spillway.kernels.stencil;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The reference itself, against arithmetic written out in the test. */
class StencilReferenceTest
{
    private static final double EPS = 1e-15;

    @Test
    void oneCellBecomesTheMeanOfTheSixBoundaryFaces()
    {
        final StencilReference r = new StencilReference(1, 1, 1, 1, 1, 1);
        r.run(1, 1);
        assertEquals((1.0 + 0.0 + 0.5 + 0.25 + 0.75 + 0.125) / 6, r.value(0, 0, 0), EPS);
    }

    @Test
    void aSweepUsesValuesAlreadyUpdatedInIt()
    {
        final StencilReference r = new StencilReference(3, 1, 1, 1, 1, 1);
        final double u1 = r.value(1, 0, 0);
        final double u2 = r.value(2, 0, 0);
        final double faces = 0.5 + 0.25 + 0.75 + 0.125;
        r.run(1, 1);
        final double n0 = (1.0 + u1 + faces) / 6;
        final double n1 = (n0 + u2 + faces) / 6;
        final double n2 = (n1 + 0.0 + faces) / 6;
        assertEquals(n0, r.value(0, 0, 0), EPS);
        assertEquals(n1, r.value(1, 0, 0), EPS);
        assertEquals(n2, r.value(2, 0, 0), EPS);
    }

    @Test
    void eachBlockSeesEarlierBlocksOfThisStepAndLaterBlocksOfTheLastStep()
    {
        final StencilReference r = new StencilReference(2, 1, 1, 2, 1, 1);
        final double u1 = r.value(1, 0, 0);
        final double faces = 0.5 + 0.25 + 0.75 + 0.125;
        r.run(2, 2);
        final double a = (1.0 + u1 + faces) / 6;
        final double b = (a + 0.0 + faces) / 6;
        final double a2 = (1.0 + b + faces) / 6;
        final double b2 = (a2 + 0.0 + faces) / 6;
        assertEquals(a2, r.value(0, 0, 0), EPS);
        assertEquals(b2, r.value(1, 0, 0), EPS);
    }

    @Test
    void convergesToTheDiscreteHarmonicFunction()
    {
        final int nx = 6;
        final int ny = 5;
        final int nz = 4;
        final StencilReference r = new StencilReference(nx, ny, nz, 2, 1, 2);
        r.run(1, 300);
        double worst = 0;
        for (int z = 0; z < nz; z++)
        {
            for (int y = 0; y < ny; y++)
            {
                for (int x = 0; x < nx; x++)
                {
                    final double mean = (at(r, x - 1, y, z, nx, ny, nz) + at(r, x + 1, y, z, nx, ny, nz) +
                        at(r, x, y - 1, z, nx, ny, nz) + at(r, x, y + 1, z, nx, ny, nz) +
                        at(r, x, y, z - 1, nx, ny, nz) + at(r, x, y, z + 1, nx, ny, nz)) / 6;
                    worst = Math.max(worst, Math.abs(mean - r.value(x, y, z)));
                }
            }
        }
        assertTrue(worst < 1e-12, "largest |u - mean of neighbours| " + worst);
        assertTrue(r.value(0, 2, 2) > r.value(5, 2, 2), "the hot x- face should warm its side");
    }

    private static double at(final StencilReference r, final int x, final int y, final int z, final int nx,
        final int ny, final int nz)
    {
        if (x < 0)
        {
            return 1.0;
        }
        if (x >= nx)
        {
            return 0.0;
        }
        if (y < 0)
        {
            return 0.5;
        }
        if (y >= ny)
        {
            return 0.25;
        }
        if (z < 0)
        {
            return 0.75;
        }
        if (z >= nz)
        {
            return 0.125;
        }
        return r.value(x, y, z);
    }

    @Test
    void blockingChangesTheResultAndTheChecksum()
    {
        assertNotEquals(StencilReference.referenceChecksum(12, 10, 8, 1, 1, 1, 2, 2),
            StencilReference.referenceChecksum(12, 10, 8, 2, 1, 1, 2, 2));
        assertEquals(StencilReference.referenceChecksum(12, 10, 8, 2, 1, 1, 2, 2),
            StencilReference.referenceChecksum(12, 10, 8, 2, 1, 1, 2, 2));
    }
}
