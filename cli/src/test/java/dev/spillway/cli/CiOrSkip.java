package dev.spillway.cli;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** A test's requirement of the machine: under {@code CI=true} a missing one fails the test, elsewhere it skips it. */
public final class CiOrSkip
{
    private CiOrSkip()
    {
    }

    /** @param missing what the machine lacks, in words. */
    public static void require(final boolean met, final String missing)
    {
        if (!met && "true".equalsIgnoreCase(System.getenv("CI")))
        {
            fail("CI=true but " + missing);
        }
        assumeTrue(met, missing);
    }
}
